"""The engine protocol's cost: duplicate deals per second of ``engine:tarneeb-engine SPEC`` against in-process
``SPEC``, and of in-process ``SPEC`` against itself, measured in the same run.

The engine is started as ``python -m agents.engine_main SPEC`` (what the ``tarneeb-engine`` script runs), so the
benchmark needs no installed script; both matches play the same deals with one worker. Wall time includes the
engine's start-up (a second or two), as a user of ``evaluate.py`` sees it; CPU time of this process alone leaves
out the engine's own work, so the engine's CPU seconds are printed too (from the children's resource usage).

Usage: python benchmarks/engine_speed.py [--deals N] [--spec rule]
"""
from __future__ import annotations

import argparse
import resource
import shlex
import sys
import time

import evaluation


def _timed(a: str, b: str, deals: int) -> tuple[float, float, float, float]:
    """(wall s, this process's CPU s, children's CPU s, margin) of one duplicate match."""
    t0, c0 = time.perf_counter(), time.process_time()
    k0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    m = evaluation.duplicate_match(a, b, deals=deals, seed=0)
    dt, cpu = time.perf_counter() - t0, time.process_time() - c0
    k1 = resource.getrusage(resource.RUSAGE_CHILDREN)  # the engine counts once reaped: the agent is gone by now
    kids = (k1.ru_utime + k1.ru_stime) - (k0.ru_utime + k0.ru_stime)
    return dt, cpu, kids, m.margin


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--deals", type=int, default=1000)
    p.add_argument("--spec", default="rule", help="the agent played in-process and through the protocol")
    args = p.parse_args()
    engine = f"engine:{shlex.quote(sys.executable)} -m agents.engine_main {shlex.quote(args.spec)}"
    print(f"{args.deals} duplicate deals ({2 * args.deals} tables), rules classic, one worker")
    rows = [(args.spec, args.spec), (engine, args.spec)]
    rates, per_cpu = [], []
    for a, b in rows:
        dt, cpu, kids, margin = _timed(a, b, args.deals)
        rates.append(args.deals / dt)
        per_cpu.append(args.deals / (cpu + kids))
        shown = "tarneeb-engine " + args.spec if a.startswith("engine:") else a
        print(f"{shown} vs {b}: {args.deals / dt:6.1f} duplicate deals/s wall ({dt:.1f} s incl. start-up; "
              f"CPU {cpu:.1f} s here + {kids:.1f} s in child processes = {per_cpu[-1]:.0f} deals per CPU-second; "
              f"margin {margin:+.2f})")
    print(f"the protocol's cost: {rates[0] / rates[1]:.1f}x the wall time of in-process play, "
          f"{per_cpu[0] / per_cpu[1]:.1f}x its CPU time")


if __name__ == "__main__":
    main()
