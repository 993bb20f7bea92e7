"""``casual``: the ``rule`` player with a seeded share of careless cards, a weaker opponent for people.

At each card it plays, with probability ``blunder`` (0.5) it plays a legal card drawn uniformly instead of
``rule``'s; bids and the trump call are ``rule``'s, so its contracts stay sensible and its weakness shows
where a casual player's does, in the play. Both draws come from the one generator the seed sets, so a
seeded table plays the same every time. Its strength against ``rule`` is measured in docs/results.md.
"""
from __future__ import annotations

from typing import Optional

from tarneeb_env.cards import NUM_CARDS

from .base import Agent
from .rule_agent import RuleAgent


class CasualAgent(Agent):
    name = "casual"
    reads_observation = False

    def __init__(self, seed: Optional[int] = None, blunder: float = 0.5):
        if isinstance(blunder, bool) or not isinstance(blunder, (int, float)) or not 0 <= blunder <= 1:
            raise ValueError(f"casual blunder= must be a probability in 0..1, got {blunder!r}")
        self.blunder = float(blunder)
        self.rule = RuleAgent()
        super().__init__(seed)

    def act(self, observation, view) -> int:
        legal = view.legal_actions
        if legal[0] < NUM_CARDS and self.rng.random() < self.blunder:
            return int(legal[self.rng.integers(len(legal))])
        return self.rule.explain(view)[0]
