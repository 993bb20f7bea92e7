"""train.py end to end on the Ray backend.

A module of its own: its Ray instance must have free CPUs for the trainer's two
workers, which test_ray.py's module-wide workers would otherwise hold.
"""
from __future__ import annotations

import pytest
import torch

TINY = ["env.num_games=6", "env.rollout_steps=70", "model.hidden=[16]",
        "selfplay.weights={current: 0.4, snapshots: 0.3, rule: 0.3}"]


@pytest.mark.ray
def test_train_py_runs_iterations_on_the_ray_backend(ray_session, tmp_path):
    from training import cli as train

    run_dir = str(tmp_path / "ray_run")
    argv = ["--config", "configs/smoke.yaml", "--run-dir", run_dir, "--no-progress"]
    for s in TINY + ["rollout.backend=ray", "rollout.workers=2", "rollout.timeout=120", "pretrain.decisions=0",
                     "eval.interval=0", "budget.iterations=2", "budget.minutes=null"]:
        argv += ["--set", s]
    assert train.main(argv) == 0
    data = torch.load(f"{run_dir}/latest.pt", weights_only=True)
    assert data["config"]["rollout"]["backend"] == "ray"
    assert data["counters"]["iteration"] == 2
    assert data["counters"]["decisions"] == 2 * 2 * 6 * 70  # iterations x workers x games x steps
