"""How fast the baseline agents decide.

Prints, for the ``rule`` agent: whole deals per second rule vs rule through the rules engine
(views built, agent, engine) and the microseconds per decision of its view and decision there
(``make_view`` + ``act``: its cost at a table); microseconds per decision on views recorded from
those deals (the agent alone); and microseconds per decision of ``rule`` as the opponents in a
batch-engine rollout (what the trainer's rollouts spend in ``Seating.act``: masks, views, agent),
with each group's views built together (``BatchEnv.views``, the rollouts' path) and one by one
(``BatchEnv.view`` per table, as the rollouts built them before), in alternating runs. For the
``expert`` agent (needs endplay): seconds per decision by phase and per whole deal with two expert seats.

    python benchmarks/agent_speed.py [--rules classic] [--deals 400] [--rollout-steps 64] [--expert-deals 3]
        [--samples 16]
"""
from __future__ import annotations

import argparse
import time
from collections import defaultdict

import numpy as np

from agents import ExpertAgent, RuleAgent
from agents.seating import LEFT_TO_CALLER, BatchTables, Seating
from tarneeb_env import TarneebGame, make_rules
from tarneeb_env.batch import BatchEnv, random_legal_actions
from tarneeb_env.view import make_view


def play_deals(table, rules, deals: int, seed: int, record=None, timings=None, clock=None):
    """Play ``deals`` deals (redeals of thrown-in ones not counted); optionally keep every view, and add the
    seconds spent building views and deciding to ``clock[0]``."""
    game = TarneebGame(rules, np.random.default_rng(seed))
    game.new_game(0, (0, 0))
    done = 0
    decisions = 0
    game.start_deal()
    while done < deals:
        seat = game.current
        start = time.perf_counter()
        view = make_view(game, seat)
        if record is not None:
            record.append(view)
        if timings is not None and isinstance(table[seat], ExpertAgent):
            t0 = time.perf_counter()
            action = table[seat].act(None, view)
            timings[view.phase].append(time.perf_counter() - t0)
        else:
            action = table[seat].act(None, view)
        if clock is not None:
            clock[0] += time.perf_counter() - start
        decisions += 1
        result = game.apply(action)
        if result is not None:
            if not result.thrown_in:
                done += 1
            if game.game_over:
                game.new_game(game.dealer, (0, 0))
            game.start_deal()
    return decisions


class OneByOne(BatchTables):
    """The batch engine's tables with each view built alone (``BatchEnv.view``), for comparison."""

    __slots__ = ()

    def views(self, tables):
        return [self.env.view(i) for i in tables]


def rollout_us(rules, games: int, steps: int, seed: int, tables=BatchTables) -> float:
    """Microseconds in ``Seating.act`` per ``rule`` decision in a BatchEnv rollout: ``rule`` holds one team of
    every game (alternating by game, as the trainer's opponents), random legal actions stand in for the learner."""
    env = BatchEnv(games, rules=rules, seed=seed)
    rule_team = np.arange(games) % 2
    seating = Seating([RuleAgent(seed=seed)], [[0 if s % 2 == t else LEFT_TO_CALLER for s in range(4)]
                                                for t in rule_team])
    rng = np.random.default_rng(seed)
    obs, mask, seat = env.reset()
    engine = tables(env, obs, mask)
    spent, decisions = 0.0, 0
    for _ in range(steps):
        actions = random_legal_actions(mask, rng)
        idx = np.flatnonzero((seat & 1) == rule_team)
        t0 = time.perf_counter()
        actions[idx] = seating.act(idx.tolist(), seat[idx].tolist(), engine)
        spent += time.perf_counter() - t0
        decisions += idx.size
        obs, mask, seat, *_ = env.step(actions)
        engine.update(obs, mask)
    return spent / decisions * 1e6


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rules", default="classic", help="preset name or rules .yaml (default classic)")
    ap.add_argument("--deals", type=int, default=400, help="rule-vs-rule deals to time (default 400)")
    ap.add_argument("--rollout-games", type=int, default=128, help="games of the rollout (default 128)")
    ap.add_argument("--rollout-steps", type=int, default=64, help="rollout steps per measurement (0: skip)")
    ap.add_argument("--expert-deals", type=int, default=2, help="deals with two expert seats (0: skip)")
    ap.add_argument("--samples", type=int, default=16, help="expert layouts per card played (default 16)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    rules = make_rules(args.rules)

    clock = [0.0]
    t0 = time.perf_counter()
    decisions = play_deals([RuleAgent(seed=args.seed)] * 4, rules, args.deals, args.seed, clock=clock)
    wall = time.perf_counter() - t0
    print(f"rule vs rule ({rules.name}): {args.deals / wall:.0f} deals/s, {decisions / wall:.0f} decisions/s "
          f"(engine + views + agent, one core); at the table {clock[0] / decisions * 1e6:.1f} us per decision "
          "for its view and the agent (make_view + act)")

    views = []  # the same deals again, their views kept (kept apart: thousands of live views slow the loop down)
    play_deals([RuleAgent(seed=args.seed)] * 4, rules, args.deals, args.seed, record=views)
    agent = RuleAgent(seed=args.seed)
    by_phase = defaultdict(list)
    for view in views:
        t0 = time.perf_counter()
        agent.act(None, view)
        by_phase[view.phase].append(time.perf_counter() - t0)
    every = [t for ts in by_phase.values() for t in ts]
    parts = ", ".join(f"{p} {np.mean(ts) * 1e6:.1f}" for p, ts in sorted(by_phase.items()))
    print(f"rule decision alone: {np.mean(every) * 1e6:.1f} us mean over {len(every)} ({parts} us)")

    if args.rollout_steps > 0:
        rollout_us(rules, args.rollout_games, 2, args.seed)  # compile the kernels first
        together, alone = [], []
        for _ in range(2):
            together.append(rollout_us(rules, args.rollout_games, args.rollout_steps, args.seed))
            alone.append(rollout_us(rules, args.rollout_games, args.rollout_steps, args.seed, OneByOne))
        print(f"rule as rollout opponents ({args.rollout_games} games x {args.rollout_steps} steps, Seating.act): "
              f"{' / '.join(f'{t:.1f}' for t in together)} us per decision with each group's views built together, "
              f"{' / '.join(f'{t:.1f}' for t in alone)} us one by one (alternating runs)")

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
