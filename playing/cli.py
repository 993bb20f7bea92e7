"""``play.py`` / ``tarneeb-play``: the command line of the terminal game and the replay."""
from __future__ import annotations

import argparse
import os
import sys
import warnings
from typing import Optional

import numpy as np
from rich.console import Console
from rich.text import Text

import agents

from .records import replay
from .table_setup import default_agent_spec, rules_of, seat_spec
from .terminal import _LOAD_ERRORS, TerminalGame


def _error(message: str) -> int:
    """A bad agent (spec, file or rules) in one line, exit 2: the usage text would only bury it."""
    print(f"play.py: error: {message}", file=sys.stderr)
    return 2


def _web_options() -> str:
    """The web table's own options, listed under ``play.py --help`` (``--web`` passes them on)."""
    from .web.cli import build_parser as web_parser

    own = {"--partner", "--opponents", "--rules", "--target", "--seed", "--delay"}
    lines, keep = [], False
    for line in web_parser().format_help().split("options:", 1)[1].splitlines():
        if line.startswith("  -"):
            keep = line.split()[0].rstrip(",") not in own | {"-h"}
        if keep:
            lines.append(line)
    return "with --web (the table in the browser; also --partner/--opponents LEVEL, --rules, --target, --seed,\n" \
           "--delay as above):\n" + "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="play.py", description="Play Tarneeb against the computer (you are seat 0).",
                                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=_web_options())
    p.add_argument("--partner", metavar="SPEC",
                   help="agent at seat 2 (default: the shipped agent trained for --rules, else rule)")
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
    rules, rules_label = rules_of(args, parser)
    if args.save_dir:
        try:
            os.makedirs(args.save_dir, exist_ok=True)
        except OSError as e:
            parser.error(f"--save-dir: cannot create {args.save_dir}: {e.strerror}")
    seated = {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", agents.RulesOverrideWarning)
        for flag, given in (("--partner", args.partner), ("--opponents", args.opponents)):
            if given:
                try:
                    seated[flag] = seat_spec(given, rules)
                except _LOAD_ERRORS as e:
                    return _error(f"{flag}: {e}")
    for message in dict.fromkeys(str(w.message) for w in caught):
        console.print(Text(f"Warning: {message}.", "yellow"))
    if len(seated) < 2:
        default, note = default_agent_spec(rules, rules_label)
        if note:
            console.print(Text(note, "yellow"))
        seated = {"--partner": default, "--opponents": default, **seated}
    partner, opponents = seated["--partner"], seated["--opponents"]
    try:
        game = TerminalGame(console, rules, rules_label, [None, opponents, partner, opponents], args.seed,
                            args.delay, args.save_dir)
    except _LOAD_ERRORS as e:
        return _error(f"--partner/--opponents: {e}")
    try:
        return game.run()
    except agents.EngineError as e:  # an external engine at the table failed: its line, no traceback
        return _error(str(e))
    except KeyboardInterrupt:
        console.print("\nYou left the game.")
        return 130
