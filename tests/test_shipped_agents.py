"""Every file in checkpoints/ is a play-only export of this code's layout and
config, loads under the rules recorded in it, and beats `random` there by a wide margin."""
from __future__ import annotations

import pytest

import evaluation
from agents.checkpoint import checkpoint_rules, load_checkpoint
from agents.shipped import SHIPPED_DIR, shipped_checkpoint
from training.config import config_from_dict

SHIPPED = sorted(p.name for p in SHIPPED_DIR.glob("*.pt"))
# `rule` beats `random` by about 21 points a deal in classic, 32 in the 41 games and 5.8 in trump_by_card
# (the shipped files score at least 18 over these deals in the first three, 5.7 over 10,000 in trump_by_card)
FLOOR = {"classic": 15.0, "syrian41": 15.0, "hearts41": 15.0, "trump_by_card": 2.0}


def test_every_preset_has_its_shipped_agent_and_custom_rules_none(unshipped_rules):
    presets = ("classic", "syrian41", "hearts41", "trump_by_card")
    assert {p: shipped_checkpoint(p) for p in presets} == {p: str(SHIPPED_DIR / f"{p}.pt") for p in presets}
    assert shipped_checkpoint(unshipped_rules) is None


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_agent_beats_random_under_its_rules(name):
    path = str(SHIPPED_DIR / name)
    data = load_checkpoint(path)  # weights_only; raises on a layout-version mismatch
    assert "optimizer" not in data  # the play-only export, not a training checkpoint
    config_from_dict(data["config"])  # its config still validates
    rules = checkpoint_rules(data, path)
    m = evaluation.duplicate_match(path, "random", deals=40, seed=3, rules=rules)
    assert m.ci95[0] > FLOOR[rules.name], (name, rules.name, m.ci95)
