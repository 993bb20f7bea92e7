"""Time to strength: PPO decisions and wall minutes a run takes to reach +1.0, +1.5 and +2.0 against `rule` (#59).

    python benchmarks/time_to_strength.py RUN [RUN ...]              # from the runs' TensorBoard evaluations
    python benchmarks/time_to_strength.py RUN --heldout [--deals 1000] [--checkpoints N] [--cache-dir DIR]
    python benchmarks/time_to_strength.py --chain LINK1 LINK2 A,B [--name NAME]  # a chain's links; A,B: siblings
    ... [--opponent rule] [--levels 1.0 1.5 2.0] [--confirm 1] [--csv curves.csv]

RUN is a run folder (``train.py --run-dir``) or its shipped logs (``checkpoints/*_logs``). Without ``--heldout``
the figures come from the run's in-training evaluations (``eval/margin_vs_rule`` and its 95% interval, on the
config's ``eval.seed``, 12345 in the recipes: not the held-out deals); with ``--heldout`` each kept ``iter_*.pt``
(at most ``--checkpoints``, evenly spaced) is played against `rule` on the first held-out deal set, ``--deals``
deals each (a few CPU seconds per checkpoint), and the results are cached in
``RUN/time_to_strength_heldout.csv`` (or ``--cache-dir``) so a second call plays nothing. The output names the
source of every figure.

A level counts as reached at the first evaluation whose 95% interval lies wholly at or above it (``interval``,
the decided figure); the first whose point estimate reaches it (``point``) is printed too, as the earliest the
run may have got there. Of many evaluations one clears a level by luck now and then: ``--confirm K`` counts a
level only where K evaluations in a row reach it (dated at the first). Wall minutes: from the logs, the span of the event files' times (time between resumed
sessions left out, evaluations included); with ``--heldout``, the trainer's own clock saved in each checkpoint.
CPU minutes (the run's processes' CPU time, ``charts/cpu_seconds``) where the run recorded them. ``--csv`` adds
every evaluation of every curve to a CSV (run, kind, decisions, minutes, run_minutes, cpu_minutes, margin, ci_lo,
ci_hi): the input of ``notebooks/time_to_strength.ipynb`` (``docs/time_to_strength.csv``).
"""
from __future__ import annotations

import argparse
import csv
import os
import sys

from agents.checkpoint import CheckpointError
from training.time_to_strength import (
    CACHE_NAME,
    LEVELS,
    TimeToStrengthError,
    chain,
    heldout_curve,
    read_logs,
    report,
    to_rows,
)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("runs", nargs="+", metavar="RUN", help="run folders (or shipped logs); with --chain, the links "
                   "in order, sibling runs of a link joined by commas")
    p.add_argument("--chain", action="store_true", help="stitch the runs end to end as the links of one chain")
    p.add_argument("--name", default=None, help="the curve's name in the output and the CSV, for a chain or a "
                   "single run (default: chain; the run folder's name)")
    p.add_argument("--opponent", default="rule", help="the opponent (default rule): its tag in the logs (rule, "
                   "default, ...), or with --heldout an agent spec (rule, checkpoints/default.pt, ...)")
    p.add_argument("--levels", type=float, nargs="+", default=list(LEVELS), help="margins to reach (1.0 1.5 2.0)")
    p.add_argument("--confirm", type=int, default=1, help="a level counts at the first of this many evaluations in "
                   "a row that reach it (default 1)")
    p.add_argument("--heldout", action="store_true", help="re-evaluate the kept iter_*.pt on the held-out deals")
    p.add_argument("--deals", type=int, default=1000, help="held-out deals per checkpoint (default 1000)")
    p.add_argument("--checkpoints", type=int, default=None, help="re-evaluate at most N checkpoints, evenly spaced")
    p.add_argument("--workers", type=int, default=1, help="evaluation processes (default 1)")
    p.add_argument("--cache-dir", default=None, help=f"where the held-out results are cached (default: each run "
                   f"folder's {CACHE_NAME}; here RUNNAME_{CACHE_NAME})")
    p.add_argument("--csv", default=None, help="write every evaluation of every curve to this CSV (rows of other "
                   "runs already in it are kept, those of the same run name replaced)")
    args = p.parse_args(argv)
    if args.name and len(args.runs) > 1 and not args.chain:
        p.error("--name names one curve: give one run, or --chain")
    if args.heldout and args.chain:
        p.error("--heldout re-evaluates one run's checkpoints: give the runs without --chain")
    if args.confirm < 1:
        p.error(f"--confirm {args.confirm}: give at least 1")
    if args.deals < 1:
        p.error(f"--deals {args.deals}: give at least 1")
    try:
        curves = [chain([[_curve(d, args) for d in link.split(",")] for link in args.runs])] if args.chain else \
            [_curve(d, args) for d in args.runs]
    except (TimeToStrengthError, CheckpointError) as e:
        print(f"time_to_strength.py: {e}", file=sys.stderr)
        return 2
    if args.name:
        curves[0].name = args.name
    for curve in curves:
        print(report(curve, args.levels, args.confirm))
        print()
    if args.csv:
        _merge_csv(args.csv, [r for c in curves for r in to_rows(c)])
        print(f"wrote {', '.join(c.name for c in curves)} to {args.csv}")
    return 0


def _merge_csv(path: str, rows: list[dict]) -> None:
    """Write ``rows`` to ``path``, keeping the rows already there of other runs (a run's rows are replaced)."""
    names = {r["run"] for r in rows}
    kept = []
    if os.path.isfile(path):
        with open(path, newline="", encoding="utf-8") as f:
            kept = [r for r in csv.DictReader(f) if r["run"] not in names]
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]) if rows else list(kept[0]) if kept else ["run"])
        w.writeheader()
        w.writerows(kept + rows)


def _curve(run_dir: str, args):
    if not os.path.isdir(run_dir):
        raise TimeToStrengthError(f"{run_dir}: no such run folder")
    if not args.heldout:
        return read_logs(run_dir, args.opponent)
    cache = None
    if args.cache_dir:
        os.makedirs(args.cache_dir, exist_ok=True)
        cache = os.path.join(args.cache_dir, f"{os.path.basename(os.path.normpath(run_dir))}_{CACHE_NAME}")
    return heldout_curve(run_dir, args.opponent, args.deals, args.checkpoints, args.workers, cache,
                         progress=lambda path, row: print(f"  {path}: {float(row['margin']):+.2f} "
                                                          f"[{float(row['ci_lo']):+.2f}, {float(row['ci_hi']):+.2f}]",
                                                          file=sys.stderr))


if __name__ == "__main__":
    sys.exit(main())
