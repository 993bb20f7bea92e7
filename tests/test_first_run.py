"""A researcher's first runs through train.py: the quick config learns at all, a budget that ends inside the warm
start warns, --resume says where it picks up (and that a finished run is finished), and the TensorBoard tags keep
one x-axis: PPO decisions, with the warm start a run of its own."""
from __future__ import annotations

import glob
import os
from pathlib import Path

import pytest

from training import cli as train

ROOT = Path(__file__).resolve().parent.parent
QUICK = str(ROOT / "configs" / "quick.yaml")
SMOKE = str(ROOT / "configs" / "smoke.yaml")
TINY = ["env.num_games=8", "env.rollout_steps=80", "model.hidden=[16]", "ppo.minibatch_size=256",
        "eval.interval=0", "budget.minutes=null", "pretrain.decisions=1280", "pretrain.steps=80",
        "pretrain.minibatch_size=128", "selfplay.weights={current: 1.0}"]


def _argv(config: str, run_dir, sets) -> list[str]:
    return ["--config", config, "--run-dir", str(run_dir), "--no-progress"] + [a for s in sets for a in ("--set", s)]


def test_a_short_quick_run_makes_a_network_that_beats_random(tmp_path):
    """The quick recipe cut to two warm-start chunks and two PPO iterations, the network learning every phase:
    against random it wins about +19 a deal on these 300 deals; an agent that learned nothing (random) scores 0."""
    from evaluation import duplicate_match

    run = tmp_path / "quick"
    assert train.main(_argv(QUICK, run, ["pretrain.decisions=65536", "budget.iterations=2", "eval.interval=0",
                                         "budget.minutes=null", "learn.phases=[bidding, trump, play]"])) == 0
    m = duplicate_match(str(run / "latest.pt"), "random", deals=300, seed=0, rules="classic")
    assert m.margin > 15 and m.ci95[0] > 10, (m.margin, m.ci95)


def test_a_minutes_budget_that_ends_in_the_warm_start_warns_and_says_so_at_the_end(tmp_path, capsys):
    run = tmp_path / "r"
    assert train.main(_argv(SMOKE, run, ["pretrain.decisions=100000000", "budget.minutes=0.01",
                                         "eval.interval=0"])) == 0
    out, err = capsys.readouterr()
    warnings = [line for line in err.splitlines() if line.startswith("train.py: warning: ")]
    assert len(warnings) == 1, err
    assert warnings[0].startswith("train.py: warning: the warm start (pretrain.decisions=100,000,000) takes about ")
    assert warnings[0].endswith("longer than budget.minutes=0.01: the run will end before its first PPO iteration; "
                                "raise budget.minutes or lower pretrain.decisions (configs/quick.yaml clones about a "
                                "quarter of a million)")
    assert "done: 0 iterations, 0 decisions" in out
    assert "the warm start did not finish" in out and f"--resume {run} --set budget.minutes=MORE" in out


def test_a_budget_the_warm_start_fits_in_does_not_warn(tmp_path, capsys):
    assert train.main(_argv(SMOKE, tmp_path / "r", TINY + ["budget.iterations=1", "budget.minutes=5"])) == 0
    assert "warning" not in capsys.readouterr().err


def test_resume_says_where_it_picks_up_and_a_finished_run_how_to_extend_it(tmp_path, capsys):
    from agents.checkpoint import load_checkpoint

    run = tmp_path / "r"
    assert train.main(_argv(SMOKE, run, TINY + ["budget.iterations=1"])) == 0
    capsys.readouterr()
    assert train.main(["--resume", str(run), "--no-progress", "--set", "budget.iterations=2"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"resuming {run} after PPO iteration 1, 640 PPO decisions (")
    assert out[1].startswith("done: 2 iterations, 1280 decisions")
    assert train.main(["--resume", str(run), "--no-progress"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 1 and out[0].startswith(f"{run} is finished: it reached budget.iterations (after PPO "
                                               "iteration 2, 1,280 PPO decisions (")
    assert out[0].endswith(f"to train on, extend it: python train.py --resume {run} --set budget.iterations=4")
    assert load_checkpoint(str(run / "latest.pt"))["counters"]["iteration"] == 2  # nothing more was trained


def test_resume_inside_the_warm_start_says_how_far_it_got(tmp_path, capsys):
    run = tmp_path / "r"
    assert train.main(_argv(SMOKE, run, TINY[:-1] + ["pretrain.decisions=100000000", "budget.minutes=0.01"])) == 0
    capsys.readouterr()
    assert train.main(["--resume", str(run), "--no-progress", "--set", "budget.minutes=0.02"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith(f"resuming {run} in the warm start, ") and "of 100,000,000 teacher decisions cloned" in first


def test_tensorboard_steps_are_ppo_decisions_and_the_warm_start_is_a_run_of_its_own(tmp_path):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    run = tmp_path / "r"
    sets = TINY[:-1] + ["budget.iterations=4", "eval.interval=2", "eval.deals=4", "eval.opponents=[random]",
                        "selfplay.snapshot_interval=1", "selfplay.max_snapshots=3",
                        "selfplay.weights={current: 0.5, snapshots: 0.3, rule: 0.2}"]
    assert train.main(_argv(SMOKE, run, sets)) == 0
    main = EventAccumulator(glob.glob(str(run / "events.out.tfevents.*"))[0])
    main.Reload()
    tags = set(main.Tags()["scalars"])
    assert not any(t.startswith("pretrain/") for t in tags)
    assert [e.step for e in main.Scalars("losses/policy_loss")] == [640, 1280, 1920, 2560]
    assert [e.step for e in main.Scalars("eval/margin_vs_random")] == [0, 1280, 2560]  # 0: after the warm start
    league = sorted(t for t in tags if t.startswith("league/"))
    assert league == ["league/margin/rule", "league/margin/snapshots_mean", "league/margin/snapshots_min",
                      "league/snapshots", "league/weight/current", "league/weight/rule",
                      "league/weight/snapshots"]  # four snapshots came, three stay: still 7 tags
    assert set(main.Tags()["tensors"]) == {"league/members/text_summary"}  # each member's figures, as text
    warm = EventAccumulator(os.path.join(run, "warmstart"))
    warm.Reload()
    assert [e.step for e in warm.Scalars("pretrain/accuracy")] == [640, 1280]  # teacher decisions


def test_train_py_says_so_before_the_numba_kernels_compile(tmp_path):
    """A fresh numba cache (NUMBA_CACHE_DIR empty): one line says what the silent half minute is; a warm one: none."""
    import subprocess
    import sys

    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "PYTHONPATH": str(ROOT)}
    code = "from training.cli import say_if_compiling; say_if_compiling()"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert out.startswith("compiling ") and out.endswith(
        " numba kernels of the game engine and the rule player (once: about half a minute; cached afterwards)\n")
    assert int(out.split()[1]) >= 20
    code = ("import agents.rule_kernels, tarneeb_env.batch_kernels\n"
            "from tarneeb_env import kernel_cache\n"
            "kernel_cache._compiled_on_disk = lambda kernel: True\n"
            "print(kernel_cache.uncached_kernels()[0])")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert out == "0\n"
