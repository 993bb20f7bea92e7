"""# Tarneeb (``tarneeb_v0``)

A PettingZoo AEC environment for Tarneeb, the Levantine partnership
trick-taking game. The engine is :mod:`tarneeb_env.game` (its rules are the
functions of :mod:`tarneeb_env.rules_core`); this module is the thin adapter.

| | |
|---|---|
| Agents | ``player_0`` .. ``player_3`` (= seats, in turn order; teams 0&2, 1&3) |
| Actions | ``Discrete(70)`` |
| Observation | ``{"observation": float32[694], "action_mask": int8[70]}`` |
| Import | ``from tarneeb_env import env, raw_env`` or ``pettingzoo.make("aec", "tarneeb_v0")`` |

## Arguments
``env(rules="classic", episode="hand", reward="score_diff", max_hands=200, render_mode=None)``

- ``rules``: a preset name (``classic``, ``syrian41``, ``hearts41``, ``trump_by_card``),
  a :class:`~tarneeb_env.rules.Rules`, a dict of fields, or a ``.yaml`` file.
- ``episode``: ``"hand"`` (one played hand; thrown-in deals are redealt inside
  the episode) or ``"game"`` (until a team wins).
- ``reward``: ``"score_diff"`` (at the end of each hand every agent receives its
  team's score change minus the other team's) or ``"win"`` (+1/-1 when the game ends).
- ``max_hands``: the episode is truncated after this many deals (thrown-in deals
  count, so a table that always passes still ends).

## Actions
``0-51`` play card ``c = suit*13 + rank`` (clubs, diamonds, hearts, spades;
rank 0 = two .. 12 = ace); ``52`` pass; ``52+b`` bid ``b`` tricks (53-65;
``classic`` allows 7-13, individual bidding 2-13); ``66+s`` name suit ``s`` trump.

## Observation
From the observer's side (seats relative to the observer); the layout is in
:mod:`tarneeb_env.observation`. It holds only what the seat may know. The mask
of an agent not on turn is all zeros. ``env.unwrapped.view(agent)`` returns a
:class:`~tarneeb_env.view.PlayerView` with the same knowledge as Python values.

## Rewards and infos
See ``reward``. At the end of every deal (played or thrown in) every agent's
``infos[agent]["hand_record"]`` holds a JSON-serialisable record of it (the dict of
:meth:`tarneeb_env.record.HandRecord.to_dict`; ``HandRecord.from_dict`` reads it
back, with ``declaring_team``, ``made`` and ``describe()``); it stays until that
agent's next action.

## Illegal actions
``raw_env`` raises :class:`IllegalActionError` (a ``ValueError``) naming the agent,
the action and the legal actions, and leaves the state unchanged so the caller
can retry. ``env()`` keeps PettingZoo's convention: ``TerminateIllegalWrapper``
ends the episode and gives the offender -1.

## Fixed deals
``reset(seed, options={"deal": [[13 cards] x 4], "dealer": d, "scores": [a, b],
"seat_scores": [w, x, y, z], "exposed_card": c})``: every key is optional (``seat_scores``,
for individual bidding, also sets the team scores unless ``scores`` is given); unknown keys are ignored with a warning
(PettingZoo's ``api_test`` passes one). Without ``dealer`` the dealer is
drawn from the env's generator. Redeals after a throw-in come from the env's
generator, so two tables reset with the same seed and deal see the same redeals.

## Version history
- v0: first release.
"""
from __future__ import annotations

import operator
from typing import Any, Optional, Sequence

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from . import rules_core
from .cards import NUM_ACTIONS
from .game import IllegalActionError, TarneebGame
from .observation import OBS_SIZE, OFFSETS, ObservationWriter
from .options import check_env_args, reset_options
from .render import render_text
from .rules import RulesSpec, make_rules
from .view import PlayerView, make_view

AGENTS = tuple(f"player_{i}" for i in range(4))
_AGENT_INDEX = {a: i for i, a in enumerate(AGENTS)}
_NO_MASK = np.zeros(NUM_ACTIONS, dtype=np.int8)


