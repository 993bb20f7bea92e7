"""Provenance: what every ``.pt`` the trainer writes records about how it was made.

A file names the config file it was trained from (path and sha256 of its content, and of each ``base:``), the
``--set`` overrides, the seed, the code (git commit and whether the work tree had uncommitted changes, when the
code runs from a git checkout; the package version always) and the sha256 of every file it started from or
seated while learning (``pretrain.init``, file agents of the league, the teacher, the checkpoint a ``--resume``
continued, the inputs of ``--average`` and ``--export`` with their own provenance). The resolved config is the
checkpoint's ``config``. Everything is plain data (strings, numbers, lists, dicts), so the reader's
``torch.load(..., weights_only=True)`` takes it; a file from before provenance has none, and
``evaluate.py --info`` says what is known of it instead.
"""
from __future__ import annotations

import datetime
import functools
import os
import platform
import subprocess
from importlib import metadata
from pathlib import Path
from typing import Any, Optional

import torch

from agents import ANY_RULES
from agents.checkpoint import load_checkpoint, sha256_file

PROVENANCE_VERSION = 1
PACKAGE = "tarneeb-rl"
_GIT_SECONDS = 10  # a git that hangs (a network file system) does not hold up training
_ROOT = Path(__file__).resolve().parents[1]  # the checkout, when the code runs from one


def _git(*args: str) -> Optional[str]:
    try:
        out = subprocess.run(["git", "-C", str(_ROOT), *args], capture_output=True, text=True,
                             timeout=_GIT_SECONDS, check=True)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout


@functools.lru_cache(maxsize=1)
def code_version() -> dict[str, Any]:
    """The package version, and the git commit and dirty flag when the code is a git checkout's."""
    try:
        version = metadata.version(PACKAGE)
    except metadata.PackageNotFoundError:
        version = "unknown"
    out: dict[str, Any] = {"package_version": version, "python": platform.python_version(),
                           "torch": str(torch.__version__)}  # a str subclass, which weights_only refuses
    if (_ROOT / ".git").exists():  # a folder in a clone, a file in a worktree
        commit, status = _git("rev-parse", "HEAD"), _git("status", "--porcelain", "--untracked-files=no")
        if commit and status is not None:
            out.update(git_commit=commit.strip(), git_dirty=bool(status.strip()))
    return out


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def config_source(path: str, files: list[str], overrides: list[str]) -> dict[str, Any]:
    """The config file as given (path and content hash), its ``base:`` chain, and the ``--set`` overrides."""
    return {"path": path, "sha256": sha256_file(path),
            "bases": [{"path": f, "sha256": sha256_file(f)} for f in files[1:]], "overrides": list(overrides)}


def file_parent(role: str, spec: str) -> Optional[dict[str, Any]]:
    """``{role, path, sha256, provenance}`` for a spec that is a checkpoint file (``x.pt``, ``x.pt?rules=any``;
    its own provenance, None for a file from before it), else None."""
    path = spec.removesuffix(ANY_RULES)
    if not path.endswith(".pt") or not os.path.isfile(path):
        return None
    return {"role": role, "path": path, "sha256": sha256_file(path),
            "provenance": load_checkpoint(path).get("provenance")}


def run_provenance(cfg, source: Optional[dict[str, Any]]) -> dict[str, Any]:
    """A new training run's record: config file, seed, code, and the files its weights learned from."""
    specs = [("pretrain.init", cfg.pretrain.init), ("pretrain.teacher", cfg.pretrain.teacher),
             ("learn.other", cfg.learn.other)]
    specs += [("selfplay.weights", name) for sp in [cfg.selfplay, *(st.selfplay for st in cfg.stages)]
              for name in sp.weights]
    parents = [p for role, spec in dict.fromkeys(specs) if spec and (p := file_parent(role, spec))]
    return {"version": PROVENANCE_VERSION, "made_by": "train", "created": _now(), "config_file": source,
            "seed": cfg.env.seed, "code": code_version(), "parents": parents, "resumed": []}


def resumed(previous: Optional[dict[str, Any]], cfg, latest: str, overrides: list[str]) -> dict[str, Any]:
    """The record of a run continued by ``--resume``: its own, plus when, by which code, from which file."""
    base = dict(previous) if previous else {"version": PROVENANCE_VERSION, "made_by": "train", "created": None,
                                            "config_file": None, "seed": cfg.env.seed, "parents": [],
                                            "code": None, "resumed": []}
    step = {"created": _now(), "code": code_version(), "from_sha256": sha256_file(latest),
            "overrides": list(overrides)}
    return {**base, "resumed": [*base.get("resumed", []), step]}


def derived(made_by: str, sources: list[tuple[str, str, dict[str, Any]]]) -> dict[str, Any]:
    """The record of ``--export`` or ``--average``: each source's name, hash and own provenance."""
    parents = [{"role": made_by, "path": name, "sha256": sha256_file(path), "provenance": data.get("provenance")}
               for path, name, data in sources]
    return {"version": PROVENANCE_VERSION, "made_by": made_by, "created": _now(), "code": code_version(),
            "parents": parents}
