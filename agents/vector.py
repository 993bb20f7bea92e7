"""The vector env against agents: :func:`vector_env` seats an agent spec (``rule`` by default) at every seat that
is not the learner's of :class:`tarneeb_env.vector.TarneebVectorEnv`, which knows only a batch policy.

``gymnasium.make_vec(tarneeb_env.VECTOR_ENV_ID)`` and ``tarneeb_env.vector_env`` build through it (it is the
registration's entry point), so the env package imports no agents: ``rule`` opponents load numba, not torch.
"""
from __future__ import annotations

from typing import Optional, Union

import numpy as np

from tarneeb_env import make_rules
from tarneeb_env.batch import BatchEnv
from tarneeb_env.rules import RulesSpec
from tarneeb_env.vector import TarneebVectorEnv

from . import load
from .base import Agent
from .seating import BatchTables, Seating


class SeatedOpponents:
    """One agent at every seat that is not the learner's (a :class:`tarneeb_env.vector.BatchPolicy`), asked
    through :class:`~agents.seating.Seating` as at every other table: one ``act_batch`` per step, or the
    agent's ``act_batch_env`` on the engine's arrays (``rule``'s card play)."""

    def __init__(self, agent: Agent):
        self.agent = agent
        # every seat of every table is this one agent, so Seating asks it without grouping by table
        self._seating = Seating([agent], np.zeros((1, 4), dtype=np.int64))
        self.reads_observation = self._seating.reads_observation

    def seed(self, seed: int) -> None:
        self._seating.start([seed])

    def act(self, engine: BatchEnv, games: np.ndarray, seats: np.ndarray, obs: np.ndarray,
            mask: np.ndarray) -> list:
        return self._seating.act(games.tolist(), seats.tolist(), BatchTables(engine, obs, mask))


def vector_env(
    num_envs: int = 1,
    rules: RulesSpec = "classic",
    opponents: Union[str, Agent] = "rule",
    seats: str = "team",
    reward: str = "score_diff",
    episode: str = "hand",
    max_hands: int = 200,
    seed: Optional[int] = None,
) -> TarneebVectorEnv:
    """``num_envs`` Tarneeb games as a gymnasium ``VectorEnv`` for one learner (see :mod:`tarneeb_env.vector`).

    ``opponents``: an agent spec (``agents.load``: ``rule``, ``random``, ``expert``, ``ppo``, a ``.pt``
    checkpoint, ``file.py:Name``) or an agent object, playing every seat that is not the learner's; ``rule``
    plays its cards compiled on the engine's arrays. ``reward``, ``episode``, ``max_hands`` and ``rules`` are
    ``tarneeb_v0``'s. ``seed``: the first ``reset()``'s seed when that gives none.
    """
    agent = load(opponents, rules=make_rules(rules)) if isinstance(opponents, str) else opponents
    return TarneebVectorEnv(num_envs, SeatedOpponents(agent), rules, seats, reward, episode, max_hands, seed)
