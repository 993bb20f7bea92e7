"""What one piece of advice costs: CPU seconds per :func:`agents.explain.explain` call, on one thread.

Plays ``--deals`` deals of each preset with the shipped network, keeps one seat's decisions (bids, trump calls,
cards), and times ``explain`` on each of them with ``samples=0`` (the network alone) and each ``--samples``
value, after one warm-up call (numba's compilation is not counted). Prints per preset, phase and samples the
mean and the largest CPU seconds a call; the default (:data:`agents.explain.DEFAULT_SAMPLES`) was chosen from
these so that a hint answers within about 1 s on one core.

    python benchmarks/advice_speed.py [--deals 2] [--samples 16,32,64] [--rules classic,syrian41,...]
"""
from __future__ import annotations

import argparse
import time
from collections import defaultdict

import numpy as np
import torch

import agents
from agents.explain import DEFAULT_SAMPLES, explain, observation_of
from tarneeb_env import PRESETS, TarneebGame, make_rules
from tarneeb_env.view import make_view


def decisions(rules, deals: int, seed: int, seat: int = 0) -> list:
    """``seat``'s views of ``deals`` deals played by the shipped network at all four seats."""
    net = agents.load("ppo", rules=rules)
    game = TarneebGame(rules, np.random.default_rng(seed))
    game.new_game(0)
    out = []
    for _ in range(deals):
        game.start_deal()
        while game.phase != 3:
            view = make_view(game, game.current)
            if view.seat == seat and len(view.legal_actions) > 1:
                out.append(view)
            game.apply(net.act(observation_of(view), view))
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--deals", type=int, default=2)
    p.add_argument("--samples", default="16,32,64")
    p.add_argument("--rules", default=",".join(PRESETS))
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    torch.set_num_threads(1)
    settings = [0] + [int(s) for s in args.samples.split(",")]
    print(f"default samples: {DEFAULT_SAMPLES}; CPU seconds per explain() call, one thread")
    print(f"{'rules':<14}{'phase':<9}{'samples':>8}{'calls':>7}{'mean s':>9}{'max s':>8}")
    for name in args.rules.split(","):
        rules = make_rules(name)
        views = decisions(rules, args.deals, args.seed)
        explain(views[0], samples=settings[-1])  # warm-up: numba compiles the batch engine once per process
        times = defaultdict(list)
        for view in views:
            for samples in settings:
                start = time.process_time()
                explain(view, samples=samples, seed=args.seed)
                times[view.phase, samples].append(time.process_time() - start)
        for (phase, samples), ts in sorted(times.items()):
            print(f"{name:<14}{phase:<9}{samples:>8}{len(ts):>7}{np.mean(ts):>9.3f}{np.max(ts):>8.3f}")


if __name__ == "__main__":
    main()
