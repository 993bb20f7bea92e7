"""``vector_env``: the batch engine as a gymnasium ``VectorEnv``, one learner against built-in or loaded agents.

Each :meth:`TarneebVectorEnv.step` is one decision of the learner in each of ``num_envs`` games: the learner's
actions are applied, then the other seats (any agent spec, ``rule`` by default) play inside the engine until the
learner is to act again in every game. The other seats are a :class:`BatchPolicy` the env is given (this package
knows no agents); :func:`agents.vector.vector_env` makes one from an agent spec, ``rule`` by default, and is what
``gymnasium.make_vec(VECTOR_ENV_ID)`` and ``tarneeb_env.vector_env`` build. Observations are the 694 floats of
``tarneeb_v0`` from the acting learner seat's side, and rewards what ``tarneeb_v0`` gives that seat, summed since
the learner's previous decision; a differential test (tests/test_vector_env.py) replays the same deals and moves
through ``raw_env``.

Autoreset: ``AutoresetMode.SAME_STEP``. The engine starts a game's next episode inside the step that ended the
previous one, so the observation returned for a done game is already the first learner decision of its next
episode, and the ended episode's last observation (from the side of seat ``team`` of the learner's team, or of its
seat) is in ``infos["final_obs"]`` (an object array, None for games that did not end, flagged by
``infos["_final_obs"]``), as ``SyncVectorEnv(autoreset_mode=SAME_STEP)`` and
Stable-Baselines3's ``VecEnv`` do. Chosen over ``NEXT_STEP`` because every step is then a real decision with a
non-empty action mask: a masked policy never has to act on a terminal observation, which has no legal action, and
no step of the batch is spent on a reset that ignores the action.

The learner is one team (``seats="team"``: both partners, its seats' decisions in turn order) or one seat
(``"seat"``: the other three seats, partner included, are ``opponents``), drawn per episode from the env's
seeded generator so it plays every position; ``"team0"``, ``"team1"``, ``"seat0"``..``"seat3"`` fix it. The
acting seat is ``infos["seat"]``.
"""
from __future__ import annotations

from typing import Any, Optional, Protocol

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from .batch import BatchEnv, game_seeds
from .batch_kernels import ALL_SEATS
from .cards import NUM_ACTIONS
from .game import IllegalActionError
from .rules import RulesSpec
from .tarneeb import _observation_space

SEATS = ("team", "seat", "team0", "team1", "seat0", "seat1", "seat2", "seat3")
TEAM_BITS = 0b0101  # seats 0 and 2; shifted left by the team
NUM_STREAMS = 3  # the seed's children: the engine's deals, the opponents, the learner's seats


class BatchPolicy(Protocol):
    """The seats that are not the learner's, in every game: what :class:`TarneebVectorEnv` asks for their moves."""

    reads_observation: bool  # whether act reads ``obs`` (else the engine skips encoding it for their seats)

    def seed(self, seed: int) -> None:
        """Seed their random choices (the env's ``reset(seed=...)`` passes one of the seed's streams)."""

    def act(self, engine: BatchEnv, games: np.ndarray, seats: np.ndarray, obs: np.ndarray,
            mask: np.ndarray) -> np.ndarray:
        """int64 actions of ``seats[j]`` in game ``games[j]``; ``obs``/``mask`` are the env's arrays over all the
        games (rows of other games are stale), ``engine`` the batch engine for policies that read its state."""


