"""What each make target installs: `make demo` the core only, and the core is enough for the demo.

The demo's two commands run here with every extra and dev tool made unimportable
(``sys.modules[name] = None``, as where it is not installed), so a core module
that starts importing one fails this test, not a user's first `make demo`.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NOT_IN_CORE = ("ray", "sb3_contrib", "stable_baselines3", "endplay", "pyspiel",
               "pytest", "hypothesis", "pexpect", "nbclient", "nbformat", "ipykernel", "matplotlib")


def make_recipes(target: str) -> str:
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    return subprocess.run(["make", "-B", "-n", target], cwd=ROOT, capture_output=True, text=True, check=True,
                          timeout=60).stdout


def installs(recipes: str) -> list[str]:
    """The package specs of each ``pip install`` line in ``recipes``."""
    return [m[1] for m in re.finditer(r"pip install -q -c constraints[-\w]*\.txt -e (\S+)", recipes)]


def test_make_demo_installs_only_the_core():
    assert installs(make_recipes("demo")) == ["."]


def test_make_test_installs_dev_tools_and_every_tested_extra():
    assert installs(make_recipes("test")) == [".", '".[dev,ray,rllib,sb3]"']


def test_make_test_min_installs_the_lowest_versions_in_its_own_venv():
    recipes = make_recipes("test-min")
    assert "-m venv .venv-min" in recipes and ".venv-min/bin/python -m pytest -q" in recipes
    assert re.findall(r"pip install -q -c constraints-min\.txt -e (\S+)", recipes) == ['".[dev,ray,sb3]"']


def _name(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _version(v: str) -> str:
    """1.0.0, 1.0 and 1 are one version."""
    return re.sub(r"(\.0)+$", "", v)


def test_constraints_min_pins_each_lower_bound_of_what_test_min_installs():
    tomllib = pytest.importorskip("tomllib")
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        project = tomllib.load(f)["project"]
    requirements = project["dependencies"] + [r for extra in ("dev", "ray", "sb3")
                                              for r in project["optional-dependencies"][extra]]
    bounds = {}
    for req in requirements:
        m = re.fullmatch(r"([A-Za-z0-9_.-]+)(\[[\w,]+\])?>=([\w.]+)", req)
        assert m, f"{req!r}: give every dependency a lower bound (name>=version)"
        bounds[_name(m[1])] = _version(m[3])
    with open(os.path.join(ROOT, "constraints-min.txt"), encoding="utf-8") as f:
        pins = dict(line.split("==") for line in f.read().split("\n") if line and not line.startswith("#"))
    pins = {_name(k): _version(v) for k, v in pins.items()}
    assert pins.pop("torch") == "2.13"  # the CPU build on disk, whatever the bound
    del bounds["torch"]
    assert pins == bounds


def test_demo_runs_without_any_extra_or_dev_tool(tmp_path):
    block = "; ".join(f"sys.modules[{name!r}] = None" for name in NOT_IN_CORE)
    run_dir = str(tmp_path / "demo")

    def run(script: str, *args: str) -> None:
        code = (f"import runpy, sys; {block}; sys.argv = {[script, *args]!r}; "
                f"runpy.run_path({script!r}, run_name='__main__')")
        proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stderr[-3000:]

    run("train.py", "--config", "configs/smoke.yaml", "--run-dir", run_dir, "--no-progress",
        "--set", "env.num_games=8", "--set", "env.rollout_steps=80", "--set", "model.hidden=[16]",
        "--set", "pretrain.decisions=640", "--set", "pretrain.steps=80", "--set", "ppo.minibatch_size=256",
        "--set", "pretrain.minibatch_size=128", "--set", "eval.interval=0", "--set", "budget.iterations=1")
    checkpoint, report = os.path.join(run_dir, "latest.pt"), tmp_path / "eval.json"
    run("evaluate.py", checkpoint, "random", "--deals", "4", "--out", str(report))
    result = json.loads(report.read_text())
    assert result["agents"] == [checkpoint, "random"] and result["deals"] == 4
