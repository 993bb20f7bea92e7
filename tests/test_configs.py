"""Every shipped config's code path, shortened: it validates, trains two iterations and evaluates."""
from __future__ import annotations

import os

import pytest

from agents.checkpoint import load_checkpoint
from tarneeb_env import Rules
from training import cli
from training.config import load_config

PRESET_CONFIGS = {"classic": "classic", "classic_next": "classic", "classic_one": "classic", "classic_selfplay": "classic",
                  "classic_selfplay2": "classic", "classic_selfplay3": "classic", "classic_selfplay4": "classic",
                  "classic_selfplay5": "classic",
                  "syrian41_clone": "syrian41",
                  "hearts41_base": "hearts41", "syrian41": "syrian41", "syrian41_chain": "syrian41",
                  "hearts41": "hearts41",
                  "trump_by_card": "trump_by_card", "trump_by_card2": "trump_by_card", "trump_by_card3": "trump_by_card",
                  "trump_by_card4": "trump_by_card", "trump_by_card5": "trump_by_card", "trump_by_card6": "trump_by_card",
                  "trump_by_card7": "trump_by_card", "trump_by_card8": "trump_by_card"}
SHORT = ["env.num_games=8", "env.rollout_steps=80", "ppo.minibatch_size=256", "pretrain.steps=80",
         "pretrain.minibatch_size=128", "budget.iterations=2", "budget.minutes=null", "eval.interval=2",
         "eval.deals=4", "eval.ladder_deals=4", "selfplay.snapshot_interval=1", "rollout.backend=local",
         "checkpoint.interval=100"]


@pytest.mark.parametrize("name", PRESET_CONFIGS)
def test_preset_config_trains_its_recipe_shortened(tmp_path, name):
    path, preset = f"configs/{name}.yaml", PRESET_CONFIGS[name]
    cfg = load_config(path)
    assert cfg.make_rules().name == preset and cfg.selfplay.sampling == "pfsp"
    assert cfg.selfplay.weights.get("current", 0) + cfg.selfplay.weights.get("snapshots", 0) > 0.5  # self-play
    init = cfg.pretrain.init
    if init.startswith("runs/"):  # a chain's earlier link, not in a fresh clone: start from a shipped file instead
        init = "checkpoints/default.pt?rules=any"
    sets = SHORT + (["pretrain.decisions=640"] if cfg.pretrain.decisions else []) + (
        [f"pretrain.init={init}"] if init else ["model.hidden=[32]"])
    run_dir = str(tmp_path / name)
    assert cli.main(["--config", path, "--run-dir", run_dir, "--no-progress"]
                    + [a for s in sets for a in ("--set", s)]) == 0
    data = load_checkpoint(os.path.join(run_dir, "latest.pt"))
    assert data["counters"]["iteration"] == 2 and Rules(**data["rules"]).name == preset
    assert [s["iteration"] for s in data["pool"]["snapshots"]] == [1, 2]
    assert "eval/margin_vs_rule" in data["last_eval"] and "league/rating/current" in data["last_eval"]
