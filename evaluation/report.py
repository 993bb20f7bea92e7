"""The rich console report of a match or a round robin."""
from __future__ import annotations

from typing import Optional

from .results import MatchResult, RoundRobinResult
from .stats import GAMES_CI_METHOD, MARGIN_CI_METHOD, RATING_METHOD, STAT_DOCS


def _fmt(x: Optional[float], digits: int = 2) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def _fmt_ci(ci: Optional[list[float]], digits: int = 2, scale: float = 1.0) -> str:
    return "-" if ci is None else f"[{ci[0] * scale:.{digits}f}, {ci[1] * scale:.{digits}f}]"


def _stats_table(title: str, stats: dict[str, dict]):
    from rich.table import Table

    table = Table(title=title)
    table.add_column("statistic")
    for name in stats:
        table.add_column(name, justify="right")
    for key in STAT_DOCS:
        cells = []
        for s in stats.values():
            v = s[key]
            cells.append(_fmt(v) if isinstance(v, float) else ("-" if v is None else str(v)))
        table.add_row(key, *cells)
    return table


def _print_match(console, m: MatchResult) -> None:
    from rich.table import Table

    a, b = m.agents
    table = Table(title=f"{a} vs {b}: {m.deals} duplicate deals, rules {m.rules.name}, seed {m.seed}")
    table.add_column("measure")
    table.add_column("value", justify="right")
    table.add_column("95% interval", justify="right")
    table.add_row(f"margin of {a} (points per deal)", _fmt(m.margin), _fmt_ci(m.ci95))
    if m.games_played:
        rate = 100.0 * m.a_won / m.games_played
        draws = m.games_played - m.a_won - m.b_won
        table.add_row(
            f"{a} game wins ({m.a_won}-{m.b_won}, {draws} drawn of {m.games_played})",
            f"{rate:.1f}%",
            _fmt_ci(m.games_ci95, 1, 100.0),
        )
    console.print(table)
    console.print(f"margin interval: {MARGIN_CI_METHOD}" + (f"; games: {GAMES_CI_METHOD}" if m.games_played else ""))
    console.print(_stats_table("per-agent statistics (duplicate deals)", m.to_dict()["stats"]))


def _print_round_robin(console, rr: RoundRobinResult) -> None:
    from rich.table import Table

    first = rr.pairs[0]
    title = f"round robin: margin of row vs column, {first.deals} duplicate deals, rules {first.rules.name}"
    cross = Table(title=title)
    cross.add_column("")
    for name in rr.agents:
        cross.add_column(name, justify="right")
    by_pair = {m.agents: m for m in rr.pairs}
    for row in rr.agents:
        cells = []
        for col in rr.agents:
            if row == col:
                cells.append("")
                continue
            m, sign = (by_pair[(row, col)], 1) if (row, col) in by_pair else (by_pair[(col, row)], -1)
            ci = m.ci95
            half = "" if ci is None else f" ±{(ci[1] - ci[0]) / 2:.2f}"
            text = f"{sign * m.margin:+.2f}{half}"
            if m.games_played:
                wins = m.a_won if sign == 1 else m.b_won
                text += f"\n{100.0 * wins / m.games_played:.0f}% of games"
            cells.append(text)
        cross.add_row(row, *cells)
    console.print(cross)
    ratings = Table(title="ratings")
    ratings.add_column("agent")
    ratings.add_column("rating (points per deal)", justify="right")
    for name, r in sorted(rr.ratings.items(), key=lambda kv: -kv[1]):
        ratings.add_row(name, f"{r:+.2f}")
    console.print(ratings)
    console.print(f"ratings: {RATING_METHOD}; margin intervals: {MARGIN_CI_METHOD}")
    console.print(_stats_table("per-agent statistics (all pairs)", rr.to_dict()["stats"]))
