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
        the masks alone: at a batch engine's tables no view is built."""
        masks = np.stack([o["action_mask"] for o in observations]).astype(bool)
        counts = np.cumsum(masks, axis=1)
        picks = self.rng.integers(0, counts[:, -1])  # rng.integers(n) per row, in row order
        return np.argmax(counts > picks[:, None], axis=1).tolist()
