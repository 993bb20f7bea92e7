"""The Hint: the strong player's choice for the person's seat, and the numbers behind it.

With a network trained for the rules, :func:`agents.explain.explain` with ``DEFAULT_SAMPLES`` layouts: its
action is what ``search`` (the Master level) plays there, within about a CPU second; the numbers are the
network's probability for every legal action and, for the reasonable ones, the mean net points for the
person's side and the chance to make (or set) the contract over the sampled layouts of the unseen cards,
with what the table knows (voids, trumps out, tricks needed; for a bid, the side's tricks in each strain).
Without one (a custom rules file) it is ``rule``'s choice and its rule of thumb, sent in English (``reason``)
and as a key of :data:`playing.messages.MESSAGES` (``reason_key``). The page words all of it in the person's
language from the numbers and keys.
"""
from __future__ import annotations

from typing import Any, Optional

from agents import RuleAgent
from agents.base import Agent
from tarneeb_env import PlayerView
from tarneeb_env.cards import action_str

from ..messages import MESSAGES

REASON_KEYS = {text: key for key, text in MESSAGES.items() if key.startswith("reason.")}  # rule's words -> key


def advise(view: PlayerView, player: Agent, seed: int, samples: Optional[int] = None) -> dict[str, Any]:
    """``{"action", "name", "by", ...}``: ``advice`` (explain's dict, over ``samples`` layouts, by default
    explain's ``DEFAULT_SAMPLES``) where ``player`` is a network, else ``reason`` and ``reason_key`` (``rule``'s)."""
    if isinstance(player, RuleAgent):
        action, reason = player.explain(view)
        return {"action": int(action), "name": action_str(action), "by": "rule", "reason": reason,
                "reason_key": REASON_KEYS.get(reason)}
    from agents.explain import DEFAULT_SAMPLES, explain

    advice = explain(view, samples=DEFAULT_SAMPLES if samples is None else samples, seed=seed)
    return {"action": int(advice.action), "name": action_str(advice.action), "by": "network",
            "advice": advice.to_dict()}
