"""The trained agents shipped in ``checkpoints/``, found by the rules they were trained for.

``checkpoints/<preset>.pt`` holds the agent for a preset (``classic.pt``, the self-play
league's; ``default.pt``, trained against ``rule`` alone, is the baseline it is measured
against and is seated only by its file name). A file is matched by the rules recorded in
it, not by its name, so a renamed or retrained file cannot be seated under the wrong rules.
"""
from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any, Optional

import yaml

from tarneeb_env import make_rules
from tarneeb_env.rules import RulesSpec

from .checkpoint import checkpoint_rules, load_checkpoint
from .rules_check import differing_fields

MANIFEST = "MANIFEST.yaml"  # how each shipped file was made (checkpoints/MANIFEST.yaml)
PACKAGE_DATA = "trained"  # the folder of ``agents`` a wheel installs the files into (pyproject.toml)


def _shipped_dir() -> Path:
    """``checkpoints/`` of the checkout this code runs from (what you see there is what is seated, installed
    or not); else, in an installed wheel, the copy it holds as package data, read through importlib.resources."""
    root = Path(__file__).resolve().parents[1]
    if (root / "pyproject.toml").is_file() and (root / "checkpoints").is_dir():
        return root / "checkpoints"
    return Path(str(resources.files(__package__) / PACKAGE_DATA))


SHIPPED_DIR = _shipped_dir()


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


def manifest() -> dict[str, Any]:
    """``checkpoints/MANIFEST.yaml``: file name -> sha256, config, command, seeds, minutes, decisions, figures."""
    path = SHIPPED_DIR / MANIFEST
    if not path.is_file():
        return {}
    with open(path, encoding="utf-8") as f:
        return yaml.safe_load(f) or {}


def manifest_entry(sha256: str) -> Optional[tuple[str, dict[str, Any]]]:
    """The manifest's ``(name, entry)`` for the file whose content hashes to ``sha256``, if it is listed."""
    for name, entry in manifest().items():
        if isinstance(entry, dict) and entry.get("sha256") == sha256:
            return name, entry
    return None
