"""``random``: uniform over the legal actions."""
from __future__ import annotations

from .base import Agent


class RandomAgent(Agent):
    name = "random"
    reads_observation = False

    def act(self, observation, view) -> int:
        legal = view.legal_actions
        return int(legal[self.rng.integers(len(legal))])
