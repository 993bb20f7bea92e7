"""Whether an agent was made for the rules in play: one check for every place that seats an agent.

An agent trained under one rule set plays another badly without a word (the
classic-trained shipped agent bids 7 in every seat under ``syrian41``), so an
agent whose ``.rules`` differ from the game's is refused, unless its spec ends
in ``?rules=any``: then it plays, with one :class:`RulesOverrideWarning`.
``target_score`` is not compared: it ends the game but does not change how a
deal is bid or played.
"""
from __future__ import annotations

import contextlib
import dataclasses
import sys
import warnings
from typing import Any, Optional

from tarneeb_env import Rules

ANY_RULES = "?rules=any"
_IGNORED = ("target_score",)


class RulesMismatchError(ValueError):
    """An agent made for other rules than the game's; the message says how to play it anyway."""


class RulesOverrideWarning(UserWarning):
    """An agent made for other rules plays because its spec asked so (``?rules=any``)."""


def differing_fields(a: Rules, b: Rules) -> list[str]:
    """The rule fields (other than ``target_score``) in which ``a`` and ``b`` differ."""
    return [f.name for f in dataclasses.fields(Rules)
            if f.name not in _IGNORED and getattr(a, f.name) != getattr(b, f.name)]


def _label(rules: Rules) -> str:
    for name in (rules.name, dataclasses.replace(rules, target_score=31).name):
        if name != "custom":
            return name
    return "custom"


def check_rules(agent: Any, rules: Optional[Rules], name: str, allow_other: bool = False) -> Any:
    """``agent`` if its ``.rules`` (None: any rules) fit ``rules`` (None: not checked); else refuse or warn."""
    own = getattr(agent, "rules", None)
    if rules is None or own is None:
        return agent
    diff = differing_fields(own, rules)
    if not diff:
        return agent
    what = (f"agent {name!r} was trained for rules {_label(own)}, but the game's rules are {_label(rules)} "
            f"(they differ in {', '.join(diff)})")
    if not allow_other:
        raise RulesMismatchError(f"{what}; pick an agent trained for these rules (or 'rule'), or append "
                                 f"{ANY_RULES} to the spec to play it anyway")
    warnings.warn(f"{what}; it plays anyway ({ANY_RULES}), expect weak play", RulesOverrideWarning, stacklevel=3)
    return agent


@contextlib.contextmanager
def warnings_in_one_line(prog: str):
    """In a command line, each distinct warning (e.g. an override) is one ``prog: warning: ...`` line on stderr,
    once, however many places load the agent; not Python's file, line number and source text."""
    said: set[str] = set()

    def show(message, *_args, **_kwargs) -> None:
        if str(message) not in said:
            said.add(str(message))
            print(f"{prog}: warning: {message}", file=sys.stderr)

    with warnings.catch_warnings():
        warnings.showwarning = show
        yield
