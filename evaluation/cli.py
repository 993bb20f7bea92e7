"""``evaluate.py`` / ``tarneeb-evaluate``: the command line over :func:`evaluation.round_robin`."""
from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import Optional

import agents
from agents.checkpoint import CheckpointError
from agents.rules_check import warnings_in_one_line
from tarneeb_env import IllegalActionError

from .info import checkpoint_info, format_info
from .deals import DEAL_SETS, deal_set_seed
from .match import EvaluationInputError, round_robin
from .report import _print_match, _print_round_robin
from .stats import CI_METHODS


def _int_at_least(low: int):
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be at least {low}, got {value}")
        return value

    return parse


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="evaluate.py",
        description="Duplicate evaluation: each deal is played twice with the same cards and dealer, the agents "
        "swapping seats; the margin is A's net score per deal. With more than two agents: a round robin.",
    )
    p.add_argument("agents", nargs="*", metavar="AGENT",
                   help="agent spec: built-in name, checkpoint .pt, file.py:Name or module:Name (two or more)")
    p.add_argument("--info", metavar="FILE.pt", help="print how checkpoint FILE.pt was made (its provenance, and "
                   "the MANIFEST.yaml entry of a shipped file) and exit")
    p.add_argument("--deals", type=_int_at_least(1), default=2000, help="duplicate deals per pair (default 2000)")
    p.add_argument("--rules", default=None, help="preset name or rules .yaml file (default: the rules the first "
                   "checkpoint among the agents was trained for, else classic)")
    p.add_argument("--seed", type=_int_at_least(0), default=None,
                   help="names the deals (default 0, or the --deal-set's first seed)")
    sets = "; ".join(s.describe() for s in DEAL_SETS.values())
    p.add_argument("--deal-set", choices=tuple(DEAL_SETS), default=None,
                   help=f"a named deal set: {sets}. Choose on selection, report on heldout; with --seed, the seed "
                   "must lie in the set")
    p.add_argument("--workers", type=_int_at_least(1), default=1, help="parallel processes (default 1)")
    p.add_argument("--games", type=_int_at_least(0), default=0, help="also play this many whole games per pair")
    p.add_argument("--ci", choices=tuple(CI_METHODS), default="normal",
                   help="margin interval: normal approximation (default) or a seeded BCa bootstrap, for the "
                   "100-400-deal matches")
    p.add_argument("--out", help="write the results as JSON here")
    p.add_argument("--records", help="write every hand record as JSONL here")
    return p


def _check_writable(path: Optional[str], flag: str) -> None:
    if path is None:
        return
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise EvaluationInputError(f"{flag}: folder {folder} does not exist")
    if os.path.isdir(path):
        raise EvaluationInputError(f"{flag}: {path} is a folder")


def _files_named(specs: Sequence[str], rules: str) -> dict[str, str]:
    """The checkpoint file each spec that is a name for one (``ppo``) stands for under ``rules``."""
    named = {}
    for spec in dict.fromkeys(specs):
        try:
            path, _ = agents.resolve(spec, rules)
        except ValueError as e:  # no agent shipped for these rules, or a bad rules file
            raise EvaluationInputError(str(e)) from None
        if path != spec.removesuffix(agents.ANY_RULES):
            named[spec] = os.path.relpath(path)
    return named


def _checkpoint_path(spec: str) -> Optional[str]:
    """The file a spec names when it is a checkpoint of the user's (not ``ppo``, not ``?rules=any``)."""
    return spec if spec.endswith(".pt") and os.path.isfile(spec) else None


def _rules_of(path: str):
    from agents.checkpoint import checkpoint_rules, load_checkpoint

    return checkpoint_rules(load_checkpoint(path), path)


def _game_rules(args: argparse.Namespace) -> tuple[object, str]:
    """The rules to play (``--rules``, else the first checkpoint's, else classic) and how they were chosen, for
    the report's header."""
    from tarneeb_env import make_rules

    if args.rules is not None:
        try:
            return make_rules(args.rules), ""
        except ValueError as e:
            raise EvaluationInputError(f"--rules: {e}") from None
    for spec in args.agents:
        path = _checkpoint_path(spec)
        if path is not None:
            return _rules_of(path), f"from {path}; --rules to choose"
    return make_rules("classic"), ""