class TarneebVectorEnv(VectorEnv):
    """One learner's decisions in ``num_envs`` Tarneeb games against ``opponents`` (see the module docstring);
    :func:`agents.vector.vector_env` builds it from an agent spec. ``action_masks()`` returns the legal actions as
    sb3-contrib's MaskablePPO reads them."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, num_envs: int, opponents: BatchPolicy, rules: RulesSpec = "classic", seats: str = "team",
                 reward: str = "score_diff", episode: str = "hand", max_hands: int = 200, seed: Optional[int] = None):
        if not isinstance(num_envs, (int, np.integer)) or isinstance(num_envs, bool) or num_envs < 1:
            raise ValueError(f"num_envs: must be a positive int, got {num_envs!r}")
        if seats not in SEATS:
            raise ValueError(f"seats: {seats!r} is not one of {list(SEATS)}")
        self.engine = BatchEnv(num_envs, rules=rules, episode=episode, reward=reward, max_hands=max_hands)
        self.num_envs = n = self.engine.num_games
        self.rules = self.engine.rules
        self.seats = seats
        self.opponents = opponents
        self._seed = seed
        self.render_mode = None
        self.single_observation_space = _observation_space()["observation"]
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, n)
        self.action_space = batch_space(self.single_action_space, n)
        self._learner_seat = np.zeros(n, dtype=np.int64)  # the team (0/1) or the seat: whose reward is the learner's
        self._learner_bits = np.zeros(n, dtype=np.int64)  # bit s: seat s is the learner's
        self._obs = self._mask = self._seat = None
        self._seat_rng = np.random.default_rng(seed)

    # ------------------------------------------------------------------ reset
    def reset(self, *, seed: Optional[int] = None, options: Optional[dict[str, Any]] = None):
        """Start a new episode in every game. ``seed`` re-seeds the deals (game ``i`` deals as ``tarneeb_v0``
        reset with ``env.engine.game_seeds[i]``), the opponents and the learner's seats; without it they
        continue (the constructor's seed on the first reset). ``options={"games": [...]}``: per-game
        ``tarneeb_v0`` reset options (fixed deals, scores), a list of ``num_envs`` dicts or None."""
        options = dict(options or {})
        games = options.pop("games", None)
        if options:
            raise ValueError(f"options: unknown key(s) {sorted(options)}; known: ['games']")
        if seed is None and self._obs is None:
            seed = self._seed
        deal_seed = None
        if seed is not None:
            deal_seed, agent_seed, seat_seed = game_seeds(seed, NUM_STREAMS)
            self._seat_rng = np.random.default_rng(seat_seed)
            self.opponents.seed(agent_seed)
        self._obs, self._mask, self._seat = self.engine.reset(seed=deal_seed, options=games)
        self._draw_learner(np.arange(self.num_envs))
        rewards = np.zeros(self.num_envs, dtype=np.float32)
        done = np.zeros(self.num_envs, dtype=bool)
        infos: dict[str, Any] = {}
        self._play_others(rewards, done, done.copy(), infos)
        if done.any():
            raise RuntimeError("an episode ended before the learner's first decision")
        return self._obs, self._infos(infos)

    def _draw_learner(self, games: np.ndarray) -> None:
        """The learner's team or seat in a new episode of ``games``."""
        fixed = self.seats[-1].isdigit()
        kind = self.seats[:4]
        choice = np.full(len(games), int(self.seats[-1])) if fixed else self._seat_rng.integers(
            2 if kind == "team" else 4, size=len(games))
        self._learner_seat[games] = choice
        self._learner_bits[games] = (TEAM_BITS << choice) if kind == "team" else (1 << choice)

    # ------------------------------------------------------------------- step
    def step(self, actions):
        """The learner's action in every game, then the other seats until the learner is to act again;
        returns ``(obs, rewards, terminated, truncated, infos)`` (see the module docstring)."""
        if self._obs is None:
            raise RuntimeError("step() called before reset()")
        acts = np.asarray(actions)
        if acts.shape != (self.num_envs,) or not np.issubdtype(acts.dtype, np.integer):
            raise ValueError(f"actions: expected {self.num_envs} ints (one per game), got shape {acts.shape} "
                             f"and dtype {acts.dtype}")
        rewards = np.zeros(self.num_envs, dtype=np.float32)
        terminated = np.zeros(self.num_envs, dtype=bool)
        truncated = np.zeros(self.num_envs, dtype=bool)
        infos: dict[str, Any] = {}
        # a new observation array each step (the caller may keep the last one) instead of a copy: every game's
        # row is written in this step, when the learner is next to act
        previous, self._obs = self._obs, np.empty_like(self._obs)
        try:
            self._move(np.arange(self.num_envs), acts, rewards, terminated, truncated, infos)
        except IllegalActionError:  # nothing was applied
            self._obs = previous
            raise
        self._play_others(rewards, terminated, truncated, infos)
        return self._obs, rewards, terminated, truncated, self._infos(infos)

    def _play_others(self, rewards, terminated, truncated, infos) -> None:
        """The other seats act (one ``act_batch`` per step of their games) until the learner is to act in every
        game."""
        while True:
            waiting = np.flatnonzero(((self._learner_bits >> self._seat) & 1) == 0)
            if not waiting.size:
                return
            acts = self.opponents.act(self.engine, waiting, self._seat[waiting], self._obs, self._mask)
            self._move(waiting, np.asarray(acts, dtype=np.int64), rewards, terminated, truncated, infos)

    def _move(self, games, acts, rewards, terminated, truncated, infos) -> None:
        """One move in each of ``games``; the learner's reward, episode ends and hand records collected."""
        obs_seats = np.full(self.num_envs, ALL_SEATS) if self.opponents.reads_observation else self._learner_bits
        r, done, final_obs, records = self.engine.step_some(
            games, acts, self._obs, self._mask, self._seat, obs_seats, final_seats=self._learner_seat)
        rewards += r[np.arange(self.num_envs), self._learner_seat]
        if records:
            if "hand_record" not in infos:
                infos["hand_record"] = np.full(self.num_envs, None, dtype=object)
                infos["_hand_record"] = np.zeros(self.num_envs, dtype=bool)
            for i, record in records:
                infos["hand_record"][i] = record.to_dict()
                infos["_hand_record"][i] = True
        if not done.any():
            return
        ends = np.flatnonzero(done)
        if (terminated[ends] | truncated[ends]).any():
            raise RuntimeError("an episode ended twice in one step without a learner decision")
        truncated[ends] = self.engine.truncated[ends]
        terminated[ends] = ~truncated[ends]
        if "final_obs" not in infos:
            infos["final_obs"] = np.full(self.num_envs, None, dtype=object)
        final = infos["final_obs"]
        for k, i in enumerate(ends.tolist()):
            final[i] = final_obs[k]
        infos["_final_obs"] = terminated | truncated
        self._draw_learner(ends)

    def _infos(self, infos: dict[str, Any]) -> dict[str, Any]:
        infos["action_mask"] = self._mask.copy()
        infos["seat"] = self._seat.copy()
        return infos

    # ---------------------------------------------------------------- masking
    def action_masks(self) -> np.ndarray:
        """bool (num_envs, 70): the legal actions of the learner's current decisions (MaskablePPO's method)."""
        if self._mask is None:
            raise RuntimeError("action_masks() called before reset()")
        return self._mask.astype(bool)

    def close_extras(self, **kwargs) -> None:
        """Nothing to release: the games run in this process."""
