"""`pip install` of the wheel (not editable) ships the trained agents: the five .pt files and MANIFEST.yaml are
package data (agents/trained/ in the wheel, checkpoints/ in the repository), read through importlib.resources.

The wheel is built from a copy of the sources (pip wheel builds in the tree: no build/ left in the checkout). The
slow test installs it into a fresh venv outside the checkout, whose dependencies come from this interpreter's
site-packages through a .pth file (a .pth in a folder that a .pth adds is not processed, so this checkout's
editable install is not seen), and plays from a temporary folder.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import site
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("tarneeb_env", "agents", "training", "evaluation", "playing")
SHIPPED = sorted(p.name for p in (ROOT / "checkpoints").glob("*.pt"))
PRESETS = ("classic", "syrian41", "hearts41", "trump_by_card")
BUILD_SECONDS = 300
PLAY_SECONDS = 600


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    src, out = tmp_path_factory.mktemp("src"), tmp_path_factory.mktemp("wheel")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    for pkg in PACKAGES:
        shutil.copytree(ROOT / pkg, src / pkg, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "checkpoints", src / "checkpoints")  # the logs too: the wheel must leave them out
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-v", "-w",
                            str(out), str(src)], check=True, capture_output=True, text=True, timeout=BUILD_SECONDS)
    BUILD_LOG.append(built.stdout + built.stderr)
    (path,) = out.glob("tarneeb_rl-*.whl")
    return path


BUILD_LOG: list[str] = []  # the wheel build's output (pip -v shows the build backend's warnings)


def test_the_build_gives_no_packaging_warning(wheel):
    """`make demo`'s install prints no warning of the project's own packaging (a data folder not listed as a
    package, e.g. playing/web/static, warns once per build)."""
    (log,) = BUILD_LOG
    assert "running build_py" in log  # the backend's output is there to read
    assert "absent from the `packages` configuration" not in log and "BuildBackendWarning" not in log, log[-3000:]


def test_the_wheel_holds_the_shipped_files_and_manifest_and_no_logs(wheel):
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        trained = sorted(n.removeprefix("agents/trained/") for n in names if n.startswith("agents/trained/"))
        assert trained == sorted([*SHIPPED, "MANIFEST.yaml"])
        for name in SHIPPED:
            assert hashlib.sha256(z.read(f"agents/trained/{name}")).digest() == \
                hashlib.sha256((ROOT / "checkpoints" / name).read_bytes()).digest()
    assert {n.split("/")[0] for n in names if not n.startswith("tarneeb_rl-")} == set(PACKAGES)
    assert not [n for n in names if "_logs" in n or "tfevents" in n]


def test_the_wheel_installs_the_console_scripts_and_every_subpackage(wheel):
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        (entry_points,) = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
        scripts = z.read(entry_points).decode()
    for script in ("tarneeb-train", "tarneeb-evaluate", "tarneeb-play", "tarneeb-serve", "tarneeb-advise",
                   "tarneeb-engine"):
        assert f"{script} = " in scripts
    for module in ("playing/web/app.py", "playing/advisor/server.py", "playing/advisor/terminal.py"):
        assert module in names
    for lang in ("en", "ar", "es", "de", "pt", "id"):  # the web table's words
        assert f"playing/web/static/i18n/{lang}.json" in names


@pytest.mark.slow
def test_a_wheel_install_plays_the_shipped_agents_under_every_preset(wheel, tmp_path):
    env_dir, cwd = tmp_path / "venv", tmp_path / "elsewhere"
    cwd.mkdir()
    venv.create(env_dir, with_pip=False)
    py = env_dir / "bin" / "python"
    (purelib,) = {Path(p) for p in subprocess.run(
        [py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], capture_output=True, text=True,
        check=True).stdout.split()}
    (purelib / "deps.pth").write_text("\n".join(site.getsitepackages()) + "\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "--no-deps", "--no-index", "-q",
                    str(wheel)], check=True, capture_output=True, env=env, timeout=BUILD_SECONDS)

    def run(*argv, stdin=""):
        return subprocess.run(list(argv), cwd=cwd, env=env, input=stdin, capture_output=True, text=True,
                              timeout=PLAY_SECONDS)

    p = run(py, "-c", "import agents, agents.shipped as s; print(agents.__file__); print(s.SHIPPED_DIR); "
                      "print(agents.resolve('ppo')[0]); agents.load('ppo')")
    assert p.returncode == 0, p.stderr
    package, shipped, ppo = p.stdout.split()
    assert package.startswith(str(purelib)) and shipped == str(purelib / "agents" / "trained")
    assert ppo == str(purelib / "agents" / "trained" / "classic.pt")
    for preset in PRESETS:
        p = run(env_dir / "bin" / "tarneeb-evaluate", "ppo", "rule", "--rules", preset, "--deals", "20", "--seed", "1")
        assert p.returncode == 0, (preset, p.stderr)
        assert p.stdout.splitlines()[0] == f"ppo is {os.path.relpath(purelib / 'agents' / 'trained', cwd)}" \
                                           f"/{preset}.pt", p.stdout
        p = run(env_dir / "bin" / "tarneeb-play", "--rules", preset, "--seed", "1", stdin="quit\n")
        assert p.returncode == 0 and "shipped agent" not in p.stdout, (preset, p.stdout, p.stderr)
    # the installed tarneeb-engine, found on PATH by an engine: spec, plays exactly as the in-process agent
    env["PATH"] = f"{env_dir / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    p = run(env_dir / "bin" / "tarneeb-evaluate", "engine:tarneeb-engine ppo", "ppo", "--deals", "20", "--out",
            str(cwd / "engine.json"))
    assert p.returncode == 0, p.stderr
    margin = json.loads((cwd / "engine.json").read_text())["margin"]
    assert margin["mean"] == 0.0 and margin["sd"] == 0.0  # every deal: the same moves
