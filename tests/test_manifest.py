"""checkpoints/MANIFEST.yaml lists every shipped file with its current sha256, configs that exist, and figures measured
on the held-out deals (#48: choices are made on the selection deals, figures reported on others)."""
from __future__ import annotations

import shlex
from pathlib import Path

from agents.checkpoint import sha256_file
from agents.shipped import SHIPPED_DIR, manifest
from evaluation import deal_set_of

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


def test_every_figure_is_measured_on_the_held_out_deals():
    for name, entry in manifest().items():
        for fig in entry["figures"]:
            words = shlex.split(fig["command"])
            if "--deal-set" in words:
                deal_set = words[words.index("--deal-set") + 1]
            else:  # a seed names the deals; no seed is seed 0, in no named set
                deal_set = deal_set_of(int(words[words.index("--seed") + 1]) if "--seed" in words else 0)
            assert fig.get("deal_set") == deal_set == "heldout", (name, fig)
            bootstrap = "--ci" in words and words[words.index("--ci") + 1] == "bootstrap"
            assert bootstrap == (fig.get("ci") == "bootstrap"), (name, fig)  # the interval's method as measured
