"""``random``: uniform over the legal actions."""
from __future__ import annotations

from .base import Agent


class RandomAgent(Agent):
    name = "random"

    def act(self, observation, view) -> int:
        legal = view.legal_actions
        return int(legal[self.rng.integers(len(legal))])
