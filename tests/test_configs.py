"""Every shipped config's code path, shortened: it validates, trains two iterations and evaluates."""
from __future__ import annotations

import os

import pytest

from agents.checkpoint import load_checkpoint
from tarneeb_env import Rules
from training import cli
from training.config import load_config

PRESET_CONFIGS = ["classic", "syrian41", "hearts41", "trump_by_card"]
SHORT = ["env.num_games=8", "env.rollout_steps=80", "ppo.minibatch_size=256", "pretrain.steps=80",
         "pretrain.minibatch_size=128", "budget.iterations=2", "budget.minutes=null", "eval.interval=2",
         "eval.deals=4", "eval.ladder_deals=4", "selfplay.snapshot_interval=1", "rollout.backend=local",
         "checkpoint.interval=100"]


@pytest.mark.parametrize("preset", PRESET_CONFIGS)
def test_preset_config_trains_its_recipe_shortened(tmp_path, preset):
    path = f"configs/{preset}.yaml"
    cfg = load_config(path)
    assert cfg.make_rules().name == preset and cfg.model.critic == "privileged" and cfg.selfplay.sampling == "pfsp"
    assert cfg.selfplay.weights.get("current", 0) + cfg.selfplay.weights.get("snapshots", 0) >= 0.75  # self-play
    sets = SHORT + (["pretrain.decisions=640"] if cfg.pretrain.decisions else []) + (
        [] if cfg.pretrain.init else ["model.hidden=[32]"])
    run_dir = str(tmp_path / preset)
    assert cli.main(["--config", path, "--run-dir", run_dir, "--no-progress"]
                    + [a for s in sets for a in ("--set", s)]) == 0
    data = load_checkpoint(os.path.join(run_dir, "latest.pt"))
    assert data["counters"]["iteration"] == 2 and Rules(**data["rules"]).name == preset
    assert [s["iteration"] for s in data["pool"]["snapshots"]] == [1, 2]
    assert "eval/margin_vs_rule" in data["last_eval"] and "league/rating/current" in data["last_eval"]
