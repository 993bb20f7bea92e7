"""The levels a person picks for the computer players, each one fixed agent setting, and how strong each is.

A player chooses "Casual" or "Strong", not an agent spec: every level is the same spec under every preset
(``ppo`` and ``search`` resolve to the network trained for the rules in play), and its strength is the
held-out duplicate margin against ``rule`` (the Club level) measured under each preset, the commands and
intervals in docs/results.md ("Levels of the web table"). A level a preset has no trained network for
(Strong and Master under a custom rules file) is not offered under it; a figure not measured is ``None``
and the page says so rather than guess.
"""
from __future__ import annotations

from typing import Optional

LEVELS = ("beginner", "casual", "club", "strong", "master")  # weakest first
LEVEL_SPECS = {
    "beginner": "random",
    "casual": "casual",  # rule with half its cards careless (agents/casual_agent.py)
    "club": "rule",
    "strong": "ppo",  # the shipped network for the rules in play
    "master": "search",  # the network plus 64 sampled layouts a card: about 0.3 CPU s a searched card
}
DEFAULT_PARTNER = "strong"  # the best partner that answers at once; Master is offered, at a second a card
DEFAULT_OPPONENTS = "strong"

# Held-out margin against `rule` (Club) in points per deal: (mean, low, high, deals), 95% intervals, the held-out
# deal set (seed 1000001); docs/results.md "Levels of the web table" has the commands. None: not measured.
Figure = Optional[tuple[float, float, float, int]]
PRESET_NAMES = ("classic", "syrian41", "hearts41", "trump_by_card")
MEASURED: dict[str, dict[str, Figure]] = {
    "beginner": {"classic": (-21.18, -21.33, -21.02, 2000), "syrian41": (-33.04, -33.75, -32.34, 1000),
                 "hearts41": (-33.07, -33.79, -32.35, 1000), "trump_by_card": (-5.68, -5.84, -5.52, 2000)},
    "casual": {"classic": (-3.06, -3.36, -2.75, 1000), "syrian41": (-3.21, -3.53, -2.89, 1000),
               "hearts41": (-3.18, -3.48, -2.87, 1000), "trump_by_card": (-2.56, -2.78, -2.34, 1000)},
    "club": {p: (0.0, 0.0, 0.0, 0) for p in PRESET_NAMES},
    "strong": {"classic": (2.14, 2.03, 2.25, 10000), "syrian41": (1.31, 1.22, 1.40, 10000),
               "hearts41": (1.32, 1.23, 1.41, 10000), "trump_by_card": (1.00, 0.94, 1.06, 10000)},
    "master": {"classic": None, "syrian41": None, "hearts41": None, "trump_by_card": (1.58, 1.27, 1.91, 400)},
}
# Where the margin against Club does not settle the order, the margin against the level below, head to head on
# held-out deals, BCa bootstrap intervals (Master against Strong: classic 400 deals of seed 1000002; syrian41 80,
# hearts41 and trump_by_card 240 deals of seed 1000001).
AGAINST_BELOW: dict[str, dict[str, Figure]] = {
    "master": {"classic": (0.77, 0.43, 1.14, 400), "syrian41": (1.14, 0.57, 1.90, 80),
               "hearts41": (0.68, 0.35, 1.00, 240), "trump_by_card": (0.78, 0.43, 1.17, 240)},
}


def level_of(spec: str) -> Optional[str]:
    """The level whose spec ``spec`` is (``--partner rule`` seats Club), else None (a custom agent)."""
    for level, s in LEVEL_SPECS.items():
        if s == spec:
            return level
    return None
