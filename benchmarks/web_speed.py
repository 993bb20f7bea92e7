"""What the web table's answers cost on one thread: CPU seconds per Hint, per computer move at Strong and at Master,
and per post-hand review, through :class:`playing.web.session.Session` (no HTTP).

The person's seat takes the Hint's move each time, so every Hint of ``--deals`` deals is timed; then one deal with
Master at the three computer seats. The first Hint includes numba's compilation of the roll-outs (it is the
largest). The issue's bar: a Hint or a computer move within about 1 s on one core at the strongest level offered
by default.

    python benchmarks/web_speed.py [--rules classic] [--deals 2] [--seed 5]
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from playing.web.levels import LEVEL_SPECS
from playing.web.review import review
from playing.web.session import ServerConfig, Session
from tarneeb_env import make_rules


def cpu(fn):
    start = time.process_time()
    out = fn()
    return time.process_time() - start, out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rules", default="classic")
    p.add_argument("--deals", type=int, default=2)
    p.add_argument("--seed", type=int, default=5)
    args = p.parse_args()
    torch.set_num_threads(1)
    config = ServerConfig(make_rules(args.rules), args.rules, dict(LEVEL_SPECS), "strong", "strong", 0.0, args.seed, 1)
    session = Session(config, 0)
    hints, moves = [], []
    for _ in range(args.deals):
        while not session.table.waiting:
            if session.table.game.current == 0:
                took, hint = cpu(session.hint)
                hints.append(took)
                session.act(hint["action"])
            else:
                moves.append(cpu(session.advance)[0])
        session.next_deal()
    session.new_game("master", "master")
    master = []
    while not session.table.waiting:
        if session.table.game.current == 0:
            session.act(int(session.table.game.legal_actions()[0]))
        else:
            master.append(cpu(session.advance)[0])
    reviewed = cpu(lambda: review(session.table.records[-1].to_dict()))[0]
    for name, xs in (("hint", hints), ("Strong move", moves), ("Master move", master)):
        print(f"{name:12s} n {len(xs):3d}  median {np.median(xs):.4f}  max {max(xs):.4f} CPU s")
    print(f"review       one deal {reviewed:.2f} CPU s")


if __name__ == "__main__":
    main()
