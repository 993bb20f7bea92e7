"""The Hint: the strong player's choice for the person's seat, and the numbers behind it (the web table, the
terminal game and the advisor terminal).

With a network trained for the rules, :func:`agents.explain.explain` with ``DEFAULT_SAMPLES`` layouts: its
action is what ``search`` (the Master level) plays there, within about a CPU second; the numbers are the
network's probability for every legal action and, for the reasonable ones, the mean net points for the
person's side and the chance to make (or set) the contract over the sampled layouts of the unseen cards,
with what the table knows (voids, trumps out, tricks needed; for a bid, the side's tricks in each strain).
Without one (a custom rules file) it is ``rule``'s choice and its rule of thumb, sent in English (``reason``)
and as a key of :data:`playing.messages.MESSAGES` (``reason_key``). The web page words all of it in the person's
language from the numbers and keys; the terminal game and ``tarneeb-advise`` print it as text (:func:`advice_lines`).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional, Union

import agents
from agents import RuleAgent
from agents.base import Agent
from tarneeb_env import PlayerView, Rules
from tarneeb_env.cards import action_str

from .messages import MESSAGES

if TYPE_CHECKING:
    from agents.explain import Advice

SHOWN = 4  # candidates printed with their numbers

REASON_KEYS = {text: key for key, text in MESSAGES.items() if key.startswith("reason.")}  # rule's words -> key


def strong_player(rules: Rules, seed: int) -> Agent:
    """The strongest player that answers at once for ``rules``: the shipped network, else ``rule`` (a rules
    file no network is trained for). The Hint and the post-hand review speak for it."""
    try:
        return agents.load("ppo", rules=rules, seed=seed)
    except (ValueError, OSError, RuntimeError, ImportError, KeyError):
        return agents.RuleAgent(seed=seed)


def hint(view: PlayerView, player: Agent, seed: int, samples: Optional[int] = None) -> Union["Advice", tuple[int, str]]:
    """The Hint of :func:`strong_player` ``player``: explain's :class:`~agents.explain.Advice` over ``samples``
    layouts (by default explain's ``DEFAULT_SAMPLES``) where it is a network, else ``rule``'s (action, reason)."""
    if isinstance(player, RuleAgent):
        return player.explain(view)
    from agents.explain import DEFAULT_SAMPLES, explain

    return explain(view, samples=DEFAULT_SAMPLES if samples is None else samples, seed=seed)


def advise(view: PlayerView, player: Agent, seed: int, samples: Optional[int] = None) -> dict[str, Any]:
    """The :func:`hint` for the page: ``{"action", "name", "by", ...}`` with ``advice`` (explain's dict) from a
    network, else ``reason`` and ``reason_key`` (``rule``'s)."""
    got = hint(view, player, seed, samples)
    if isinstance(got, tuple):
        action, reason = got
        return {"action": int(action), "name": action_str(action), "by": "rule", "reason": reason,
                "reason_key": REASON_KEYS.get(reason)}
    return {"action": int(got.action), "name": action_str(got.action), "by": "network", "advice": got.to_dict()}


def advice_lines(view: PlayerView, advice: "Advice", how: str) -> list[str]:
    """``advice`` as text: the choice (``how`` says by what), then the likeliest candidates with the network's
    probability and, where layouts were played out, the side's mean net points and its chance to make (declaring)
    or set the contract; for a bid, the side's tricks by trump."""
    lines = [f"{advice.label}   ({how})"]
    goal = "make" if view.declarer is None or view.declarer & 1 == view.team else "set"
    for c in advice.candidates[:SHOWN]:
        line = f"  {c.label:<8}{100 * c.prob:5.1f}%"
        if c.mean_points is not None:
            line += f"   {c.mean_points:+6.1f} points"
            if c.make_chance is not None:
                line += f"   {goal} {100 * c.make_chance:3.0f}%"
        lines.append(line)
    if advice.facts.strain_tricks:
        tricks = "  ".join(f"{s} {t:.1f}" for s, t in advice.facts.strain_tricks.items())
        lines.append(f"  your side's tricks by trump: {tricks}")
    return lines
