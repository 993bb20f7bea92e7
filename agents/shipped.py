"""The trained agents shipped in ``checkpoints/``, found by the rules they were trained for.

``checkpoints/<preset>.pt`` holds the agent for a preset (``classic.pt``, the self-play
league's; ``default.pt``, trained against ``rule`` alone, is the baseline it is measured
against and is seated only by its file name). A file is matched by the rules recorded in
it, not by its name, so a renamed or retrained file cannot be seated under the wrong rules.
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional

from tarneeb_env import make_rules
from tarneeb_env.rules import RulesSpec

from .checkpoint import checkpoint_rules, load_checkpoint
from .rules_check import differing_fields

SHIPPED_DIR = Path(__file__).resolve().parents[1] / "checkpoints"


def shipped_checkpoint(rules: RulesSpec) -> Optional[str]:
    """Path of the shipped checkpoint trained for ``rules`` (``<preset>.pt`` first), or None when none is.

    A damaged shipped file raises :class:`~agents.checkpoint.CheckpointError`
    rather than being passed over in silence.
    """
    rules = make_rules(rules)
    candidates = sorted(SHIPPED_DIR.glob("*.pt"), key=lambda p: (p.stem != rules.name, p.name))
    for path in candidates:
        if not differing_fields(checkpoint_rules(load_checkpoint(str(path)), str(path)), rules):
            return str(path)
    return None
