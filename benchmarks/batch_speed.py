"""Decisions per second of the batch engine, next to OpenSpiel spades measured in the same run.

Every step picks a uniformly random legal action for each game from the
returned mask and gets the next observations, masks and seats back, so the
figure includes observation building. Run from the repository root:

    .venv/bin/python benchmarks/batch_speed.py [--seconds 2] [--sizes 1 64 1024 4096] [--rules classic]
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from peers import spades_rate
from tarneeb_env.batch import BatchEnv, random_legal_actions


def batch_rate(num_games: int, seconds: float, rules: str, seed: int) -> tuple[float, float, float]:
    """(decisions per wall second, per CPU second of this process, seconds of construction + reset + first step).

    The CPU-time rate is the one-core figure even when other processes share the machine.
    """
    rng = np.random.default_rng(seed)
    t0 = time.perf_counter()
    be = BatchEnv(num_games, rules=rules, seed=seed)
    obs, mask, seat = be.reset()
    obs, mask, seat, *_ = be.step(random_legal_actions(mask, rng))
    setup = time.perf_counter() - t0
    steps = 0
    start, cpu_start = time.perf_counter(), time.process_time()
    deadline = start + seconds
    while True:
        obs, mask, seat, rewards, done, records = be.step(random_legal_actions(mask, rng))
        steps += 1
        if time.perf_counter() >= deadline:
            break
    decisions = steps * num_games
    return decisions / (time.perf_counter() - start), decisions / (time.process_time() - cpu_start), setup


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="measuring time per size (default 2)")
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 64, 1024, 4096], help="numbers of games")
    parser.add_argument("--rules", default="classic", help="rules preset (default classic)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-openspiel", action="store_true", help="skip the OpenSpiel spades measurement")
    args = parser.parse_args()
    if args.seconds <= 0 or any(n < 1 for n in args.sizes):
        parser.error("--seconds and --sizes must be positive")

    peer = None if args.no_openspiel else spades_rate(args.seconds, args.seed)
    if peer is not None:
        print(f"OpenSpiel spades (random play, observation_tensor each decision): {peer:,.0f} decisions/s")
    print(f"BatchEnv, rules={args.rules}, random legal actions, observations every step:")
    print(f"{'N':>6} {'decisions/s':>14} {'per CPU s':>14} {'x OpenSpiel':>12} {'setup s':>8}")
    for n in args.sizes:
        rate, cpu_rate, setup = batch_rate(n, args.seconds, args.rules, args.seed)
        ratio = f"{rate / peer:12.1f}" if peer else f"{'-':>12}"
        print(f"{n:>6} {rate:>14,.0f} {cpu_rate:>14,.0f} {ratio} {setup:>8.2f}")


if __name__ == "__main__":
    main()
