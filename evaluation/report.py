"""The rich console report of a match or a round robin."""
from __future__ import annotations

from typing import Optional

from .deals import DEAL_SETS
from .results import MatchResult, RoundRobinResult
from .stats import CI_METHODS, GAMES_CI_METHOD, P_STRONGER_METHODS, RATING_METHOD, STAT_DOCS, wilson_ci95

_P_SHOWN = 1e-4  # probabilities closer than this to 0 or 1 print as "< 0.0001" / "> 0.9999"


def _fmt(x: Optional[float], digits: int = 2) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def _fmt_ci(ci: Optional[list[float]], digits: int = 2, scale: float = 1.0) -> str:
    return "-" if ci is None else f"[{ci[0] * scale:.{digits}f}, {ci[1] * scale:.{digits}f}]"


def _fmt_p(p: Optional[float]) -> str:
    if p is None:
        return "-"
    if p < _P_SHOWN:
        return f"< {_P_SHOWN}"
    if p > 1 - _P_SHOWN:
        return f"> {1 - _P_SHOWN}"
    return f"{p:.4f}"


def _deals_named(m: MatchResult) -> str:
    """The deals a run played, as its title says them: the seed and its named deal set."""
    if m.deal_set:
        return f"seed {m.seed}, deal set {m.deal_set}"
    return f"seed {m.seed} (outside the {' and '.join(DEAL_SETS)} deal sets)"


def _stats_table(title: str, stats: dict[str, dict]):
    from rich.table import Table

    table = Table(title=title)
    table.add_column("statistic")
    for name in stats:
        table.add_column(name, justify="right", overflow="fold")  # a long name folds; rich would cut it
    for key in STAT_DOCS:
        cells = []
        for s in stats.values():
            v = s[key]
            cells.append(_fmt(v) if isinstance(v, float) else ("-" if v is None else str(v)))
        table.add_row(key, *cells)
    return table


def _rules_named(m: MatchResult, note: str = "") -> str:
    """The rules as a title says them, with how they were chosen when not by ``--rules``."""
    return f"rules {m.rules.name}" + (f" ({note})" if note else "")


def _print_match(console, m: MatchResult, rules_note: str = "") -> None:
    from rich.table import Table

    a, b = m.agents
    table = Table(title=f"{a} vs {b}: {m.deals} duplicate deals, {_rules_named(m, rules_note)}, {_deals_named(m)}")
    table.add_column("measure")
    table.add_column("value", justify="right")
    table.add_column("95% interval", justify="right")
    table.add_row(f"margin of {a} (points per deal; {m.ci} interval, {m.deals} deals)", _fmt(m.margin),
                  _fmt_ci(m.ci95))
    table.add_row(f"P({a} stronger than {b})", _fmt_p(m.p_a_stronger), "")
    if m.games_played:
        rate = 100.0 * m.a_won / m.games_played
        draws = m.games_played - m.a_won - m.b_won
        table.add_row(
            f"{a} game wins ({m.a_won}-{m.b_won}, {draws} drawn of {m.games_played})",
            f"{rate:.1f}%",
            _fmt_ci(m.games_ci95, 1, 100.0),
        )
    console.print(table)
    console.print(f"margin interval over {m.deals} deals: {CI_METHODS[m.ci]}; P({a} stronger): "
                  f"{P_STRONGER_METHODS[m.ci]}" + (f"; games: {GAMES_CI_METHOD}" if m.games_played else ""))
    console.print(_stats_table("per-agent statistics (duplicate deals)", m.to_dict()["stats"]))


def _print_round_robin(console, rr: RoundRobinResult, rules_note: str = "") -> None:
    from rich.table import Table

    first = rr.pairs[0]
    title = (f"round robin: margin of row vs column, {first.deals} duplicate deals, {_rules_named(first, rules_note)}, "
             f"{_deals_named(first)}")
    cross = Table(title=title)
    cross.add_column("", overflow="fold")  # long names (runs/NAME/latest.pt) fold onto more lines, never cut
    for name in rr.agents:
        cross.add_column(name, justify="right", overflow="fold")
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
                lo, hi = wilson_ci95(wins, m.games_played)
                text += f"\n{100.0 * wins / m.games_played:.0f}% [{100 * lo:.0f}, {100 * hi:.0f}] of games"
            cells.append(text)
        cross.add_row(row, *cells)
    console.print(cross)
    ratings = Table(title="ratings")
    ratings.add_column("agent", overflow="fold")
    ratings.add_column("rating (points per deal)", justify="right")
    for name, r in sorted(rr.ratings.items(), key=lambda kv: -kv[1]):
        ratings.add_row(name, f"{r:+.2f}")
    console.print(ratings)
    games = f"; games won: {GAMES_CI_METHOD}" if first.games_played else ""
    console.print(f"ratings: {RATING_METHOD}; margin intervals (±, 95%) over {first.deals} deals per pair: "
                  f"{CI_METHODS[first.ci]}{games}")
    console.print(_stats_table("per-agent statistics (all pairs)", rr.to_dict()["stats"]))
