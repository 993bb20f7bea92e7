"""What a match or a round robin returns, with its JSON form."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Optional

import numpy as np

from tarneeb_env import Rules

from .deals import deal_set_of
from .stats import (
    CI_METHODS,
    GAMES_CI_METHOD,
    P_STRONGER_METHODS,
    RATING_METHOD,
    AgentStats,
    MarginSummary,
    summarize_margins,
    wilson_ci95,
)


@dataclass
class Tally:
    """What some of A and B's deals and games came to: per-deal margins (A's point of view), per-agent counters,
    game counts and, when kept, the hand records. A chunk of tables returns one; a match adds its chunks up."""

    margins: np.ndarray
    stats: tuple[AgentStats, AgentStats]
    games_played: int = 0
    a_won: int = 0
    b_won: int = 0
    records: Optional[list[dict]] = None

    @classmethod
    def sum(cls, parts: Sequence[Tally], **named: Any) -> Tally:
        """``parts`` (at least one) one after the other: margins and records in their order, counts added;
        ``named`` are a subclass's own fields (a :class:`MatchResult`'s agents, rules, seed and ci)."""
        stats = (AgentStats(), AgentStats())
        for part in parts:
            stats[0].add(part.stats[0])
            stats[1].add(part.stats[1])
        records = None if parts[0].records is None else [rec for part in parts for rec in part.records]
        return cls(np.concatenate([part.margins for part in parts]), stats,
                   sum(part.games_played for part in parts), sum(part.a_won for part in parts),
                   sum(part.b_won for part in parts), records, **named)


@dataclass(kw_only=True)
class MatchResult(Tally):
    """Result of A vs B: a :class:`Tally` of the whole match, named; ``ci`` is the margin interval's method
    (``normal`` or ``bootstrap``, see :mod:`evaluation.stats`)."""

    agents: tuple[str, str]
    rules: Rules
    seed: int
    ci: str = "normal"

    @property
    def deals(self) -> int:
        return len(self.margins)

    @property
    def margin(self) -> float:
        return float(np.mean(self.margins))

    @property
    def deal_set(self) -> Optional[str]:
        """The named deal set the seed belongs to (``selection``, ``heldout``) or None."""
        return deal_set_of(self.seed)

    @cached_property
    def summary(self) -> MarginSummary:
        return summarize_margins(self.margins, self.ci, self.seed)

    @property
    def ci95(self) -> Optional[list[float]]:
        return self.summary.ci95

    @property
    def p_a_stronger(self) -> Optional[float]:
        """The probability that A's expected margin is positive (method: ``P_STRONGER_METHODS[ci]``)."""
        return self.summary.p_positive

    @property
    def games_ci95(self) -> Optional[list[float]]:
        return wilson_ci95(self.a_won, self.games_played)

    def to_dict(self) -> dict[str, Any]:
        a, b = self.agents
        return {
            "agents": [a, b],
            "rules": self.rules.to_dict(),
            "rules_name": self.rules.name,
            "seed": self.seed,
            "deal_set": self.deal_set,
            "deals": self.deals,
            "margin": {
                "mean": self.margin,
                "ci95": self.ci95,
                "sd": float(np.std(self.margins, ddof=1)) if self.deals > 1 else None,
                "deals": self.deals,
                "method": CI_METHODS[self.ci],
                "p_first_stronger": self.p_a_stronger,
                "p_method": P_STRONGER_METHODS[self.ci],
            },
            "games": {
                "played": self.games_played,
                "a_won": self.a_won,
                "b_won": self.b_won,
                "draws": self.games_played - self.a_won - self.b_won,
                "win_rate": self.a_won / self.games_played if self.games_played else None,
                "ci95": self.games_ci95,
                "method": GAMES_CI_METHOD,
            },
            "stats": {a: self.stats[0].to_dict(), b: self.stats[1].to_dict()},
        }


@dataclass
class RoundRobinResult:
    """Every pair on the same deals, plus a rating per agent fitted to the pairwise margins. ``complete`` is False
    after an interruption: then each pair holds the deals it finished (pairs that played none are left out)."""

    agents: list[str]
    pairs: list[MatchResult]
    ratings: dict[str, float] = field(default_factory=dict)
    complete: bool = True
    fault: Optional[str] = None  # the line of the external engine whose fault ended the run early

    def agent_stats(self) -> dict[str, AgentStats]:
        """Counters summed over all of each agent's pairs."""
        total = {name: AgentStats() for name in self.agents}
        for m in self.pairs:
            for name, s in zip(m.agents, m.stats):
                total[name].add(s)
        return total

    def to_dict(self) -> dict[str, Any]:
        first = self.pairs[0]
        return {
            "agents": list(self.agents),
            "rules": first.rules.to_dict(),
            "rules_name": first.rules.name,
            "seed": first.seed,
            "deal_set": first.deal_set,
            "deals": first.deals,
            "complete": self.complete,
            "pairs": [m.to_dict() for m in self.pairs],
            "ratings": dict(self.ratings),
            "rating_method": RATING_METHOD,
            "stats": {name: s.to_dict() for name, s in self.agent_stats().items()},
        }
