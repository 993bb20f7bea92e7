"""How long the ``search`` agent takes per card decision, by setting, next to the network it searches with.

Deals are played by the shipped network at all four seats; at every card decision with a choice, each
setting decides the same position, timed in CPU seconds of this process (``time.process_time``: on a
shared machine wall time counts the other processes too) and in wall seconds. Prints the mean per
decision and its ratio to the network's own decision.

    python benchmarks/search_speed.py [--rules classic] [--deals 2] [--settings samples=8,samples=32,...]
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import torch

import agents
from tarneeb_env import raw_env

SETTINGS = ("samples=4", "samples=8", "samples=16", "samples=32", "samples=64", "samples=32&weighting=uniform",
            "samples=32&rollout=dds")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rules", default="classic")
    p.add_argument("--deals", type=int, default=2)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--settings", default=",".join(SETTINGS), help="search settings, comma-separated")
    args = p.parse_args()
    torch.set_num_threads(1)
    net = agents.load("ppo", rules=args.rules)
    players = {"network": net} | {s: agents.load(f"search?{s}", rules=args.rules, seed=args.seed)
                                  for s in args.settings.split(",")}
    cpu = {k: [] for k in players}
    wall = {k: [] for k in players}
    e = raw_env(rules=args.rules)
    for deal in range(args.deals):
        e.reset(seed=args.seed + deal)
        while not any(e.terminations.values()):
            agent = e.agent_selection
            obs, view = e.observe(agent), e.view(int(agent[-1]))
            if view.phase == "play" and len(view.legal_actions) > 1:
                for name, player in players.items():
                    c, w = time.process_time(), time.perf_counter()
                    player.act(obs, view)
                    cpu[name].append(time.process_time() - c)
                    wall[name].append(time.perf_counter() - w)
            e.step(net.act(obs, view))
    base = np.mean(cpu["network"])
    print(f"{args.rules}, {args.deals} deals, {len(cpu['network'])} card decisions with a choice")
    print(f"{'player':34s} {'cpu s/decision':>15s} {'wall s/decision':>16s} {'x network (cpu)':>16s}")
    for name in players:
        print(f"{name:34s} {np.mean(cpu[name]):15.4f} {np.mean(wall[name]):16.4f} {np.mean(cpu[name]) / base:16.1f}")


if __name__ == "__main__":
    main()
