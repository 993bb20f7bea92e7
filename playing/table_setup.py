"""The rules and agents a table is set up with, for both command lines (terminal ``playing.cli`` and browser
``playing.web.cli``): one home, so neither imports the other."""
from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path
from typing import Optional

import agents
from agents.shipped import shipped_checkpoint
from tarneeb_env import Rules, make_rules

from .terminal import _LOAD_ERRORS


def rules_of(args: argparse.Namespace, parser: argparse.ArgumentParser) -> tuple[Rules, str]:
    """The rules of ``--rules`` (a preset or a YAML file) with ``--target``, and the label shown for them;
    a bad value is the parser's one-line error."""
    try:
        rules = make_rules(args.rules)
        if args.target is not None:
            rules = dataclasses.replace(rules, target_score=args.target)
    except ValueError as e:
        parser.error(str(e))
    return rules, Path(args.rules).name if args.rules.endswith((".yaml", ".yml")) else args.rules


def default_agent_spec(rules: Rules, rules_label: str) -> tuple[str, Optional[str]]:
    """The shipped agent trained for ``rules``, else ``rule`` and the line that tells the player why."""
    try:
        path = shipped_checkpoint(rules)
        if path is not None:
            agents.load(path, rules=rules)
            return path, None
    except _LOAD_ERRORS as e:
        return "rule", f"Cannot load the shipped agent ({e}); playing with 'rule' instead."
    return "rule", f"No shipped agent is trained for rules {rules_label}; playing 'rule' instead."


def seat_spec(spec: str, rules: Rules) -> str:
    """Load ``spec`` for ``rules`` (refused when made for other rules; warned with ?rules=any) and give the
    concrete spec the game seats (``ppo`` as its checkpoint path)."""
    agents.load(spec, rules=rules)
    return agents.resolve(spec, rules)[0]
