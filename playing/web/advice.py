"""The Hint: the strong player's choice for the person's seat, and the numbers behind it.

With a network for the rules, :func:`agents.explain.explain` gives the network's probabilities over the
legal actions and, from ``HINT_SAMPLES`` sampled layouts of the unseen cards, each candidate's mean points
for the person's side and the chance to make (or set) the contract, with what the table knows (voids,
trumps out, tricks needed). Without one (a custom rules file) it is ``rule``'s choice and its rule of
thumb. The page words all of it in the person's language from the numbers; nothing here is English prose
except ``rule``'s reason.
"""
from __future__ import annotations

from typing import Any

from agents.base import Agent
from agents.model import PolicyAgent
from tarneeb_env import PlayerView
from tarneeb_env.cards import action_str

HINT_SAMPLES = 16  # layouts per Hint: its numbers in well under a second on one core (docs/web.md)


def advise(view: PlayerView, player: Agent, seed: int) -> dict[str, Any]:
    """``{"action", "name", "by", ...}``: ``advice`` (explain's dict) from a network, else ``reason``."""
    if isinstance(player, PolicyAgent):
        from agents.explain import explain

        advice = explain(view, view.rules, samples=HINT_SAMPLES, seed=seed, network=player)
        return {"action": int(advice.action), "name": action_str(advice.action), "by": "network",
                "advice": advice.to_dict()}
    action, reason = player.explain(view)
    return {"action": int(action), "name": action_str(action), "by": "rule", "reason": reason}
