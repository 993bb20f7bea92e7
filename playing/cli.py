"""``play.py`` / ``tarneeb-play``: the command line of the terminal game and the replay."""
from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from pathlib import Path
from typing import Optional

import numpy as np
from rich.console import Console
from rich.text import Text

import agents
from tarneeb_env import make_rules

from .records import replay
from .terminal import _LOAD_ERRORS, TerminalGame

DEFAULT_CHECKPOINT = Path(__file__).resolve().parents[1] / "checkpoints" / "default.pt"



def default_agent_spec() -> str:
    """The shipped trained agent when present, else the rule player."""
    if DEFAULT_CHECKPOINT.is_file():
        return str(DEFAULT_CHECKPOINT)
    return "rule"


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="play.py", description="Play Tarneeb against the computer (you are seat 0).")
    p.add_argument("--partner", metavar="SPEC", help="agent at seat 2 (default: the shipped agent, else rule)")
    p.add_argument("--opponents", metavar="SPEC", help="agent at seats 1 and 3 (default: as for --partner)")
    p.add_argument("--rules", default="classic", metavar="PRESET|FILE.yaml", help="rule preset or YAML file")
    p.add_argument("--target", type=int, metavar="N", help="points to win (overrides the rules' target_score)")
    p.add_argument("--seed", type=int, metavar="S", help="seed for the deals and the computer players")
    p.add_argument("--delay", type=float, default=0.6, metavar="SECONDS", help="pause before each computer move")
    p.add_argument("--save-dir", metavar="DIR", help="save each deal's record as JSON here")
    p.add_argument("--replay", metavar="FILE", help="show a saved deal trick by trick, then exit")
    p.add_argument("--web", action="store_true", help="play in the browser instead (python -m playing.web -h)")
    return p


def main(argv: Optional[list[str]] = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if "--web" in argv:  # the web table takes the same options and some of its own
        from .web.cli import main as web_main

        return web_main([a for a in argv if a != "--web"])
    parser = build_parser()
    args = parser.parse_args(argv)
    import torch

    torch.set_num_threads(1)  # one decision at a time: extra threads only add latency on a busy machine
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="replace")  # a terminal that cannot show a glyph gets '?', not a crash
    if hasattr(sys.stdin, "reconfigure"):
        sys.stdin.reconfigure(errors="surrogateescape")  # undecodable bytes reach the input reader, which refuses them
    console = Console(highlight=False)
    if args.delay < 0:
        parser.error(f"--delay: must be 0 or more, got {args.delay}")
    if args.replay:
        return replay(args.replay, console, args.delay)
    if args.seed is None:
        args.seed = int(np.random.SeedSequence().generate_state(1)[0])
    elif args.seed < 0:
        parser.error(f"--seed: must be 0 or more, got {args.seed}")
    try:
        rules = make_rules(args.rules)
        if args.target is not None:
            rules = dataclasses.replace(rules, target_score=args.target)
    except ValueError as e:
        parser.error(str(e))
    rules_label = Path(args.rules).name if args.rules.endswith((".yaml", ".yml")) else args.rules
    if args.save_dir:
        try:
            os.makedirs(args.save_dir, exist_ok=True)
        except OSError as e:
            parser.error(f"--save-dir: cannot create {args.save_dir}: {e.strerror}")
    default = default_agent_spec()
    if default == str(DEFAULT_CHECKPOINT) and not (args.partner and args.opponents):
        try:
            agents.load(default)
        except _LOAD_ERRORS as e:
            default = "rule"
            console.print(Text(f"Cannot load the shipped agent ({e}); playing with {default!r} instead.", "yellow"))
    partner = args.partner or default
    opponents = args.opponents or default
    try:
        game = TerminalGame(console, rules, rules_label, [None, opponents, partner, opponents], args.seed,
                            args.delay, args.save_dir)
    except _LOAD_ERRORS as e:
        parser.error(f"--partner/--opponents: {e}")
    try:
        return game.run()
    except KeyboardInterrupt:
        console.print("\nYou left the game.")
        return 130