def _observation_space() -> spaces.Dict:
    low = np.zeros(OBS_SIZE, dtype=np.float32)
    high = np.ones(OBS_SIZE, dtype=np.float32)
    for block in ("scores", "seat_scores"):
        o = OFFSETS[block]
        n = 2 if block == "scores" else 4
        low[o : o + n], high[o : o + n] = -np.inf, np.inf
    high[OFFSETS["target"]] = np.inf
    return spaces.Dict(
        {
            "observation": spaces.Box(low, high, dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), dtype=np.int8),
        }
    )


def legal_mask(legal: int) -> np.ndarray:
    """int8[70] mask of a 70-bit legal-action int."""
    raw = np.frombuffer(legal.to_bytes(9, "little"), dtype=np.uint8)
    return np.unpackbits(raw, count=NUM_ACTIONS, bitorder="little").view(np.int8)


def unpack_legal_masks(legals: Sequence[int]) -> np.ndarray:
    """int8 (n, 70) masks of n 70-bit legal-action ints in one numpy call (row i = ``legal_mask(legals[i])``)."""
    raw = np.frombuffer(b"".join(x.to_bytes(9, "little") for x in legals), dtype=np.uint8).reshape(len(legals), 9)
    return np.unpackbits(raw, axis=1, count=NUM_ACTIONS, bitorder="little").view(np.int8)


# Attributes every AEC loop reads several times per decision. PettingZoo's wrappers
# find them by a failed normal look-up and then each wrapper's __getattr__ in turn
# (about 30 calls per decision with three wrappers); these properties fetch them
# from the raw env in one hop. Behaviour is unchanged, including
# OrderEnforcingWrapper's "cannot be accessed before reset".
_HOT = ("agent_selection", "agents", "rewards", "terminations", "truncations", "infos", "_cumulative_rewards")


def _checked_hop(name: str) -> property:
    def get(self):
        if not self.__dict__.get("_has_reset", True):
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self._raw, name)

    return property(get)


def _fast(wrapper: type, checked: bool = False) -> type:
    """``wrapper`` with the ``_HOT`` attributes read from ``self._raw`` (a C-level attrgetter
    where no before-reset check is needed)."""
    ns = {name: _checked_hop(name) if checked else property(operator.attrgetter("_raw." + name)) for name in _HOT}
    ns.update(__module__=__name__, __qualname__="_Fast" + wrapper.__name__, __doc__=wrapper.__doc__)
    return type("_Fast" + wrapper.__name__, (wrapper,), ns)


_FastTerminateIllegalWrapper = _fast(wrappers.TerminateIllegalWrapper)
_FastAssertOutOfBoundsWrapper = _fast(wrappers.AssertOutOfBoundsWrapper)
_FastOrderEnforcingWrapper = _fast(wrappers.OrderEnforcingWrapper, checked=True)


class _ActionSpace(spaces.Discrete):
    """``Discrete(70)`` with a fast path for plain ints in ``contains`` (called on every wrapped step)."""

    def contains(self, x) -> bool:
        if type(x) is int:
            return 0 <= x < self.n
        return super().contains(x)


def env(**kwargs) -> AECEnv:
    """The environment with PettingZoo's standard wrappers, as the classic envs ship.

    ``TerminateIllegalWrapper`` (illegal move: episode ends, -1 to the offender),
    ``AssertOutOfBoundsWrapper`` and ``OrderEnforcingWrapper``, unchanged in
    behaviour; only their attribute look-ups are short-cut (see ``_HOT``).
    """
    raw = raw_env(**kwargs)
    e = _FastTerminateIllegalWrapper(raw, illegal_reward=-1)
    e._raw = raw
    e = _FastAssertOutOfBoundsWrapper(e)
    e._raw = raw
    e = _FastOrderEnforcingWrapper(e)
    e._raw = raw
    return e


