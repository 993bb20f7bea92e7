"""Time to strength: PPO decisions and wall minutes a run takes to reach a margin against ``rule`` (#59).

Two sources of a run's strength curve (:class:`Curve`, one :class:`Point` per evaluation):

- :func:`read_logs`: the run's own TensorBoard evaluations (``eval/margin_vs_rule`` with ``_ci_lo``/``_ci_hi``,
  stepped by PPO decisions). They play the config's ``eval.seed`` (12345 in the recipes), ``eval.deals`` deals each:
  free to read, but not the held-out deals (a training config may not evaluate on those, docs/deal-sets.md).
- :func:`heldout_curve`: the run's kept ``iter_*.pt`` checkpoints re-evaluated against ``rule`` on the held-out
  deals (``--deal-set heldout``, 1,000 deals each by default; a few seconds of a core per checkpoint), cached in a CSV
  so a second call plays nothing. This is the figure #59 asks for.

Wall minutes: from the logs, the union of the event files' spans (an event's ``wall_time``; a resumed session's
file starts a new span, so the time a run stood still between sessions is not counted), evaluations included; from a
checkpoint, the trainer's own clock (``counters["seconds"]``, which also skips the time between sessions). On a
machine shared with other work the wall minutes are that machine's; CPU minutes (the run's processes' CPU time:
``charts/cpu_seconds`` in the logs, ``counters["cpu_seconds"]`` in a checkpoint) measure the work whatever else
runs, and are given where the run recorded them (runs made before they were recorded have none).

A crossing under noise (:func:`crossings`): a level counts as reached at the first evaluation whose 95% interval lies
wholly at or above it (``interval``); the first evaluation whose point estimate reaches it (``point``) is printed
beside it as the earliest the run may have got there. With 1,000 deals the interval is about +-0.35, so the
``interval`` crossing of a level needs a point about 0.35 above it: it is late and safe, ``point`` early and noisy.

Chains (:func:`chain`): links that start from the one before are stitched end to end; sibling runs of one link
(run side by side and averaged) count their decisions together and their wall minutes once (the longest), and the
curve within such a link is its first run's.
"""
from __future__ import annotations

import csv
import glob
import math
import os
from dataclasses import dataclass, field, replace
from typing import Iterable, Optional, Sequence

LEVELS = (1.0, 1.5, 2.0)
RULES = ("interval", "point")
CACHE_NAME = "time_to_strength_heldout.csv"
CACHE_FIELDS = ("checkpoint", "iteration", "decisions", "minutes", "cpu_minutes", "opponent", "seed", "deals", "margin",
                "ci_lo", "ci_hi")
CPU_TAG = "charts/cpu_seconds"


@dataclass(frozen=True)
class Point:
    """One evaluation: after ``decisions`` PPO decisions and ``minutes`` of wall time (``run_minutes``: summed
    over runs that went side by side; the same for one run) and ``cpu_minutes`` of the run's processes (None where
    not recorded), the margin and its 95% interval."""

    decisions: int
    minutes: float
    margin: float
    lo: float
    hi: float
    run_minutes: Optional[float] = None  # None: the same as minutes
    cpu_minutes: Optional[float] = None

    def reached(self, level: float, rule: str) -> bool:
        return (self.lo if rule == "interval" else self.margin) >= level


@dataclass
class Curve:
    """A run's (or a chain's) evaluations against one opponent, in order, and where they came from."""

    name: str
    source: str
    points: list[Point] = field(default_factory=list)
    decisions: int = 0  # PPO decisions at the run's end (the last event or checkpoint)
    minutes: float = 0.0  # wall minutes at the run's end
    run_minutes: Optional[float] = None  # summed over sibling runs (a chain's); None: the same as minutes
    kind: str = "in-training"  # where the margins come from: "in-training" (the run's logs) or "held-out"
    cpu_minutes: Optional[float] = None  # CPU minutes of the run's processes at its end; None: not recorded


class TimeToStrengthError(ValueError):
    """A run folder without what the figure needs; the message says what to do."""


def crossings(points: Sequence[Point], levels: Iterable[float] = LEVELS, rule: str = "interval", confirm: int = 1
              ) -> dict[float, Optional[Point]]:
    """The first point that reaches each level under ``rule`` (``interval``: its 95% interval's lower end at or
    above the level; ``point``: its margin) and is followed by ``confirm - 1`` more that do, or None.

    Of many evaluations one clears a level by luck more often than one in 40: ``confirm`` 2 or 3 asks the
    evaluations after it to agree (the crossing is still dated at the first of them)."""
    if rule not in RULES:
        raise ValueError(f"crossing rule {rule!r}: use one of {', '.join(RULES)}")
    if confirm < 1:
        raise ValueError(f"confirm {confirm}: give at least 1 (the evaluations that must reach the level in a row)")
    out = {}
    for level in levels:
        hits = [p.reached(level, rule) for p in points]
        out[level] = next((points[i] for i in range(len(points) - confirm + 1) if all(hits[i:i + confirm])), None)
    return out


