"""Every seed of a run, derived from ``env.seed`` and an index, with the salts named here.

A run has one seed; each piece of work draws its own from it, so a piece depends
only on (seed, its index) and a resumed or distributed run replays exactly:

- PPO iteration ``k`` collects with :func:`iteration_seed` ``(seed, k)``, warm-start
  chunk ``k`` with :func:`chunk_seed` ``(seed, k)``;
- that data seed, xor-ed with :data:`UPDATE`, seeds the minibatch shuffles of its update;
- a rollout splits its data seed into :class:`RolloutSeeds` (salt :data:`ROLLOUT`),
  the teacher's collection likewise (salt :data:`TEACHER`), Ray worker ``w > 0`` uses
  :func:`worker_seed` (salt :data:`RAY_WORKER`).

The salts keep streams apart that would otherwise start from the same numbers;
their values are arbitrary but fixed (changing one changes every run).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
import torch

PRETRAIN_CHUNK = 0xB0C
UPDATE = 0x0BADC0DE
ROLLOUT = 0x5E1F
TEACHER = 0x7EAC
RAY_WORKER = 0x2A7


def _draw(entropy, n: int = 1) -> np.ndarray:
    return np.random.SeedSequence(entropy).generate_state(n)


def iteration_seed(seed: int, iteration: int) -> int:
    """The data seed of PPO iteration ``iteration``."""
    return int(_draw([seed, iteration])[0])


def chunk_seed(seed: int, chunk: int) -> int:
    """The data seed of warm-start chunk ``chunk``."""
    return int(_draw([seed, PRETRAIN_CHUNK, chunk])[0])


def update_generator(data_seed: int) -> torch.Generator:
    """The generator of the minibatch shuffles of the update on the data seeded ``data_seed``."""
    return torch.Generator().manual_seed(data_seed ^ UPDATE)


def worker_seed(seed: int, worker: int) -> int:
    """The collection seed of Ray worker ``worker`` in an iteration seeded ``seed`` (worker 0: ``seed``)."""
    if worker == 0:
        return int(seed)
    return int(_draw([int(seed), worker, RAY_WORKER])[0])


def per_agent(seed: int, n: int) -> list[int]:
    """Seeds of the ``n`` agents seated in a rollout (agent ``k``'s from (seed, k))."""
    return [int(_draw([seed, k])[0]) for k in range(n)]


class RolloutSeeds(NamedTuple):
    """The streams of one rollout: team assignment, the networks' sampling, the agents, the deals."""

    teams: np.random.Generator
    sampling: torch.Generator
    agents: int
    deals: int


def rollout_seeds(seed: int) -> RolloutSeeds:
    s = _draw([seed, ROLLOUT], 4)
    return RolloutSeeds(np.random.default_rng(s[0]), torch.Generator().manual_seed(int(s[1])), int(s[2]), int(s[3]))


def teacher_seeds(seed: int, num_agents: int) -> tuple[list[int], int]:
    """Seeds of the teacher agents (one per game) and of the deals of a warm-start chunk."""
    s = _draw([seed, TEACHER], 2)
    return [int(x) for x in _draw(int(s[0]), num_agents)], int(s[1])
