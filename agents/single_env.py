"""``gymnasium.make("tarneeb_env:tarneeb/Tarneeb-v0")``: one game for one learner as a gymnasium ``Env``.

It is :func:`agents.vector.vector_env` with one game, stepped one decision at a time: the same observations (694
floats from the acting learner seat's side), rewards, seats (``seats="team"`` by default) and opponents (``rule``
by default; any agent spec), and ``info["action_mask"]`` with the legal actions (``action_masks()`` as well, for
sb3-contrib's ``MaskablePPO``). A step that ends an episode returns that episode's last observation; the vector
env has already dealt the next one, and ``reset()`` without a seed hands it over, so the episodes of a seeded
``Env`` are the episodes of ``vector_env(1)`` with that seed. For training, ``gymnasium.make_vec`` (the batch
engine, thousands of games a step) is far faster than one game at a time.
"""
from __future__ import annotations

from typing import Any, Optional

import gymnasium
import numpy as np

from tarneeb_env.rules import RulesSpec

from .vector import vector_env


class TarneebEnv(gymnasium.Env):
    """One Tarneeb game for one learner (see the module docstring)."""

    metadata = {"render_modes": []}

    def __init__(self, rules: RulesSpec = "classic", opponents: Any = "rule", seats: str = "team",
                 reward: str = "score_diff", episode: str = "hand", max_hands: int = 200,
                 seed: Optional[int] = None):
        self._vec = vector_env(1, rules=rules, opponents=opponents, seats=seats, reward=reward, episode=episode,
                               max_hands=max_hands, seed=seed)
        self.rules = self._vec.rules
        self.observation_space = self._vec.single_observation_space
        self.action_space = self._vec.single_action_space
        self._next: Optional[tuple[np.ndarray, dict[str, Any]]] = None  # the episode the vector env dealt already

    @staticmethod
    def _one(infos: dict[str, Any]) -> dict[str, Any]:
        return {k: v[0] for k, v in infos.items() if not k.startswith("_") and (not hasattr(v, "__len__") or len(v))}

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict[str, Any]] = None):
        """A new episode: the one already dealt after the last ended (no ``seed`` or ``options``), else a fresh
        reset of the game (``options``: ``tarneeb_v0``'s reset options for it, e.g. a fixed deal)."""
        super().reset(seed=seed)
        if self._next is not None and seed is None and options is None:
            obs, info = self._next
        else:
            obs, infos = self._vec.reset(seed=seed, options=None if options is None else {"games": [options]})
            obs, info = obs[0], self._one(infos)
        self._next = None
        return obs, info

    def step(self, action):
        obs, rewards, terminated, truncated, infos = self._vec.step(np.array([int(action)], dtype=np.int64))
        info = self._one(infos)
        ended = bool(terminated[0] or truncated[0])
        if ended:  # the next episode's first decision waits for reset(); this step shows the ended one's last
            self._next = (obs[0], {k: v for k, v in info.items() if k in ("action_mask", "seat")})
            out = info.pop("final_obs")
            info["action_mask"] = np.zeros_like(info["action_mask"])  # nothing is legal after the end
        else:
            out = obs[0]
            info.pop("final_obs", None)
        return out, float(rewards[0]), bool(terminated[0]), bool(truncated[0]), info

    def action_masks(self) -> np.ndarray:
        """bool (70,): the legal actions of the learner's current decision (none after an episode's end)."""
        mask = self._vec.action_masks()[0]
        return np.zeros_like(mask) if self._next is not None else mask

    def close(self) -> None:
        self._vec.close()
