"""Per-agent counters over played hands, 95% intervals, and least-squares ratings."""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any, Optional

import numpy as np

RATING_METHOD = "least squares: rating[X] - rating[Y] ~ mean margin of X vs Y (points per deal), ratings sum to 0"
MARGIN_CI_METHOD = "normal approximation over per-deal margins: mean +- 1.96 * sd / sqrt(n)"
GAMES_CI_METHOD = "Wilson score interval, 95%"
_Z95 = 1.959963984540054


@dataclass
class AgentStats:
    """Counters over the played hands at an agent's tables (duplicate deals only)."""

    hands: int = 0
    points: int = 0
    contracts: int = 0
    bid_sum: int = 0
    made: int = 0
    sets_inflicted: int = 0
    kaboots: int = 0
    declarer_hands: int = 0
    declarer_tricks: int = 0
    defender_hands: int = 0
    defender_tricks: int = 0
    thrown_in: int = 0

    def add(self, other: "AgentStats") -> None:
        for f in fields(self):
            setattr(self, f.name, getattr(self, f.name) + getattr(other, f.name))

    def to_dict(self) -> dict[str, Any]:
        def ratio(a: int, b: int, scale: float = 1.0) -> Optional[float]:
            return scale * a / b if b else None

        return {
            "hands": self.hands,
            "avg_points": ratio(self.points, self.hands),
            "contracts_won": self.contracts,
            "avg_bid": ratio(self.bid_sum, self.contracts),
            "contracts_made_pct": ratio(self.made, self.contracts, 100.0),
            "sets_inflicted": self.sets_inflicted,
            "kaboots": self.kaboots,
            "avg_tricks_declarer": ratio(self.declarer_tricks, self.declarer_hands),
            "avg_tricks_defender": ratio(self.defender_tricks, self.defender_hands),
            "thrown_in": self.thrown_in,
        }


STAT_DOCS = {
    "hands": "played hands at the agent's tables",
    "avg_points": "agent's team score change per played hand",
    "contracts_won": "team auction: auctions the agent's team won; individual bidding: the agent's bids",
    "avg_bid": "mean bid of those contracts",
    "contracts_made_pct": "% of those contracts made",
    "sets_inflicted": "opponents' contracts that failed",
    "kaboots": "hands in which the agent's team took all 13 tricks",
    "avg_tricks_declarer": "team auction: the agent's team's tricks when it declared",
    "avg_tricks_defender": "team auction: the agent's team's tricks when it defended",
    "thrown_in": "thrown-in deals at the agent's tables (shared with its opponent)",
}


def _tally(stats: dict[int, AgentStats], record: dict, seat_role: Sequence[int], auction: str) -> None:
    """Add one hand record to the per-role counters."""
    if record["thrown_in"]:
        for role in set(seat_role):
            stats[role].thrown_in += 1
        return
    team_role = (seat_role[0], seat_role[1])
    delta, tricks = record["score_delta"], record["tricks_won"]
    for team, role in enumerate(team_role):
        s = stats[role]
        s.hands += 1
        s.points += delta[team]
        s.kaboots += tricks[team] == 13
    if auction == "team":
        team = record["declarer"] & 1
        bid = record["bid"]
        made = tricks[team] >= bid
        decl, defn = stats[team_role[team]], stats[team_role[1 - team]]
        decl.contracts += 1
        decl.bid_sum += bid
        decl.made += made
        decl.declarer_hands += 1
        decl.declarer_tricks += tricks[team]
        defn.defender_hands += 1
        defn.defender_tricks += tricks[1 - team]
        defn.sets_inflicted += not made
    elif auction == "individual":
        for seat in range(4):
            bid = record["bids"][seat]
            made = record["tricks_by_seat"][seat] >= bid
            s = stats[seat_role[seat]]
            s.contracts += 1
            s.bid_sum += bid
            s.made += made
            stats[seat_role[seat ^ 1]].sets_inflicted += not made


def margin_ci95(margins: np.ndarray) -> Optional[list[float]]:
    """Normal-approximation 95% interval of the mean margin (None with fewer than 2 deals)."""
    n = len(margins)
    if n < 2:
        return None
    half = _Z95 * float(np.std(margins, ddof=1)) / math.sqrt(n)
    mean = float(np.mean(margins))
    return [mean - half, mean + half]


def wilson_ci95(wins: int, n: int) -> Optional[list[float]]:
    """Wilson 95% interval of a win rate (None when no games were played)."""
    if n == 0:
        return None
    from scipy.stats import binomtest

    ci = binomtest(wins, n).proportion_ci(0.95, method="wilson")
    return [float(ci.low), float(ci.high)]

def fit_ratings(names: Sequence[str], pairs: Sequence[tuple[str, str, float]]) -> dict[str, float]:
    """Least-squares ratings: rating[a] - rating[b] ~ margin for each (a, b, margin), sum of ratings 0."""
    index = {n: i for i, n in enumerate(names)}
    rows, rhs = [], []
    for a, b, m in pairs:
        row = np.zeros(len(names))
        row[index[a]], row[index[b]] = 1.0, -1.0
        rows.append(row)
        rhs.append(m)
    rows.append(np.ones(len(names)))
    rhs.append(0.0)
    solution = np.linalg.lstsq(np.array(rows), np.array(rhs), rcond=None)[0]
    return {n: float(solution[i]) for n, i in index.items()}
