"""How evenly evaluate.py's workers share a match: wall time, CPU seconds and each worker's busy time.

Runs ``evaluate.py`` with the given arguments (the same code: :func:`evaluation.cli.main`) and prints, after its
report, the evaluator's log of each worker process (chunks, deals, busy and idle seconds against the run's wall
time) and the CPU seconds of this process and of its workers. CPU seconds are what a shared machine cannot
distort; busy / (busy + idle) per worker says whether the scheduler kept it working.

Usage: python benchmarks/eval_balance.py A B [evaluate.py options], e.g.
    python benchmarks/eval_balance.py checkpoints/classic.pt expert --deals 20 --seed 31 --workers 2
"""
from __future__ import annotations

import logging
import resource
import sys
import time

from evaluation.cli import main as evaluate


def main() -> int:
    logging.basicConfig(level=logging.WARNING, format="%(name)s: %(message)s", stream=sys.stdout)
    logging.getLogger("evaluation.match").setLevel(logging.INFO)
    t0 = time.perf_counter()
    code = evaluate(sys.argv[1:])
    wall = time.perf_counter() - t0
    me = resource.getrusage(resource.RUSAGE_SELF)
    workers = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu_me, cpu_workers = me.ru_utime + me.ru_stime, workers.ru_utime + workers.ru_stime
    print(f"wall {wall:.1f} s; CPU {cpu_me + cpu_workers:.1f} s (this process {cpu_me:.1f} s, worker processes "
          f"{cpu_workers:.1f} s): {(cpu_me + cpu_workers) / wall:.2f} cores busy on average")
    return code


if __name__ == "__main__":
    sys.exit(main())
