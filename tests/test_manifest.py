"""checkpoints/MANIFEST.yaml lists every shipped file with its current sha256 and configs that exist."""
from __future__ import annotations

import shlex
from pathlib import Path

from agents.checkpoint import sha256_file
from agents.shipped import SHIPPED_DIR, manifest

ROOT = Path(__file__).resolve().parents[1]
FIELDS = {"sha256", "rules", "made_by", "config", "command", "seeds", "minutes", "decisions", "figures"}


def test_every_shipped_file_is_listed_with_its_sha256():
    entries = manifest()
    assert sorted(entries) == sorted(p.name for p in SHIPPED_DIR.glob("*.pt"))
    for name, entry in entries.items():
        assert FIELDS <= set(entry), (name, FIELDS - set(entry))
        assert entry["sha256"] == sha256_file(str(SHIPPED_DIR / name)), f"{name}: retrained? update its sha256"


def test_every_named_config_exists_and_every_figure_has_its_command():
    for name, entry in manifest().items():
        for key in ("config", "recipe"):
            if key in entry:
                assert (ROOT / entry[key]).is_file(), (name, entry[key])
        assert shlex.split(entry["command"])[:2] == ["python", "train.py"]
        for fig in entry["figures"]:
            words = shlex.split(fig["command"])
            assert words[:2] == ["python", "evaluate.py"] and "--deals" in words, (name, fig)
            assert str(fig["deals"]) == words[words.index("--deals") + 1], (name, fig)
            assert fig["ci95"][0] <= fig["margin"] <= fig["ci95"][1], (name, fig)