def _check_checkpoint_rules(specs: Sequence[str], rules, chosen: bool) -> None:
    """A checkpoint trained for other rules than the game's is refused naming ``--rules`` first: most often the
    fix is to play under its rules, not to force it (``?rules=any``) to play under others."""
    from agents.rules_check import ANY_RULES, _label, differing_fields

    for spec in specs:
        path = _checkpoint_path(spec)
        if path is None:
            continue
        own = _rules_of(path)
        diff = differing_fields(own, rules)
        if diff:
            label = _label(own)
            fix = f"--rules {label}" if label != "custom" else "--rules FILE.yaml with its rules (see --info)"
            game = f"--rules {_label(rules)}" if chosen else f"rules {_label(rules)} (from the first checkpoint)"
            raise EvaluationInputError(
                f"{path} was trained for rules {label}, but the game is played under {game} (they differ in "
                f"{', '.join(diff)}): give {fix} to play under its rules, or append {ANY_RULES} to the spec to "
                f"play it under {_label(rules)} anyway")


def _print_info(path: str) -> int:
    try:
        text = format_info(checkpoint_info(path))
    except CheckpointError as e:
        print(f"evaluate.py: error: --info: {e}", file=sys.stderr)
        return 2
    except RecursionError:  # plain data nested deeper than any file train.py writes: a crafted file
        print(f"evaluate.py: error: --info: {path}: its records are nested too deeply to be a file train.py wrote",
              file=sys.stderr)
        return 2
    print(text, end="")
    return 0


def _seed(args: argparse.Namespace) -> int:
    """The seed of the deals: ``--seed``, checked against ``--deal-set`` when both are given."""
    if args.deal_set is None:
        return 0 if args.seed is None else args.seed
    try:
        return deal_set_seed(args.deal_set, args.seed)
    except ValueError as e:
        raise EvaluationInputError(f"--seed: {e}") from None


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.info is not None:
        if args.agents:
            parser.error("--info prints one checkpoint's provenance; give no agents with it")
        return _print_info(args.info)
    if len(args.agents) < 2:
        parser.error("give at least two agents")
    import torch

    torch.set_num_threads(1)  # batched inference of a small MLP; more threads only oversubscribe shared cores
    try:
        _check_writable(args.out, "--out")
        _check_writable(args.records, "--records")
        seed = _seed(args)
        rules, rules_note = _game_rules(args)
        _check_checkpoint_rules(args.agents, rules, chosen=args.rules is not None)
        named = _files_named(args.agents, rules)
        for spec, path in named.items():  # before a long run starts: which file `ppo` stands for
            print(f"{spec} is {path}", flush=True)
        with warnings_in_one_line("evaluate.py"):  # e.g. an agent played under other rules (?rules=any)
            rr = round_robin(args.agents, deals=args.deals, seed=seed, rules=rules, workers=args.workers,
                             games=args.games, records=bool(args.records), progress=True, ci=args.ci)
    except (EvaluationInputError, CheckpointError) as e:
        print(f"evaluate.py: error: {e}", file=sys.stderr)
        return 2
    except IllegalActionError as e:  # an agent broke the rules: its name, the action and the legal ones
        print(f"evaluate.py: error: {e}", file=sys.stderr)
        return 1
    except agents.EngineError as e:  # an external engine failed before a deal was finished
        print(f"evaluate.py: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("evaluate.py: interrupted before a deal was finished; nothing to report", file=sys.stderr)
        return 130

    from rich.console import Console

    console = Console()
    if len(args.agents) == 2:
        _print_match(console, rr.pairs[0], rules_note)
        payload = {**rr.pairs[0].to_dict(), "complete": rr.complete}  # a round robin's to_dict carries it
    else:
        _print_round_robin(console, rr, rules_note)
        payload = rr.to_dict()
    if rr.fault is not None:
        played = (f"{rr.pairs[0].deals}" if len(args.agents) == 2
                  else ", ".join(f"{m.agents[0]} vs {m.agents[1]} {m.deals}" for m in rr.pairs))
        print(f"evaluate.py: error: {rr.fault} (the results above are over the deals finished before it: {played} "
              f"of {args.deals})", file=sys.stderr)
    elif not rr.complete:
        played = ", ".join(f"{m.agents[0]} vs {m.agents[1]} {m.deals}" for m in rr.pairs)
        print(f"evaluate.py: interrupted: the results above are over the deals finished ({played} of "
              f"{args.deals}), the same deals as a run with that --deals", file=sys.stderr)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump(payload, f, indent=2)
    if args.records:
        with open(args.records, "w", encoding="utf-8") as f:
            for m in rr.pairs:
                for rec in m.records:
                    f.write(json.dumps(rec) + "\n")
    return 0 if rr.complete else 2 if rr.fault is not None else 130


if __name__ == "__main__":
    sys.exit(main())