# ------------------------------------------------------------------ TensorBoard logs
def _event_files(run_dir: str) -> list[str]:
    """The run's event files: its own and those of runs one folder down (the warm start's, ``warmstart/``)."""
    return sorted(glob.glob(os.path.join(run_dir, "events.out.tfevents.*"))
                  + glob.glob(os.path.join(run_dir, "*", "events.out.tfevents.*")))


def _read_events(path: str) -> tuple[Optional[float], list[tuple[float, int, str, float]]]:
    """(the writer's start time, [(wall_time, step, tag, value)]) of one event file."""
    from tensorboard.backend.event_processing.event_file_loader import EventFileLoader
    from tensorboard.util import tensor_util

    start, rows = None, []
    for ev in EventFileLoader(path).Load():
        if ev.HasField("file_version"):
            start = ev.wall_time
        for v in ev.summary.value:
            kind = v.WhichOneof("value")
            if kind == "simple_value":
                rows.append((ev.wall_time, ev.step, v.tag, float(v.simple_value)))
            elif kind == "tensor":  # a scalar as a tensor; text summaries (the league's table) are skipped
                value = tensor_util.make_ndarray(v.tensor)
                if value.shape == () and value.dtype.kind in "fiu":
                    rows.append((ev.wall_time, ev.step, v.tag, float(value)))
    return start, rows


def _spans(files: dict[str, tuple[Optional[float], list]]) -> list[tuple[float, float]]:
    """The merged wall-time spans the run was running: each file from its writer's start (or its first event, when
    the start marker is later, as in logs rewritten by thinning) to its last event."""
    spans = []
    for start, rows in files.values():
        if rows:
            first, last = min(r[0] for r in rows), max(r[0] for r in rows)
            spans.append((min(first, start) if start is not None else first, last))
    merged: list[list[float]] = []
    for a, b in sorted(spans):
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    return [(a, b) for a, b in merged]


def _elapsed(spans: Sequence[tuple[float, float]], t: float) -> float:
    """Seconds of the spans before wall time ``t``."""
    return sum(max(0.0, min(b, t) - a) for a, b in spans if a <= t)


def read_logs(run_dir: str, opponent: str = "rule") -> Curve:
    """The run's in-training evaluations against ``opponent`` (its tag name: ``rule``, ``default``, ...)."""
    paths = _event_files(run_dir)
    if not paths:
        raise TimeToStrengthError(f"{run_dir}: no TensorBoard event files (events.out.tfevents.*); give a run "
                                  "folder that train.py --run-dir wrote, or its logs (checkpoints/*_logs)")
    files = {p: _read_events(p) for p in paths}
    spans = _spans(files)
    key = f"eval/margin_vs_{opponent}"
    by_step: dict[str, dict[int, tuple[float, float]]] = {k: {} for k in (key, key + "_ci_lo", key + "_ci_hi",
                                                                          CPU_TAG)}
    last_step, last_wall = 0, spans[-1][1] if spans else 0.0
    for p in paths:
        for wall, step, tag, value in sorted(files[p][1]):  # a later session's value of a step replaces an earlier
            if tag in by_step:
                by_step[tag][step] = (wall, value)
            if not tag.startswith("pretrain/"):  # the warm start's scalars step by teacher decisions
                last_step = max(last_step, step)
    if not by_step[key]:
        tags = sorted({r[2] for _, rows in files.values() for r in rows if r[2].startswith("eval/margin_vs_")
                       and not r[2].endswith(("_ci_lo", "_ci_hi"))})
        raise TimeToStrengthError(f"{run_dir}: no {key} in its logs (evaluated against: "
                                  f"{', '.join(t.removeprefix('eval/margin_vs_') for t in tags) or 'nothing yet'}); "
                                  "name one of those with --opponent, or wait for the run's first evaluation")
    if not by_step[key + "_ci_lo"]:
        raise TimeToStrengthError(f"{run_dir}: {key} is logged without its 95% interval ({key}_ci_lo/_ci_hi), so "
                                  "a crossing cannot be decided; re-evaluate its checkpoints with --heldout")
    points = []
    for step in sorted(by_step[key]):
        wall, margin = by_step[key][step]
        lo, hi = (by_step[key + end].get(step, (wall, math.nan))[1] for end in ("_ci_lo", "_ci_hi"))
        minutes = _elapsed(spans, wall) / 60
        cpu = by_step[CPU_TAG].get(step)
        points.append(Point(int(step), minutes, margin, lo, hi, minutes, cpu and cpu[1] / 60))
    cfg = _config(run_dir)
    e = cfg.get("eval", {}) if isinstance(cfg, dict) else {}
    source = (f"in-training evaluations vs {opponent}: seed {e.get('seed', '?')}, {e.get('deals', '?')} deals each "
              "(not held out)")
    cpu_end = by_step[CPU_TAG][max(by_step[CPU_TAG])][1] / 60 if by_step[CPU_TAG] else None
    return Curve(os.path.basename(os.path.normpath(run_dir)), source, points, int(last_step),
                 _elapsed(spans, last_wall) / 60, cpu_minutes=cpu_end)


