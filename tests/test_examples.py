"""examples/: RLlib self-play on tarneeb_v0, SB3 MaskablePPO and CleanRL-style PPO on vector_env, each trained briefly.

Marked ``rllib`` / ``sb3``; skipped only when that extra is not installed. Without
it, each example prints the install hint (tested with the module made unimportable). The
training runs go through the scripts' command lines in a subprocess, as a user
runs them (and so Ray and torch's thread setting stay out of the test process).
"""
from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import tarneeb_env

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load_example(name: str, extra: str, needs: str):
    pytest.importorskip(needs, reason=f'the {extra} extra is not installed: pip install -e ".[{extra}]"')
    spec = importlib.util.spec_from_file_location(f"example_{name}", os.path.join(ROOT, "examples", f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run(args: list[str], **env) -> str:
    proc = subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env={**os.environ, **env})
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def run_without(module: str, script: str, *args: str) -> subprocess.CompletedProcess:
    """Run ``script`` as ``__main__`` with ``module`` unimportable, as where its extra is not installed."""
    code = (f"import runpy, sys; sys.modules[{module!r}] = None; sys.argv = {[script, *args]!r}; "
            f"runpy.run_path({script!r}, run_name='__main__')")
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)


# ------------------------------------------------------------------ without their extras
@pytest.mark.parametrize("script,module,extra", [("examples/sb3_maskable_ppo.py", "sb3_contrib", "sb3"),
                                                 ("examples/rllib_selfplay.py", "ray", "rllib")])
def test_example_without_its_extra_prints_the_install_hint(script, module, extra):
    proc = run_without(module, script, "--help")
    assert proc.returncode == 2, proc.stderr[-3000:]
    [line] = proc.stderr.splitlines()  # one line, no traceback
    assert line.startswith(f'{script}: error: this example needs the {extra} extra'), line
    assert f'pip install -e ".[{extra}]"' in line and module in line  # the hint and the missing module
    assert proc.stdout == ""


def test_sb3_agent_spec_without_the_extra_is_one_line_from_evaluate():
    proc = run_without("sb3_contrib", "evaluate.py", "examples/sb3_maskable_ppo.py:MaskablePPOAgent", "random")
    assert proc.returncode == 2, proc.stderr[-3000:]
    [line] = proc.stderr.splitlines()
    assert line.startswith("evaluate.py: error: ") and 'pip install -e ".[sb3]"' in line


def test_imported_example_without_its_extra_raises_import_error_with_the_hint(monkeypatch):
    monkeypatch.setitem(sys.modules, "sb3_contrib", None)
    spec = importlib.util.spec_from_file_location("example_no_sb3", os.path.join(ROOT, "examples", "sb3_maskable_ppo.py"))
    with pytest.raises(ImportError, match=r'needs the sb3 extra .*: pip install -e "\.\[sb3\]"'):
        spec.loader.exec_module(importlib.util.module_from_spec(spec))


# ------------------------------------------------------------------ RLlib
@pytest.mark.rllib
def test_rllib_module_masks_illegal_actions():
    ex = load_example("rllib_selfplay", "rllib", "ray.rllib")
    import torch
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    env = tarneeb_env.env()
    env.reset(seed=5)
    obs, masks = [], []
    for _ in range(30):  # bidding, trump and play decisions
        o = env.observe(env.agent_selection)
        obs.append(o["observation"])
        masks.append(o["action_mask"])
        env.step(int(np.flatnonzero(o["action_mask"])[-1]))
    module = RLModuleSpec(module_class=ex.MaskedActorCritic, observation_space=env.observation_space("player_0"),
                          action_space=env.action_space("player_0"), model_config={"hidden": [16]}).build()
    batch = {Columns.OBS: {"observation": torch.tensor(np.stack(obs)), "action_mask": torch.tensor(np.stack(masks))}}
    logits = module.forward_exploration(batch)[Columns.ACTION_DIST_INPUTS]
    illegal = torch.tensor(np.stack(masks)) == 0
    assert torch.all(logits[illegal] == ex.MASKED_LOGIT)
    assert torch.all(logits[~illegal] > -1e3)
    assert module.compute_values(batch).shape == (30,)