class raw_env(AECEnv):
    metadata = {"render_modes": ["human", "ansi"], "name": "tarneeb_v0", "is_parallelizable": False, "render_fps": 1}

    def __init__(
        self,
        rules: RulesSpec = "classic",
        episode: str = "hand",
        reward: str = "score_diff",
        max_hands: int = 200,
        render_mode: Optional[str] = None,
    ):
        super().__init__()
        check_env_args(episode, reward, max_hands)
        if render_mode not in (None, "human", "ansi"):
            raise ValueError(f"render_mode: {render_mode!r} is not one of [None, 'human', 'ansi']")
        self.rules = make_rules(rules)
        self.episode = episode
        self.reward_mode = reward
        self.max_hands = max_hands
        self._rules_vec = rules_core.env_vector(self.rules, episode, reward, max_hands)
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        obs_space = _observation_space()
        self.observation_spaces = {a: obs_space for a in AGENTS}
        self.action_spaces = {a: _ActionSpace(NUM_ACTIONS) for a in AGENTS}
        self._writer = ObservationWriter()
        self._rng = np.random.default_rng()
        self.game = TarneebGame(self.rules, self._rng, self._writer)

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ reset
    def reset(self, seed: Optional[int] = None, options: Optional[dict[str, Any]] = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            self.game.rng = self._rng
        opts = reset_options(options, self._rng)
        self.game.new_game(opts.dealer, opts.scores, opts.seat_scores)
        self.game.start_deal(opts.deal, opts.exposed_card)
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(AGENTS, 0)
        self._rewards_given = False
        self._cumulative_rewards = dict.fromkeys(AGENTS, 0)
        self.terminations = dict.fromkeys(AGENTS, False)
        self.truncations = dict.fromkeys(AGENTS, False)
        self.infos = {a: {} for a in AGENTS}
        self.agent_selection = AGENTS[self.game.current]

    # ------------------------------------------------------------------- step
    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        try:
            action = operator.index(action)  # ints and numpy ints; not "7" or 7.0
        except TypeError:
            raise IllegalActionError(f"{agent}: action must be an int, got {type(action).__name__} {action!r}; "
                                     f"legal actions: {self.game.legal_actions()}") from None
        game = self.game
        result = game.apply(action)  # raises IllegalActionError, state untouched
        self._cumulative_rewards[agent] = 0
        if self.infos[agent]:  # a hand record stays until its agent's next action
            self.infos[agent] = {}
        if self._rewards_given:  # rewards are per step: clear the last hand's
            self.rewards = dict.fromkeys(AGENTS, 0)
            self._rewards_given = False
        if result is None:
            self.agent_selection = AGENTS[game.current]
            return
        rewards = self.rewards
        self._rewards_given = True
        record = result.record.to_dict()
        for a in AGENTS:
            self.infos[a] = {"hand_record": record}
        rules_vec = self._rules_vec
        winner = -1 if result.winner is None else result.winner
        r = rules_core.team0_reward(rules_vec, result.game_over, winner, *result.score_delta)
        for i, a in enumerate(AGENTS):
            rewards[a] = -r if i & 1 else r
        self._accumulate_rewards()
        outcome = rules_core.deal_outcome(rules_vec, result.game_over, result.thrown_in, game.deals)
        if outcome == rules_core.TERMINATED:
            self.terminations = dict.fromkeys(AGENTS, True)
        elif outcome == rules_core.TRUNCATED:
            self.truncations = dict.fromkeys(AGENTS, True)
        else:
            game.next_deal()
            self.agent_selection = AGENTS[game.current]
            if self.render_mode == "human":
                self.render()
            return
        self.agent_selection = AGENTS[(_AGENT_INDEX[agent] + 1) % 4]
        if self.render_mode == "human":
            self.render()

    # ---------------------------------------------------------- observations
    def observe(self, agent) -> dict[str, np.ndarray]:
        seat = _AGENT_INDEX[agent]
        mask = legal_mask(self.game.legal) if seat == self.game.current else _NO_MASK.copy()
        return {"observation": self._writer.buf[seat].copy(), "action_mask": mask}

    def view(self, agent) -> PlayerView:
        """What ``agent`` (a name or a seat) may know, as a frozen :class:`PlayerView`."""
        seat = agent if isinstance(agent, (int, np.integer)) else _AGENT_INDEX[agent]
        return make_view(self.game, int(seat))

    def render(self) -> Optional[str]:
        if self.render_mode is None:
            return None
        text = render_text(self.game)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


__all__ = ["env", "raw_env", "IllegalActionError", "legal_mask"]
