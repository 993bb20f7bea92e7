"""``python -m playing.web`` / ``python play.py --web``: start the web table on 127.0.0.1 and print its address."""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import Optional

import numpy as np

import agents
from tarneeb_env import Rules
from tarneeb_env.rules import PRESETS

from ..table_setup import default_agent_spec, rules_of
from ..terminal import spec_label
from .levels import DEFAULT_OPPONENTS, DEFAULT_PARTNER, LEVEL_SPECS, LEVELS, level_of
from .serving import allowed_hosts, check_port, listen, need_web_extra, serve
from .session import ServerConfig


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m playing.web",
                                description="Play Tarneeb in the browser, replay hand records, take the duplicate challenge.")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1; 0.0.0.0 opens the table, which has no login, "
                        "to the whole network)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000; 0 picks a free one)")
    p.add_argument("--rules", default="classic", metavar="PRESET|FILE.yaml", help="rule preset or YAML file")
    p.add_argument("--target", type=int, metavar="N", help="points to win (overrides the rules' target_score)")
    p.add_argument("--partner", metavar="LEVEL|SPEC",
                   help=f"the partner's level ({', '.join(LEVELS)}; default {DEFAULT_PARTNER}, else club where no "
                        "network is trained for the rules) or an agent spec")
    p.add_argument("--opponents", metavar="LEVEL|SPEC", help=f"the opponents' level or spec (default {DEFAULT_OPPONENTS}, "
                                                             "as for --partner)")
    p.add_argument("--agents", metavar="SPEC,SPEC", default="",
                   help="more agent specs the page may choose besides the levels, shown by their spec (the list is "
                        "fixed here; the page never names code)")
    p.add_argument("--replay-dir", metavar="DIR", help="offer the .json/.jsonl hand records under DIR for replay")
    p.add_argument("--delay", type=float, default=0.6, metavar="SECONDS", help="pause before each computer move")
    p.add_argument("--seed", type=int, metavar="S", help="seed for the deals, the challenge's deal set and the agents")
    p.add_argument("--deals", type=int, default=8, metavar="N", help="deals in the duplicate challenge (default 8)")
    p.add_argument("--challenge-seed", type=int, metavar="N",
                   help="one named deal set (evaluate.py's deals of seed N) for every challenge, to compare people; "
                        "by default each challenge draws its own set, told when it is over")
    return p


def default_spec(rules: Rules, rules_label: str) -> str:
    """The shipped agent trained for ``rules`` (as at the terminal), else ``rule``, saying why."""
    spec, note = default_agent_spec(rules, rules_label)
    if note:
        print(note)
    return spec


def allowed_agents(specs: list[str]) -> dict[str, str]:
    """Key (as the page shows it) -> spec, in order, each spec once; keys made unique with ``-2``, ``-3``."""
    allowed: dict[str, str] = {}
    for spec in specs:
        if spec in allowed.values():
            continue
        key, n = spec_label(spec), 2
        while key in allowed:
            key, n = f"{spec_label(spec)}-{n}", n + 1
        allowed[key] = spec
    return allowed


def check_options(args: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
    """The parser's one-line error for an option out of range; a missing ``--seed`` is drawn here."""
    if args.delay < 0:
        parser.error(f"--delay: must be 0 or more, got {args.delay}")
    if args.deals < 1:
        parser.error(f"--deals: must be at least 1, got {args.deals}")
    if args.seed is None:
        args.seed = int(np.random.SeedSequence().generate_state(1)[0])
    elif args.seed < 0:
        parser.error(f"--seed: must be 0 or more, got {args.seed}")
    if args.challenge_seed is not None and args.challenge_seed < 0:
        parser.error(f"--challenge-seed: must be 0 or more, got {args.challenge_seed}")
    check_port(parser, args.port)  # before the agents load
    if args.replay_dir and not Path(args.replay_dir).is_dir():
        parser.error(f"--replay-dir: {args.replay_dir} is not a directory")


def server_config(args: argparse.Namespace, parser: argparse.ArgumentParser) -> ServerConfig:
    """The rules, the players a page may choose and the defaults; each agent is loaded once here, so a bad
    spec is the parser's one-line error rather than a page's."""
    rules, rules_label = rules_of(args, parser)
    default = default_spec(rules, rules_label)
    extra = [s.strip() for s in args.agents.split(",") if s.strip()]
    chosen = [a for a in (args.partner, args.opponents) if a and a not in LEVELS]
    allowed = {**LEVEL_SPECS, **allowed_agents([s for s in [*chosen, *extra] if level_of(s) is None])}
    for spec in dict.fromkeys([*chosen, *extra]):
        try:
            agents.load(spec, rules=rules)  # refused when trained for other rules (unless ?rules=any)
        except (ValueError, OSError, RuntimeError, ImportError, KeyError) as e:
            parser.error(f"agent {spec!r}: {e}")
    key = {spec: k for k, spec in allowed.items()}
    fallback = "club" if default == "rule" else None  # no network for these rules: Strong and Master are not offered
    partner = key.get(args.partner, args.partner) if args.partner else fallback or DEFAULT_PARTNER
    opponents = key.get(args.opponents, args.opponents) if args.opponents else fallback or DEFAULT_OPPONENTS
    config = ServerConfig(rules, rules_label, allowed, partner, opponents, args.delay, args.seed, args.deals,
                          args.challenge_seed, tuple(PRESETS))
    for role, k in (("--partner", partner), ("--opponents", opponents)):
        if k not in config.offered(rules_label):
            parser.error(f"{role}: {k} cannot play under the rules {rules_label} (no network is trained for them)")
    return config


def main(argv: Optional[list[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    need_web_extra(parser, "the web table")
    from .app import create_app

    check_options(args, parser)
    config = server_config(args, parser)  # a bad agent is said whether or not the port is free
    sock, address = listen(parser, args.host, args.port)
    app = create_app(config, args.replay_dir, allowed_hosts=allowed_hosts(args.host))
    print(f"Tarneeb web table: {address}/")
    print(f"rules {config.rules_label} (target {config.rules.target_score}) · partner {config.partner} · opponents "
          f"{config.opponents} · seed {args.seed}"
          + ("" if args.challenge_seed is None else f" · challenge deal set {args.challenge_seed}"))
    print("players the page may choose: " + ", ".join(config.offered(config.rules_label)))
    serve(app, sock, args.host, "the table")
    return 0
