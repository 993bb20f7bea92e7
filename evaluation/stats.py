"""Per-agent counters over played hands, 95% intervals of margins, the probability that A is the stronger, and
least-squares ratings.

Two interval methods for a mean margin over n duplicate deals. ``normal``: mean +- 1.96 sd/sqrt(n), right for the
thousands of deals of a match against ``rule`` (the mean of per-deal margins with a finite variance is close to
normal there). ``bootstrap``: the BCa interval of ``scipy.stats.bootstrap``, seeded from the deal seed, for the
100-400-deal matches against slow agents, where margins are heavy-tailed (a set contract swings a deal by 10 or
more points) and the normal approximation's symmetric interval is off. "A is stronger" is the event that A's
expected margin over deals like these is positive; its probability is Phi(mean / (sd/sqrt(n))) under the normal
method (the posterior of the mean with a flat prior and the normal approximation) and the share of bootstrap
resample means above 0 under the bootstrap (ties count half).
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any, Optional

import numpy as np

from tarneeb_env.record import HandRecord

from .deals import _BOOTSTRAP

RATING_METHOD = "least squares: rating[X] - rating[Y] ~ mean margin of X vs Y (points per deal), ratings sum to 0"
MARGIN_CI_METHOD = "normal approximation over per-deal margins: mean +- 1.96 * sd / sqrt(n)"
BOOTSTRAP_RESAMPLES = 10_000
_BOOTSTRAP_BATCH = 250  # resamples held in memory at once: 250 x 10,000 deals is 20 MB
CI_METHODS = {
    "normal": MARGIN_CI_METHOD,
    "bootstrap": f"BCa bootstrap over per-deal margins, {BOOTSTRAP_RESAMPLES} resamples (scipy.stats.bootstrap), "
                 "seeded from the deal seed",
}
P_STRONGER_METHODS = {
    "normal": "Phi(mean / (sd / sqrt(n))): normal approximation of the mean margin, flat prior",
    "bootstrap": "share of the bootstrap resample means above 0 (ties count half)",
}
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


def _tally(stats: dict[int, AgentStats], record: HandRecord, seat_role: Sequence[int], auction: str) -> None:
    """Add one hand record to the per-role counters."""
    if record.thrown_in:
        for role in set(seat_role):
            stats[role].thrown_in += 1
        return
    team_role = (seat_role[0], seat_role[1])
    delta, tricks = record.score_delta, record.tricks_won
    for team, role in enumerate(team_role):
        s = stats[role]
        s.hands += 1
        s.points += delta[team]
        s.kaboots += tricks[team] == 13
    if auction == "team":
        team, bid, made = record.declaring_team, record.bid, record.made
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
            bid = record.bids[seat]
            made = record.seat_made(seat)
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


@dataclass(frozen=True)
class MarginSummary:
    """A mean margin's 95% interval and the probability that it is positive (None with fewer than 2 deals)."""

    method: str
    ci95: Optional[list[float]]
    p_positive: Optional[float]


def summarize_margins(margins: np.ndarray, method: str = "normal", seed: int = 0) -> MarginSummary:
    """The interval and P(expected margin > 0) by ``method`` (see the module docstring); the bootstrap's
    resamples are drawn from ``seed`` (the deal seed), so a run's figures are reproducible."""
    if method not in CI_METHODS:
        raise ValueError(f"ci: expected one of {', '.join(CI_METHODS)}, got {method!r}")
    margins = np.asarray(margins, dtype=np.float64)
    n = len(margins)
    if n < 2:
        return MarginSummary(method, None, None)
    mean = float(np.mean(margins))
    if np.ptp(margins) == 0:  # every deal the same margin: no spread to resample or scale
        return MarginSummary(method, [mean, mean], float(0.5 + 0.5 * np.sign(mean)))
    if method == "normal":
        from scipy.stats import norm

        se = float(np.std(margins, ddof=1)) / math.sqrt(n)
        return MarginSummary(method, margin_ci95(margins), float(norm.cdf(mean / se)))
    from scipy.stats import bootstrap

    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(_BOOTSTRAP,)))
    res = bootstrap((margins,), np.mean, n_resamples=BOOTSTRAP_RESAMPLES, batch=_BOOTSTRAP_BATCH,
                    method="BCa", rng=rng)
    means = res.bootstrap_distribution
    p = float(np.mean(means > 0) + 0.5 * np.mean(means == 0))
    return MarginSummary(method, [float(res.confidence_interval.low), float(res.confidence_interval.high)], p)


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
