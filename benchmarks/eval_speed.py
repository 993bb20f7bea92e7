"""Duplicate deals per second of evaluation.duplicate_match (target: >= 500 for rule vs rule on 2 cores).

With workers=1 it also prints deals per CPU-second, which a busy shared machine does not distort;
two idle cores give at most about twice that. Figures include loading the agents and starting the
worker processes, as a user of ``evaluate.py`` sees them.

Usage: python benchmarks/eval_speed.py [--deals N] [--workers W ...] [--pair A B ...]
(A and B are agent specs; repeat --pair for several. Default: random/random, rule/rule and the
shipped checkpoint against rule).
"""
from __future__ import annotations

import argparse
import os
import time

import evaluation


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--deals", type=int, default=10000)  # the use case; start-up is ~1 s of it
    p.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    p.add_argument("--pair", nargs=2, action="append", metavar=("A", "B"), dest="pairs",
                   help="agent specs to match (repeatable)")
    p.add_argument("--rules", default="classic")
    args = p.parse_args()
    pairs = args.pairs or [("random", "random"), ("rule", "rule"), ("checkpoints/default.pt", "rule")]
    print(f"{args.deals} duplicate deals ({2 * args.deals} tables), rules {args.rules}, cpus {os.cpu_count()}")
    for a, b in pairs:
        for w in args.workers:
            t0, c0 = time.perf_counter(), time.process_time()
            m = evaluation.duplicate_match(a, b, deals=args.deals, seed=0, rules=args.rules, workers=w)
            dt, cpu = time.perf_counter() - t0, time.process_time() - c0
            line = f"{a} vs {b}, workers={w}: {args.deals / dt:6.0f} duplicate deals/s wall ({dt:.2f} s incl. start-up"
            if w == 1:  # CPU time is what a shared machine cannot steal: deals per CPU-second
                line += f"; {args.deals / cpu:.0f} per CPU-second"
            print(line + f"; margin {m.margin:+.2f})")


if __name__ == "__main__":
    main()