@pytest.mark.rllib
def test_rllib_selfplay_trains_a_shared_policy():
    load_example("rllib_selfplay", "rllib", "ray.rllib")
    out = run(["examples/rllib_selfplay.py", "--iterations", "2", "--batch", "400"])
    lines = [line for line in out.splitlines() if line.startswith("iteration")]
    assert [line.split(":")[0] for line in lines] == ["iteration 1", "iteration 2"]
    assert "env steps 800," in lines[1]
    entropy = float(re.search(r"entropy (\S+)$", lines[1]).group(1))
    assert 0 < entropy < np.log(70)  # masked: spread over the legal actions only


# ------------------------------------------------------------------ SB3
@pytest.mark.sb3
def test_sb3_vec_env_adapts_the_vector_env():
    ex = load_example("sb3_maskable_ppo", "sb3", "sb3_contrib")
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

    venv = tarneeb_env.vector_env(4, opponents="random", seed=3)
    env = ex.TarneebVecEnv(venv)
    assert is_masking_supported(env)
    env.seed(7)
    obs = env.reset()
    assert np.array_equal(obs, venv.reset(seed=7)[0])  # the seed reaches the vector env
    obs = env.reset()
    env.seed(7)
    rng = np.random.default_rng(0)
    ends = 0
    for _ in range(60):
        masks = get_action_masks(env)
        assert np.array_equal(masks, venv.action_masks()) and masks.any(axis=1).all()
        env.step_async(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        obs, rewards, dones, infos = env.step_wait()
        assert obs.shape == (4, tarneeb_env.OBS_SIZE) and len(infos) == 4
        for i in range(4):
            if dones[i]:
                ends += 1
                assert infos[i]["terminal_observation"].shape == (tarneeb_env.OBS_SIZE,)
                assert infos[i]["TimeLimit.truncated"] is False  # hands end, never cut short here
            else:
                assert infos[i] == {}
    assert ends >= 4


@pytest.mark.sb3
def test_sb3_maskable_ppo_trains_and_evaluates_against_random(tmp_path):
    load_example("sb3_maskable_ppo", "sb3", "sb3_contrib")
    model = str(tmp_path / "sb3.zip")
    out = run(["examples/sb3_maskable_ppo.py", "--steps", "512", "--deals", "8", "--out", model])
    assert re.search(r"margin vs random over 8 duplicate deals: [+-]\d", out), out
    assert os.path.isfile(model)
    spec, report = "examples/sb3_maskable_ppo.py:MaskablePPOAgent", tmp_path / "eval.json"
    run(["evaluate.py", spec, "random", "--deals", "4", "--out", str(report)], TARNEEB_SB3_MODEL=model)
    result = json.loads(report.read_text())
    assert result["agents"] == [spec, "random"] and result["deals"] == 4
    assert result["stats"][spec]["hands"] == 8  # each deal played from both sides


@pytest.mark.sb3
def test_sb3_agent_without_model_says_how_to_train_one(tmp_path):
    ex = load_example("sb3_maskable_ppo", "sb3", "sb3_contrib")
    with pytest.raises(FileNotFoundError, match=r"no MaskablePPO model at .*: train one with"):
        ex.MaskablePPOAgent(str(tmp_path / "missing.zip"))


# ------------------------------------------------------------------ CleanRL-style PPO on vector_env
def test_cleanrl_ppo_vector_trains_and_evaluates_against_random():
    out = run(["examples/cleanrl_ppo_vector.py", "--total-timesteps", "256", "--num-envs", "8", "--num-steps", "16",
               "--eval-deals", "4", "--log-every", "1"])
    lines = [line for line in out.splitlines() if line.startswith("iteration")]
    assert [line.split()[:2] for line in lines] == [["iteration", "1"], ["iteration", "2"]]
    for name in ("charts/episodic_return", "charts/SPS", "losses/approx_kl", "losses/entropy", "losses/value_loss"):
        assert f" {name}=" in lines[-1]
    entropy = float(re.search(r"losses/entropy=(\S+)", lines[-1]).group(1))
    assert 0 < entropy < np.log(70)  # masked: spread over the legal actions only
    assert "trained 256 learner decisions in 2 iterations" in out
    assert re.search(r"margin vs random over 4 duplicate deals: [+-]\d", out), out
