"""``python -m playing.web`` / ``python play.py --web``: start the web table on 127.0.0.1 and print its address."""
from __future__ import annotations

import argparse
import ipaddress
import socket
from pathlib import Path
from typing import Optional

import numpy as np

import agents
from tarneeb_env import Rules

from ..table_setup import default_agent_spec, rules_of
from ..terminal import spec_label
from .session import ServerConfig

BUILTIN_CHOICES = ("rule", "random")  # always offered besides the defaults and --agents


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m playing.web",
                                description="Play Tarneeb in the browser, replay hand records, take the duplicate challenge.")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1; 0.0.0.0 opens the table, which has no login, "
                        "to the whole network)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000; 0 picks a free one)")
    p.add_argument("--rules", default="classic", metavar="PRESET|FILE.yaml", help="rule preset or YAML file")
    p.add_argument("--target", type=int, metavar="N", help="points to win (overrides the rules' target_score)")
    p.add_argument("--partner", metavar="SPEC", help="agent at seat 2 (default: the shipped agent for classic "
                                                     "rules, rule for the others)")
    p.add_argument("--opponents", metavar="SPEC", help="agent at seats 1 and 3 (default: as for --partner)")
    p.add_argument("--agents", metavar="SPEC,SPEC", default="",
                   help="more agent specs the page may choose from (the list is fixed here; the page never names code)")
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


def _is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def main(argv: Optional[list[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        import uvicorn

        from .app import create_app
    except ImportError as e:
        parser.error(f"the web table needs the web extra ({e.name} is missing): pip install -e '.[web]'")
    import torch

    torch.set_num_threads(1)  # one decision at a time: extra threads only add latency
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
    if not 0 <= args.port < 65536:
        parser.error(f"--port: must be 0..65535, got {args.port}")
    if args.replay_dir and not Path(args.replay_dir).is_dir():
        parser.error(f"--replay-dir: {args.replay_dir} is not a directory")
    rules, rules_label = rules_of(args, parser)
    default = default_spec(rules, rules_label)
    partner, opponents = args.partner or default, args.opponents or default
    extra = [s.strip() for s in args.agents.split(",") if s.strip()]
    searched = ("search",) if default != "rule" else ()  # the shipped network with search, where one is shipped
    allowed = allowed_agents([partner, opponents, default, *BUILTIN_CHOICES, *searched, *extra])
    for spec in allowed.values():
        try:
            agents.load(spec, rules=rules)  # refused when trained for other rules (unless ?rules=any)
        except (ValueError, OSError, RuntimeError, ImportError, KeyError) as e:
            parser.error(f"agent {spec!r}: {e}")
    key = {spec: k for k, spec in allowed.items()}
    config = ServerConfig(rules, rules_label, allowed, key[partner], key[opponents], args.delay, args.seed, args.deals,
                          args.challenge_seed)
    try:
        sock = socket.create_server((args.host, args.port))
    except OSError as e:
        parser.error(f"cannot listen on {args.host}:{args.port}: {e.strerror or e}")
    host, port = sock.getsockname()[:2]
    loopback = _is_loopback(args.host)
    app = create_app(config, args.replay_dir, allowed_hosts=("127.0.0.1", "localhost", "[::1]") if loopback else ("*",))
    shown = f"[{host}]" if ":" in host else host
    print(f"Tarneeb web table: http://{'127.0.0.1' if host == '0.0.0.0' else shown}:{port}/")
    print(f"rules {rules_label} (target {rules.target_score}) · partner {key[partner]} · opponents {key[opponents]}"
          f"{' (the default for these rules)' if default in (partner, opponents) else ''} · seed {args.seed}"
          + ("" if args.challenge_seed is None else f" · challenge deal set {args.challenge_seed}"))
    print("agents the page may choose: " + ", ".join(allowed))
    if not loopback:
        print(f"WARNING: listening on {args.host}: anyone who can reach this machine can use the table (no login).")
    print("Ctrl-C stops the server.", flush=True)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    return 0