def _config(run_dir: str) -> dict:
    import yaml

    path = os.path.join(run_dir, "config.yaml")
    if not os.path.isfile(path):
        return {}
    with open(path, encoding="utf-8") as f:
        return yaml.safe_load(f) or {}


# ------------------------------------------------------------------ held-out re-evaluation
def kept_checkpoints(run_dir: str, limit: Optional[int] = None) -> list[str]:
    """The run's ``iter_*.pt`` in order; with ``limit``, at most that many, evenly spaced, the last always kept."""
    paths = sorted(glob.glob(os.path.join(run_dir, "iter_*.pt")))
    if limit is not None and len(paths) > limit:
        if limit < 1:
            raise TimeToStrengthError(f"--checkpoints {limit}: give at least 1")
        n = len(paths)
        picks = sorted({round(n - 1 - k * (n - 1) / max(limit - 1, 1)) for k in range(limit)})
        paths = [paths[i] for i in picks]
    return paths


def _read_cache(path: str) -> dict[tuple[str, str, int, int], dict[str, str]]:
    if not os.path.isfile(path):
        return {}
    with open(path, newline="", encoding="utf-8") as f:
        return {(r["checkpoint"], r["opponent"], int(r["seed"]), int(r["deals"])): r for r in csv.DictReader(f)}


def heldout_curve(run_dir: str, opponent: str = "rule", deals: int = 1000, limit: Optional[int] = None,
                  workers: int = 1, cache: Optional[str] = None, progress=None) -> Curve:
    """The kept checkpoints' margins against ``opponent`` on the first held-out deal set (``deals`` deals each).

    Results are cached in ``cache`` (default ``RUN_DIR/time_to_strength_heldout.csv``), one row per checkpoint,
    opponent, seed and deal count; a cached row is not played again. ``progress(path, row)`` is called after each."""
    from agents.checkpoint import checkpoint_rules, load_checkpoint
    from evaluation import deal_set_seed, duplicate_match

    paths = kept_checkpoints(run_dir, limit)
    if not paths:
        raise TimeToStrengthError(f"{run_dir}: no kept checkpoints (iter_*.pt, written every checkpoint.interval "
                                  "iterations); read its logs instead (leave out --heldout)")
    seed = deal_set_seed("heldout")
    cache = cache or os.path.join(run_dir, CACHE_NAME)
    rows = _read_cache(cache)
    points = []
    for path in paths:
        name = os.path.basename(path)
        row = rows.get((name, opponent, seed, deals))
        if row is None:
            data = load_checkpoint(path)
            c = data["counters"]
            m = duplicate_match(path, opponent, deals=deals, seed=seed, rules=checkpoint_rules(data, path),
                                workers=workers)
            lo, hi = m.summary.ci95
            row = {"checkpoint": name, "iteration": c["iteration"], "decisions": c["decisions"],
                   "minutes": f"{c['seconds'] / 60:.3f}",
                   "cpu_minutes": f"{c['cpu_seconds'] / 60:.3f}" if "cpu_seconds" in c else "",  # older runs: none
                   "opponent": opponent, "seed": seed, "deals": deals,
                   "margin": f"{m.margin:.4f}", "ci_lo": f"{lo:.4f}", "ci_hi": f"{hi:.4f}"}
            rows[(name, opponent, seed, deals)] = {k: str(v) for k, v in row.items()}
            _write_cache(cache, rows)
        if progress is not None:
            progress(path, row)
        minutes, cpu = float(row["minutes"]), row.get("cpu_minutes") or None
        points.append(Point(int(row["decisions"]), minutes, float(row["margin"]), float(row["ci_lo"]),
                            float(row["ci_hi"]), minutes, cpu and float(cpu)))
    source = (f"kept checkpoints re-evaluated vs {opponent}: held-out seed {seed}, {deals} deals each "
              f"(cache {cache})")
    last = points[-1]
    return Curve(os.path.basename(os.path.normpath(run_dir)), source, points, last.decisions, last.minutes,
                 kind="held-out", cpu_minutes=last.cpu_minutes)


