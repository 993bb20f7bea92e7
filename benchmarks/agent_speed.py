"""How fast the baseline agents decide.

Prints, for the ``rule`` agent: microseconds per decision on views recorded from rule-vs-rule
deals (the agent alone), and whole deals per second rule vs rule through the rules engine
(views built, agent, engine). For the ``expert`` agent (needs endplay): seconds per decision
by phase and per whole deal with two expert seats.

    python benchmarks/agent_speed.py [--rules classic] [--deals 400] [--expert-deals 3] [--samples 16]
"""
from __future__ import annotations

import argparse
import time
from collections import defaultdict

import numpy as np

from agents import ExpertAgent, RuleAgent
from tarneeb_env import TarneebGame, make_rules
from tarneeb_env.view import make_view


def play_deals(table, rules, deals: int, seed: int, record=None, timings=None):
    """Play ``deals`` deals (redeals of thrown-in ones not counted); optionally keep every view."""
    game = TarneebGame(rules, np.random.default_rng(seed))
    game.new_game(0, (0, 0))
    done = 0
    decisions = 0
    game.start_deal()
    while done < deals:
        seat = game.current
        view = make_view(game, seat)
        if record is not None:
            record.append(view)
        if timings is not None and isinstance(table[seat], ExpertAgent):
            t0 = time.perf_counter()
            action = table[seat].act(None, view)
            timings[view.phase].append(time.perf_counter() - t0)
        else:
            action = table[seat].act(None, view)
        decisions += 1
        result = game.apply(action)
        if result is not None:
            if not result.thrown_in:
                done += 1
            if game.game_over:
                game.new_game(game.dealer, (0, 0))
            game.start_deal()
    return decisions


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rules", default="classic", help="preset name or rules .yaml (default classic)")
    ap.add_argument("--deals", type=int, default=400, help="rule-vs-rule deals to time (default 400)")
    ap.add_argument("--expert-deals", type=int, default=2, help="deals with two expert seats (0: skip)")
    ap.add_argument("--samples", type=int, default=16, help="expert layouts per card played (default 16)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    rules = make_rules(args.rules)

    views = []
    agent = RuleAgent(seed=args.seed)
    t0 = time.perf_counter()
    decisions = play_deals([agent] * 4, rules, args.deals, args.seed, record=views)
    wall = time.perf_counter() - t0
    print(f"rule vs rule ({rules.name}): {args.deals / wall:.0f} deals/s, {decisions / wall:.0f} decisions/s "
          "(engine + views + agent, one core)")

    agent = RuleAgent(seed=args.seed)
    by_phase = defaultdict(list)
    for view in views:
        t0 = time.perf_counter()
        agent.act(None, view)
        by_phase[view.phase].append(time.perf_counter() - t0)
    every = [t for ts in by_phase.values() for t in ts]
    parts = ", ".join(f"{p} {np.mean(ts) * 1e6:.1f}" for p, ts in sorted(by_phase.items()))
    print(f"rule decision alone: {np.mean(every) * 1e6:.1f} us mean over {len(every)} ({parts} us)")

    if args.expert_deals > 0:
        expert, rule = ExpertAgent(seed=args.seed, samples=args.samples), RuleAgent(seed=args.seed)
        timings = defaultdict(list)
        t0 = time.perf_counter()
        play_deals([expert, rule, expert, rule], rules, args.expert_deals, args.seed, timings=timings)
        wall = time.perf_counter() - t0
        parts = ", ".join(f"{p} mean {np.mean(ts):.3f} max {np.max(ts):.3f}" for p, ts in sorted(timings.items()))
        print(f"expert (samples={args.samples}) vs rule: {wall / args.expert_deals:.2f} s per deal with two "
              f"expert seats; seconds per decision: {parts}")


if __name__ == "__main__":
    main()
