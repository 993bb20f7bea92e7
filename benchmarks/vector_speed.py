"""Learner decisions per second of ``tarneeb_env.vector_env``, next to the PettingZoo AEC loop and OpenSpiel spades.

The learner plays one team with uniformly random legal actions (drawn from ``infos["action_mask"]``; no
policy network is timed) against ``rule`` or ``random`` opponents. The vector env steps ``num_envs`` games at
once, the opponents inside the engine; the AEC peer is the loop a single-agent user writes around
``tarneeb_env.env()``: the learner's random pick at its seats, the same opponent agent's ``act(observation,
view)`` at the others, counting the learner's decisions only. OpenSpiel's ``spades`` (random play at every
seat, the observation tensor read each decision: ``peers.py``) is measured when ``open_spiel`` is installed
and otherwise skipped with a note. CPU seconds are this process's, the one-core figure on a shared machine;
each figure is the best of ``--repeat`` measurements (as ``timeit`` advises: other load only slows a run down).

    .venv/bin/python benchmarks/vector_speed.py [--seconds 2] [--repeat 3] [--sizes 1 64 1024] [--opponents rule random]
"""
from __future__ import annotations

import argparse
import time

import numpy as np

import agents
import tarneeb_env
from peers import spades_rate
from tarneeb_env.batch import random_legal_actions


def vector_rate(num_envs: int, opponents: str, seconds: float, seed: int) -> tuple[float, float]:
    """(learner decisions per wall second, per CPU second) of the vector env, after a warm-up step."""
    rng = np.random.default_rng(seed)
    env = tarneeb_env.vector_env(num_envs, opponents=opponents, seed=seed)
    _, info = env.reset()
    _, _, _, _, info = env.step(random_legal_actions(info["action_mask"], rng))  # numba compiled or loaded
    steps = 0
    start, cpu_start = time.perf_counter(), time.process_time()
    while True:
        _, _, _, _, info = env.step(random_legal_actions(info["action_mask"], rng))
        steps += 1
        if time.perf_counter() - start >= seconds:
            break
    decisions = steps * num_envs
    return decisions / (time.perf_counter() - start), decisions / (time.process_time() - cpu_start)


def aec_rate(opponents: str, seconds: float, seed: int) -> tuple[float, float]:
    """(learner decisions per wall second, per CPU second) of one ``tarneeb_env.env()`` game in an AEC loop."""
    rng = np.random.default_rng(seed)
    env = tarneeb_env.env()
    opponent = agents.load(opponents, seed=seed)
    env.reset(seed=seed)
    team = 0
    decisions = 0
    start, cpu_start = time.perf_counter(), time.process_time()
    while True:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.reset()
            team = 1 - team  # the learner plays both teams in turn, as the vector env draws it
            continue
        obs = env.observe(agent)
        if int(agent[-1]) & 1 == team:
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            decisions += 1
            if decisions % 256 == 0 and time.perf_counter() - start >= seconds:
                break
        else:
            env.step(opponent.act(obs, env.unwrapped.view(agent)))
    return decisions / (time.perf_counter() - start), decisions / (time.process_time() - cpu_start)


def best(measure, repeat: int, *args) -> tuple[float, float]:
    """The highest (wall, CPU) rates of ``repeat`` calls of ``measure(*args)``, each taken on its own."""
    runs = [measure(*args) for _ in range(repeat)]
    return max(r[0] for r in runs), max(r[1] for r in runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="measuring time per figure (default 2)")
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 64, 1024], help="num_envs values")
    parser.add_argument("--opponents", nargs="+", default=["rule", "random"], help="opponent agent specs")
    parser.add_argument("--repeat", type=int, default=3, help="measurements per figure, the best kept (default 3)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.seconds <= 0 or args.repeat < 1 or any(n < 1 for n in args.sizes):
        parser.error("--seconds, --repeat and --sizes must be positive")

    spades = spades_rate(args.seconds, args.seed)
    if spades is not None:
        print(f"OpenSpiel spades (random play at every seat, all decisions counted): {spades:,.0f} decisions/s")
    print("learner decisions/s (learner: one team, random legal actions)")
    print(f"{'opponents':>10} {'engine':>16} {'decisions/s':>12} {'per CPU s':>12} {'x AEC (CPU)':>12} "
          f"{'x spades':>9}")
    for opponents in args.opponents:
        aec, aec_cpu = best(aec_rate, args.repeat, opponents, args.seconds, args.seed)
        print(f"{opponents:>10} {'AEC env()':>16} {aec:>12,.0f} {aec_cpu:>12,.0f} {1.0:>12.1f} "
              f"{aec / spades if spades else float('nan'):>9.2f}")
        for n in args.sizes:
            rate, cpu = best(vector_rate, args.repeat, n, opponents, args.seconds, args.seed)
            print(f"{opponents:>10} {f'vector_env({n})':>16} {rate:>12,.0f} {cpu:>12,.0f} {cpu / aec_cpu:>12.1f} "
                  f"{rate / spades if spades else float('nan'):>9.2f}", flush=True)


if __name__ == "__main__":
    main()
