"""``random``: uniform over the legal actions."""
from __future__ import annotations

import numpy as np

from .base import Agent


class RandomAgent(Agent):
    name = "random"
    reads_observation = False

    def act(self, observation, view) -> int:
        legal = view.legal_actions
        return int(legal[self.rng.integers(len(legal))])

    def act_batch(self, observations, views) -> list[int]:
        """The draws of :meth:`act` one observation after another (same generator calls, same actions), from
        the masks alone: no view is built."""
        return self._pick(np.stack([o["action_mask"] for o in observations]))

    def act_batch_env(self, env, games) -> list[int]:
        """As :meth:`act_batch`, for the seats to act in ``games`` of a :class:`~tarneeb_env.batch.BatchEnv`,
        its masks read from the engine (no observation dicts)."""
        return self._pick(env.legal_masks(games))

    def _pick(self, masks: np.ndarray) -> list[int]:
        counts = np.cumsum(masks.astype(bool), axis=1)
        picks = self.rng.integers(0, counts[:, -1])  # rng.integers(n) per row, in row order
        return np.argmax(counts > picks[:, None], axis=1).tolist()
