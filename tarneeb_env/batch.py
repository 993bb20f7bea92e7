"""``BatchEnv``: N independent Tarneeb games advanced in lockstep, for fast self-play.

Each game follows exactly the AEC env's rules, observations, rewards and hand
records (tests/test_batch.py checks it step for step against ``raw_env``).
State is struct-of-arrays and every decision runs in the numba kernels of
:mod:`tarneeb_env.batch_kernels`; only what happens when a deal ends (the
shuffle from the game's numpy generator, the dealer draw of a new episode, the
hand record) runs in Python.

Seeding: game ``i`` of ``BatchEnv(seed=s)`` is the AEC env reset with
``seed=be.game_seeds[i]``, and when its episode ends it auto-resets like
``raw_env.reset()`` without a seed (its generator continued, dealer drawn, a
random deal). ``game_seeds`` come from ``np.random.SeedSequence(s).spawn(N)``:
child ``i``'s first 64-bit word, an int ``raw_env.reset(seed=...)`` accepts.
"""
from __future__ import annotations

import gc
import operator
from typing import Any, NoReturn, Optional, Sequence

import numpy as np

from . import batch_kernels, rules_core
from .batch_kernels import (
    ALL_SEATS, AUC_LEN, BID, BIDS0, CURRENT, DEALER, DECLARER, DELTA0, EXPOSED, HAND0, LEADER, MAX_AUCTION, NPLAYED,
    NUM_COLS, PHASE, SCORE0, SEAT_DELTA0, SEAT_SCORE0, SEAT_TRICKS0, THROWN_IN, TRUMP_SUIT, TEAM_TRICKS0, VOID0,
)
from .cards import BID_BASE, NUM_ACTIONS, NUM_CARDS, action_str, cards_of
from .deal import draw_deal
from .game import IllegalActionError
from .observation import OBS_SIZE
from .options import ResetOptions, check_env_args, reset_options
from .privileged import hidden_hands
from .record import HandRecord
from .rules import RulesSpec, make_rules
from .rules_core import GOES_ON, PHASES, TERMINATED, TRUNCATED
from .view import PlayerView, build_view



_PAIRS = tuple((s, a) for s in range(4) for a in range(NUM_ACTIONS))  # view_parts' code s * NUM_ACTIONS + a


def game_seeds(seed: Optional[int], num_games: int) -> list[int]:
    """Per-game int seeds: child ``i`` of ``SeedSequence(seed).spawn(num_games)``, first uint64 word."""
    children = np.random.SeedSequence(seed).spawn(num_games)
    return [int(c.generate_state(1, np.uint64)[0]) for c in children]