def _write_cache(path: str, rows: dict) -> None:
    tmp = f"{path}.tmp.{os.getpid()}"
    with open(tmp, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=CACHE_FIELDS)
        w.writeheader()
        for key in sorted(rows, key=lambda k: (k[1], k[2], k[3], k[0])):
            w.writerow({k: rows[key].get(k, "") for k in CACHE_FIELDS})
    os.replace(tmp, path)


# ------------------------------------------------------------------ chains
def chain(links: Sequence[Sequence[Curve]], name: str = "chain") -> Curve:
    """Links run one after another, each a list of sibling runs (side by side, their product averaged).

    A link's points are its first run's, shifted by the decisions and minutes of the links before; the decisions
    of a link with n siblings count n times (all of them were played), its wall minutes once (the longest run's),
    its run minutes and CPU minutes n times (CPU minutes: None once a link has none recorded)."""
    points, decisions, minutes, run_minutes, cpu = [], 0, 0.0, 0.0, 0.0
    for siblings in links:
        first, n = siblings[0], len(siblings)
        for p in first.points:
            points.append(replace(p, decisions=decisions + n * p.decisions, minutes=minutes + p.minutes,
                                  run_minutes=run_minutes + n * p.minutes,
                                  cpu_minutes=_add(cpu, p.cpu_minutes and n * p.cpu_minutes)))
        decisions += sum(c.decisions for c in siblings)
        minutes += max(c.minutes for c in siblings)
        run_minutes += sum(c.minutes for c in siblings)
        for c in siblings:
            cpu = _add(cpu, c.cpu_minutes)
    source = links[0][0].source + f"; {len(links)} links stitched, the first run of each"
    return Curve(name, source, points, decisions, minutes, run_minutes, links[0][0].kind, cpu)


def _add(a: Optional[float], b: Optional[float]) -> Optional[float]:
    return None if a is None or b is None else a + b


# ------------------------------------------------------------------ report
def _level(level: float) -> str:
    """+1.0, +1.5, +0.75: two decimals where the level has them (+0.75 must not print as +0.8)."""
    text = f"{level:+.2f}"
    return text[:-1] if text.endswith("0") else text


def report(curve: Curve, levels: Iterable[float] = LEVELS, confirm: int = 1) -> str:
    """The crossings of ``curve`` under both rules (``confirm`` evaluations in a row), as a text table."""
    levels = list(levels)
    cpu = "not recorded" if curve.cpu_minutes is None else f"{curve.cpu_minutes:,.1f}"
    lines = [f"{curve.name}: {curve.source}",
             f"  {len(curve.points)} evaluations; the run: {curve.decisions / 1e6:,.1f}M PPO decisions, "
             f"{curve.minutes:,.1f} wall minutes"
             + (f" ({curve.run_minutes:,.1f} run minutes)" if curve.run_minutes is not None else "")
             + f", CPU minutes {cpu}",
             "  crossing: 'interval' = the first evaluation whose 95% interval lies at or above the level (decided); "
             "'point' = the first whose margin does (earliest, noisy)"
             + (f"; each followed by {confirm - 1} more that do" if confirm > 1 else ""),
             f"  {'level':>6}  {'rule':>8}  {'PPO decisions':>13}  {'wall min':>8}  {'run min':>8}  {'CPU min':>8}  "
             "margin [95% interval]"]
    for rule in RULES:
        for level, p in crossings(curve.points, levels, rule, confirm).items():
            if p is None:
                lines.append(f"  {_level(level):>6}  {rule:>8}  {'not reached':>13}")
            else:
                cpu = "-" if p.cpu_minutes is None else f"{p.cpu_minutes:.1f}"
                lines.append(f"  {_level(level):>6}  {rule:>8}  {p.decisions / 1e6:12.1f}M  {p.minutes:8.1f}  "
                             f"{p.run_minutes or p.minutes:8.1f}  {cpu:>8}  {p.margin:+.2f} [{p.lo:+.2f}, "
                             f"{p.hi:+.2f}]")
    return "\n".join(lines)


def to_rows(curve: Curve) -> list[dict]:
    """The curve as CSV/DataFrame rows (one per evaluation), named by the run; ``cpu_minutes`` empty where none."""
    return [{"run": curve.name, "kind": curve.kind, "decisions": p.decisions, "minutes": round(p.minutes, 3),
             "run_minutes": round(p.run_minutes or p.minutes, 3),
             "cpu_minutes": "" if p.cpu_minutes is None else round(p.cpu_minutes, 3),
             "margin": p.margin, "ci_lo": p.lo, "ci_hi": p.hi}
            for p in curve.points]
