"""The packages' layers point one way (docs/development.md): each imports only the packages below it.

tarneeb_env (rules, engines, observation, envs) < agents < evaluation < training, playing: the trainer evaluates
with the evaluator, the web table uses the evaluator's deal sets and runner; training and playing do not import
each other. Every import statement counts, inside functions too; there is no allow-list.
"""
import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RANK = {"tarneeb_env": 0, "agents": 1, "evaluation": 2, "training": 3, "playing": 3}


def imported_packages(path: Path) -> set[str]:
    """The top-level packages of this project that a module imports (absolute imports; relative ones stay home)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names = [node.module]
        else:
            continue
        found.update(n.split(".")[0] for n in names if n.split(".")[0] in RANK)
    return found


def upward_imports() -> list[str]:
    bad = []
    for package, rank in RANK.items():
        for path in sorted((ROOT / package).rglob("*.py")):
            for other in sorted(imported_packages(path) - {package}):
                if RANK[other] >= rank:
                    bad.append(f"{path.relative_to(ROOT)} imports {other}")
    return bad


def test_no_package_imports_one_above_or_beside_it():
    assert upward_imports() == []


def test_the_walk_sees_imports_inside_functions(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("import numpy\n\ndef f():\n    from training.config import Config\n    import agents.seating\n")
    assert imported_packages(module) == {"training", "agents"}


@pytest.mark.parametrize("code", [
    # the env and its vector env with rule opponents (numba, no torch)
    "import tarneeb_env; env = tarneeb_env.vector_env(2, opponents='rule', seed=0); env.reset()",
    "import gymnasium; gymnasium.make_vec('tarneeb_env:tarneeb/Tarneeb-v0', num_envs=2).reset(seed=1)",
    # reading a training config
    "from training.config import load_config; load_config('configs/classic.yaml')",
])
def test_these_need_no_torch(code):
    check = f"{code}\nimport sys\nassert 'torch' not in sys.modules, 'torch was imported'"
    result = subprocess.run([sys.executable, "-c", check], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-2000:]
