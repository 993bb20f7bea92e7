"""Decisions per second of ``raw_env`` and the wrapped ``env()``, against OpenSpiel's C++ spades.

Each decision reads the acting agent's observation and mask (as a training loop
would), picks a legal action uniformly at random and steps. OpenSpiel is
measured in the same run, the same way (see ``peers.py``), and the ratios printed.

    python benchmarks/env_speed.py [--seconds 3] [--rules classic]
"""
from __future__ import annotations

import argparse
import time

import numpy as np

import tarneeb_env
from peers import spades_rate


def aec_rate(make, seconds: float, seed: int = 0) -> float:
    """Random legal play through the AEC API: last() (observation + mask), then step()."""
    e = make()
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    decisions = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.reset()
            continue
        legal = np.flatnonzero(obs["action_mask"])
        e.step(int(legal[int(rng.random() * len(legal))]))
        decisions += 1
        if decisions % 512 == 0 and time.perf_counter() >= deadline:
            break
    return decisions / (time.perf_counter() - start)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    p.add_argument("--rules", default="classic", help="rules preset")
    args = p.parse_args()
    raw = aec_rate(lambda: tarneeb_env.raw_env(rules=args.rules), args.seconds)
    wrapped = aec_rate(lambda: tarneeb_env.env(rules=args.rules), args.seconds)
    print(f"raw_env   : {raw:12,.0f} decisions/s")
    print(f"env()     : {wrapped:12,.0f} decisions/s")
    spades = spades_rate(args.seconds)
    if spades is None:
        return
    print(f"OpenSpiel spades (C++, from Python): {spades:12,.0f} decisions/s")
    print(f"ratio raw_env / spades: {raw / spades:.2f}x   (target 1.5x)")
    print(f"ratio env()   / spades: {wrapped / spades:.2f}x   (target 1.0x)")


if __name__ == "__main__":
    main()