def random_legal_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of an int8 (N, 70) action mask (random play, benchmarks)."""
    mask = np.ascontiguousarray(mask, dtype=np.int8)
    if mask.ndim != 2 or mask.shape[1] != NUM_ACTIONS:
        raise ValueError(f"mask: expected shape (N, {NUM_ACTIONS}), got {mask.shape}")
    out = np.full(len(mask), -1, dtype=np.int64)
    batch_kernels.sample_legal(mask, rng.random(len(mask)), out)
    if (out < 0).any():
        raise ValueError(f"mask: row {int(np.argmax(out < 0))} has no legal action")
    return out


class BatchEnv:
    """N Tarneeb games; every :meth:`step` takes one action per game, for its seat to act.

    ``step`` returns ``(obs, mask, seat, rewards, done, records)``: the next
    decision of every game (float32 (N, 694) observation of the seat to act,
    int8 (N, 70) action mask, int64 (N,) seat), float32 (N, 4) rewards per
    absolute seat for games whose deal ended, bool (N,) episode ended (that
    game has already auto-reset; ``be.truncated`` tells which of them hit
    ``max_hands``), and ``(game_index, HandRecord)`` for every deal that ended.
    Arrays returned are new each call, so callers may keep them.
    """

    def __init__(
        self,
        num_games: int,
        rules: RulesSpec = "classic",
        episode: str = "hand",
        reward: str = "score_diff",
        max_hands: int = 200,
        seed: Optional[int] = None,
    ):
        if not isinstance(num_games, (int, np.integer)) or isinstance(num_games, bool) or num_games < 1:
            raise ValueError(f"num_games: must be a positive int, got {num_games!r}")
        check_env_args(episode, reward, max_hands)
        n = self.num_games = int(num_games)
        self.rules = make_rules(rules)
        self.episode = episode
        self.reward_mode = reward
        self.max_hands = max_hands
        self._rules_dict = self.rules.to_dict()
        self._rules_vec = np.array(rules_core.env_vector(self.rules, episode, reward, max_hands), dtype=np.int64)
        self.game_seeds = game_seeds(seed, n)
        self._rngs = [np.random.default_rng(s) for s in self.game_seeds]
        self._state = np.zeros((n, NUM_COLS), dtype=np.int64)
        self._auction = np.zeros((n, MAX_AUCTION, 3), dtype=np.int8)
        self._plays = np.zeros((n, NUM_CARDS, 2), dtype=np.int8)
        self._trick_winners = np.zeros((n, 13), dtype=np.int8)
        self._dealt = np.zeros((n, 4, 13), dtype=np.int8)
        self._outcome = np.zeros(n, dtype=np.int8)
        self.truncated = np.zeros(n, dtype=bool)
        self._ready = False

    def _arrays(self):
        return self._state, self._auction, self._plays, self._trick_winners, self._dealt

    # ------------------------------------------------------------------ reset
    def reset(self, seed: Optional[int] = None, options: Optional[Sequence[Optional[dict[str, Any]]]] = None):
        """Start a new episode in every game; returns ``(obs, mask, seat)``.

        ``seed`` re-derives every game's generator (see :func:`game_seeds`);
        without it each game continues its own. ``options``: a list of N
        per-game option dicts (or None), checked by the same code as
        ``raw_env.reset``'s (:func:`tarneeb_env.options.reset_options`, each
        message prefixed by the game); they apply to this reset only,
        auto-resets deal at random.
        """
        n = self.num_games
        if options is not None and (isinstance(options, dict) or len(options) != n):
            raise ValueError(f"options: expected a list of {n} per-game dicts (or None), got {options!r:.80}")
        self._ready = False
        if seed is not None:
            self.game_seeds = game_seeds(seed, n)
            self._rngs = [np.random.default_rng(s) for s in self.game_seeds]
        random_games, perms, dealers = [], [], []
        for i in range(n):
            rng = self._rngs[i]
            opts = reset_options(options[i] if options is not None else None, rng, where=f"options[{i}]: ")
            if opts.plain:
                random_games.append(i)
                dealers.append(opts.dealer)
                perms.append(rng.permutation(NUM_CARDS))  # the draw of deal_cards, dealt in the kernel
            else:
                self._start_game(i, opts)
        if random_games:
            batch_kernels.deal_from_perms(
                *self._arrays(), np.array(random_games, dtype=np.int64), np.array(perms, dtype=np.int64),
                np.array(dealers, dtype=np.int64), self._rules_vec, *self._outputs(),
            )
        self.truncated[:] = False
        self._ready = True
        return self._observe()

    def _start_game(self, i: int, opts: ResetOptions) -> None:
        """A new game from checked reset options, drawing as ``TarneebGame.start_deal`` does."""
        batch_kernels.new_game(self._state, i, opts.dealer, np.array(opts.scores), np.array(opts.seat_scores))
        hands, exposed = draw_deal(self.rules, self._rngs[i], opts.dealer, opts.deal, opts.exposed_card)
        exposed = rules_core.NO_SUIT if exposed is None else exposed
        batch_kernels.start_deal(*self._arrays(), i, np.array(hands, dtype=np.int64), exposed, self._rules_vec)

    # ------------------------------------------------------------------- step
    def step(self, actions):
        """Apply one action per game; returns ``(obs, mask, seat, rewards, done, records)``."""
        if not self._ready:
            raise RuntimeError("BatchEnv.step called before reset()")
        n = self.num_games
        acts = np.asarray(actions)
        if acts.shape != (n,) or not np.issubdtype(acts.dtype, np.integer):
            raise ValueError(f"actions: expected {n} ints, got array of shape {acts.shape} and dtype {acts.dtype}")
        acts = np.ascontiguousarray(acts, dtype=np.int64)
        state, auction, plays, trick_winners, _ = self._arrays()
        obs, mask, seat = self._outputs()
        rewards = np.empty((n, 4), dtype=np.float32)
        outcome = self._outcome
        ended = batch_kernels.step_games(state, auction, plays, trick_winners, acts, self._rules_vec, rewards, outcome,
                                         obs, mask, seat)
        if ended < 0:
            self._illegal(-1 - ended, int(acts[-1 - ended]))
        done = outcome >= TERMINATED
        np.equal(outcome, TRUNCATED, out=self.truncated)
        records = self._next_deals(outcome, done, obs, mask, seat) if ended else []
        return obs, mask, seat, rewards, done, records

    def step_some(self, games, actions, obs: np.ndarray, mask: np.ndarray, seat: np.ndarray,
                  obs_seats: Optional[np.ndarray] = None, final_seats: Optional[np.ndarray] = None):
        """Apply ``actions[k]`` in game ``games[k]`` only; the other games wait (a learner's vector env steps
        the opponents' games while the learner's wait). Returns ``(rewards, done, final_obs, records)``.

        ``obs``, ``mask``, ``seat`` are the caller's (N, ...) arrays of every game's current decision (from
        ``reset``/``step``); the rows of ``games`` are overwritten with their next decision, the observation
        only where bit ``s`` of ``obs_seats[i]`` (int64 (N,), default: all seats) is set for the seat ``s``
        to act. ``rewards`` (N, 4) and ``done`` (N,) are as ``step``'s, zero/False outside ``games``;
        ``be.truncated`` likewise. ``final_obs`` (None unless ``final_seats`` is given): float32 (E, 694), the
        observation of seat ``final_seats[i]`` of each game ``i`` whose episode ended (``np.flatnonzero(done)``
        order) as it ended, before the auto-reset (gymnasium's final observation).
        """
        if not self._ready:
            raise RuntimeError("BatchEnv.step_some called before reset()")
        n = self.num_games
        games = np.ascontiguousarray(games, dtype=np.int64)
        acts = np.asarray(actions)
        if acts.shape != games.shape or not np.issubdtype(acts.dtype, np.integer):
            raise ValueError(f"actions: expected {len(games)} ints, got shape {acts.shape} and dtype {acts.dtype}")
        if games.size and (games.min() < 0 or games.max() >= n):
            raise IndexError(f"games: indices must be in 0..{n - 1}")
        if len(np.unique(games)) != len(games):  # legality is checked for all before any is applied
            raise ValueError("games: each game at most once per step_some call")
        acts = np.ascontiguousarray(acts, dtype=np.int64)
        if obs_seats is None:
            obs_seats = np.full(n, ALL_SEATS, dtype=np.int64)
        rewards = np.zeros((n, 4), dtype=np.float32)
        outcome = self._outcome
        outcome[:] = GOES_ON
        state, auction, plays, trick_winners, _ = self._arrays()
        ended = batch_kernels.step_some(state, auction, plays, trick_winners, games, acts, self._rules_vec, rewards,
                                        outcome, obs, mask, seat, obs_seats)
        if ended < 0:
            self._illegal(int(games[-1 - ended]), int(acts[-1 - ended]))
        done = outcome >= TERMINATED
        np.equal(outcome, TRUNCATED, out=self.truncated)
        final_obs = None
        if final_seats is not None:
            ends = np.flatnonzero(done)
            final_obs = np.empty((len(ends), OBS_SIZE), dtype=np.float32)
            for k, i in enumerate(ends.tolist()):
                batch_kernels.write_obs_row(state, auction, plays, i, int(final_seats[i]), self._rules_vec,
                                            final_obs[k])
        records = self._next_deals(outcome, done, obs, mask, seat) if ended else []
        return rewards, done, final_obs, records

    def _illegal(self, bad: int, a: int) -> NoReturn:
        """Raise the error for illegal action ``a`` in game ``bad`` (the state is unchanged)."""
        state = self._state
        name = action_str(a) if 0 <= a < NUM_ACTIONS else "not an action"
        raise IllegalActionError(
            f"game {bad}: illegal action {a} ({name}) for player_{state[bad, CURRENT]} in phase "
            f"{PHASES[state[bad, PHASE]]}; legal actions: {list(cards_of(self._legal_bits(bad)))}"
        )

    def _next_deals(self, outcome, done, obs, mask, seat) -> list[tuple[int, HandRecord]]:
        """Records of the deals that ended (``outcome`` non-zero), then their next deal (a new episode where
        ``done``) written into the decision arrays."""
        games = np.flatnonzero(outcome)
        records = self._records(games)
        perms = np.empty((len(games), NUM_CARDS), dtype=np.int64)
        perms[:] = np.arange(NUM_CARDS)
        dealers = np.full(len(games), -1, dtype=np.int64)
        rngs = self._rngs
        for k, i in enumerate(games.tolist()):
            rng = rngs[i]
            if done[i]:
                dealers[k] = rng.integers(4)
            rng.shuffle(perms[k])  # what rng.permutation(NUM_CARDS) in deal_cards draws
        batch_kernels.deal_from_perms(*self._arrays(), games, perms, dealers, self._rules_vec, obs, mask, seat)
        return records

    def _records(self, games: np.ndarray) -> list[tuple[int, HandRecord]]:
        """Hand records of the deals that just ended in ``games``, as ``TarneebGame.hand_record``.

        They are thousands of small lists per step; the cyclic garbage collector is paused while they are
        built (none of them can form a cycle), which otherwise would rescan the heap several times.
        """
        paused = gc.isenabled()
        gc.disable()
        try:
            return self._build_records(games)
        finally:
            if paused:
                gc.enable()

    def _build_records(self, games: np.ndarray) -> list[tuple[int, HandRecord]]:
        rows = self._state[games].tolist()
        dealt = self._dealt[games].tolist()
        auctions = self._auction[games, :, :2].tolist()
        plays = self._plays[games].tolist()
        winners = self._trick_winners[games].tolist()
        out = []
        for k, i in enumerate(games.tolist()):
            r = rows[k]
            declared = r[DECLARER] >= 0
            out.append((i, HandRecord.of({
                "dealer": r[DEALER], "deal": dealt[k], "exposed_card": r[EXPOSED] if r[EXPOSED] >= 0 else None,
                "auction": auctions[k][: r[AUC_LEN]], "declarer": r[DECLARER] if declared else None,
                "bid": r[BID] if declared else None, "bids": r[BIDS0 : BIDS0 + 4],
                "trump": r[TRUMP_SUIT] if r[TRUMP_SUIT] >= 0 else None, "plays": plays[k][: r[NPLAYED]],
                "trick_winners": winners[k][: r[NPLAYED] // 4], "tricks_won": r[TEAM_TRICKS0 : TEAM_TRICKS0 + 2],
                "tricks_by_seat": r[SEAT_TRICKS0 : SEAT_TRICKS0 + 4], "score_delta": r[DELTA0 : DELTA0 + 2],
                "seat_score_delta": r[SEAT_DELTA0 : SEAT_DELTA0 + 4], "scores": r[SCORE0 : SCORE0 + 2],
                "seat_scores": r[SEAT_SCORE0 : SEAT_SCORE0 + 4], "thrown_in": bool(r[THROWN_IN]),
                "rules": dict(self._rules_dict),
            })))
        return out

    # ---------------------------------------------------------- observations
    def _outputs(self):
        n = self.num_games
        obs = np.empty((n, OBS_SIZE), dtype=np.float32)
        return obs, np.empty((n, NUM_ACTIONS), dtype=np.int8), np.empty(n, dtype=np.int64)

    def _observe(self):
        obs, mask, seat = self._outputs()
        batch_kernels.observe_all(self._state, self._auction, self._plays, self._rules_vec, obs, mask, seat)
        return obs, mask, seat

    def _legal_bits(self, i: int) -> int:
        """Game ``i``'s legal actions as one int of action bits, as ``TarneebGame.legal``."""
        cards, others = batch_kernels.legal_sets(self._state, self._plays, i, self._rules_vec)
        return cards | others << BID_BASE

    def view(self, i: int, seat: Optional[int] = None) -> PlayerView:
        """PlayerView of game ``i`` for ``seat`` (default: the seat to act), as ``make_view``."""
        return self.views([i], None if seat is None else [seat])[0]

    def views(self, games: Sequence[int], seats: Optional[Sequence[int]] = None) -> list[PlayerView]:
        """PlayerViews of ``games[k]`` for ``seats[k]`` (default: each game's seat to act), as ``make_view``.

        Built together because a rollout's built-in agents read one per decision: the games' state rows,
        legal sets, plays and auctions come from one kernel call as one array
        (:func:`~tarneeb_env.batch_kernels.view_parts`), converted to Python once, instead of a few numpy
        calls per view.
        """
        if not self._ready:
            raise RuntimeError("BatchEnv.views called before reset()")
        try:  # checked in Python: numpy calls would cost more than the view itself for one game
            games = [operator.index(i) for i in games]
        except TypeError:
            raise ValueError(f"games: expected a sequence of game indices, got {games!r:.80}") from None
        num_games = self.num_games
        for i in games:
            if not 0 <= i < num_games:
                raise IndexError(f"game index {i} out of range 0..{num_games - 1}")
        if seats is not None:
            seats = [int(s) for s in seats]
            if len(seats) != len(games):
                raise ValueError(f"seats: {len(seats)} seats for {len(games)} games")
            for s in seats:
                if not 0 <= s < 4:
                    raise ValueError(f"seat must be 0..3, got {s}")
        parts = batch_kernels.view_parts(self._state, self._auction, self._plays, np.array(games, dtype=np.int64),
                                         self._rules_vec).tolist()
        pairs, rules, cols = _PAIRS, self.rules, NUM_COLS
        out = []
        o = 0
        for k in range(len(games)):
            r = parts[o : o + cols]
            to_act = r[CURRENT]
            seat = to_act if seats is None else seats[k]
            n, m = r[NPLAYED], r[AUC_LEN]
            o += cols + 2
            declared = r[DECLARER] >= 0
            auction = tuple([pairs[c] for c in parts[o + n : o + n + m]])
            out.append(build_view({
                "seat": seat, "dealer": r[DEALER], "phase": r[PHASE], "hand": r[HAND0 + seat], "auction": auction,
                "declarer": r[DECLARER] if declared else None, "bid": r[BID] if declared else None,
                "trump": r[TRUMP_SUIT] if r[TRUMP_SUIT] >= 0 else None, "bids": tuple(r[BIDS0 : BIDS0 + 4]),
                "exposed_card": r[EXPOSED] if r[EXPOSED] >= 0 else None, "leader": r[LEADER],
                "played": tuple([pairs[c] for c in parts[o : o + n]]),
                "tricks_won": tuple(r[TEAM_TRICKS0 : TEAM_TRICKS0 + 2]),
                "tricks_by_seat": tuple(r[SEAT_TRICKS0 : SEAT_TRICKS0 + 4]), "scores": tuple(r[SCORE0 : SCORE0 + 2]),
                "seat_scores": tuple(r[SEAT_SCORE0 : SEAT_SCORE0 + 4]), "to_act": to_act,
                "legal": parts[o - 2] | parts[o - 1] << BID_BASE, "rules": rules,
                "held": r[HAND0] | r[HAND0 + 1] | r[HAND0 + 2] | r[HAND0 + 3], "voids": tuple(r[VOID0 : VOID0 + 4]),
            }))
            o += n + m
        return out

    def legal_masks(self, games: Sequence[int]) -> np.ndarray:
        """int8 (len(games), 70): the action masks of ``games``' seats to act, from the state (for agents
        deciding on the engine, which are not handed the step's arrays)."""
        if not self._ready:
            raise RuntimeError("BatchEnv.legal_masks called before reset()")
        games = np.ascontiguousarray(games, dtype=np.int64)
        out = np.empty((len(games), NUM_ACTIONS), dtype=np.int8)
        batch_kernels.fill_legal_masks(self._state, self._plays, games, self._rules_vec, out)
        return out

    def kernel_state(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(state, plays, rules_vec)``: the state columns, plays and rule vector of
        :mod:`~tarneeb_env.batch_kernels`, for agents that decide in numba straight from them (``rule``'s card
        play); read only."""
        if not self._ready:
            raise RuntimeError("BatchEnv.kernel_state called before reset()")
        return self._state, self._plays, self._rules_vec

    def privileged(self) -> np.ndarray:
        """float32 (N, 156): the other seats' cards from each acting seat's side, for a training-time
        critic only (:mod:`tarneeb_env.privileged`); no agent at a table may read them."""
        if not self._ready:
            raise RuntimeError("BatchEnv.privileged called before reset()")
        return hidden_hands(self._state[:, HAND0 : HAND0 + 4], self._state[:, CURRENT])
