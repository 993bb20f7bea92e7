"""Checkpoint loading: the safe reader and the agent that plays a checkpoint (writing is in ``training``).

A checkpoint is a plain dict of tensors, dicts, lists, ints, floats and strings,
so ``torch.load(..., weights_only=True)`` reads it and a file holding code is
refused without running it. Every file that cannot be used raises
:class:`CheckpointError` with one line: what the file is, why it cannot be
used, and what to do (never torch's advice to load it with
``weights_only=False``, which is wrong for a hostile file).
"""
from __future__ import annotations

import hashlib
import os
import warnings
import zipfile
from typing import Any, Optional

import torch

from tarneeb_env import OBS_SIZE, OBS_VERSION, Rules
from tarneeb_env.observation import OFFSETS

from .model import ActorCritic
from .policy import PolicyAgent

FORMAT = "tarneeb-rl-checkpoint"
FORMAT_VERSION = 1
# What playing a checkpoint reads; a training checkpoint holds more (see training.checkpoints).
AGENT_KEYS = ("rules", "learn", "model", "state_dict")
LAYOUT_1_SIZE = OFFSETS["voids"]  # layout 1 was today's layout up to the voids block
_HASH_CHUNK = 1 << 20  # bytes hashed at a time
USE_INSTEAD = "use a .pt written by train.py (runs/<name>/latest.pt) or by train.py --export"


class CheckpointError(ValueError):
    """A file that cannot be used as a tarneeb-rl checkpoint; the one-line message says why and what to do."""


def _unreadable(path: str, error: Exception) -> CheckpointError:
    """Say what a file torch cannot read (safely) is, from its first bytes and the error."""
    with open(path, "rb") as f:
        head = f.read(64)
    if not head:
        what = "an empty file"
    elif head.startswith(b"PK"):
        try:
            with zipfile.ZipFile(path) as z:
                torch_file = any(n.endswith("data.pkl") for n in z.namelist())
        except zipfile.BadZipFile:
            what = "a damaged zip archive (truncated or corrupted, e.g. by an interrupted copy)"
        else:
            if not torch_file:
                what = "a zip archive that is not a torch file"
            elif "weights only" in str(error).lower():
                what = "a torch file holding code or Python objects beyond tensors and plain data (refused unrun)"
            else:
                what = "a damaged torch file"
    elif head[:1] == b"\x80":  # a bare pickle
        if "weights only" in str(error).lower():
            what = "a pickle holding code or Python objects beyond tensors and plain data (refused unrun)"
        else:
            what = "a truncated or damaged pickle"
    else:
        try:
            text = head.decode("utf-8")
        except UnicodeDecodeError:
            text = None
        if text is not None and all(c.isprintable() or c.isspace() for c in text):
            what = f"not a torch file (it is text beginning {text.strip()[:30]!r})"
        else:
            what = "not a torch file (unrecognised binary data)"
    return CheckpointError(f"{path}: {what}, so not a tarneeb-rl checkpoint; {USE_INSTEAD}")


def sha256_file(path: str) -> str:
    """The sha256 of a file's content, as ``sha256sum`` prints it (provenance and the shipped files' manifest)."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(_HASH_CHUNK), b""):
            h.update(block)
    return h.hexdigest()


def load_checkpoint(path: str) -> dict[str, Any]:
    """Read and check a checkpoint (weights_only): format marker, format version and observation layout."""
    if not os.path.isfile(path):
        raise CheckpointError(f"{path}: no such checkpoint file")
    try:
        with warnings.catch_warnings():  # torch warns about pickle protocols of files it then refuses
            warnings.simplefilter("ignore")
            data = torch.load(path, map_location="cpu", weights_only=True)
    except OSError as e:
        raise CheckpointError(f"{path}: cannot be read ({e.strerror or e})") from None
    except Exception as e:  # a hostile or damaged file may fail in any way; none of them is usable
        raise _unreadable(path, e) from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise CheckpointError(f"{path}: a torch file but not a tarneeb-rl checkpoint (no '{FORMAT}' marker); "
                              f"{USE_INSTEAD}")
    if data.get("format_version") != FORMAT_VERSION:
        raise CheckpointError(
            f"{path}: checkpoint format version {data.get('format_version')!r}, but this code reads version "
            f"{FORMAT_VERSION}; use the tarneeb-rl version that wrote it, or retrain with this one"
        )
    if data.get("obs_version") == 1 and all(isinstance(data.get(k), dict) for k in ("model", "state_dict")):
        data = upgrade_layout_1(data)
    elif data.get("obs_version") != OBS_VERSION:
        raise CheckpointError(
            f"{path}: written for observation layout version {data.get('obs_version')!r}, but this code's "
            f"OBS_VERSION is {OBS_VERSION} (the network would read the wrong inputs); use the tarneeb-rl version "
            "that wrote it, or retrain with this one"
        )
    return data


def upgrade_layout_1(data: dict[str, Any]) -> dict[str, Any]:
    """A layout-1 network on today's layout: layout 2 appended the ``voids`` block, so the first layers (the
    policy trunk's, and the privileged critic's, whose hidden-hand inputs follow the observation) get zero
    weights for it. The network plays exactly as before, and a run started from it (``pretrain.init``) can
    learn to use the block. ``obs_version`` stays 1: a training run of that layout is not resumed."""
    old, new = LAYOUT_1_SIZE, OBS_SIZE
    state = dict(data["state_dict"])
    for key in ("trunk.0.weight", "critic_trunk.0.weight"):
        w = state.get(key)
        if isinstance(w, torch.Tensor) and w.dim() == 2 and w.shape[1] >= old:
            state[key] = torch.cat([w[:, :old], w.new_zeros(w.shape[0], new - old), w[:, old:]], dim=1)
    return {**data, "model": {**data["model"], "obs_size": new}, "state_dict": state}


def require_keys(data: dict[str, Any], path: str, keys, purpose: str) -> None:
    """A readable checkpoint that lacks what ``purpose`` needs is refused naming the first missing key."""
    missing = [k for k in keys if k not in data]
    if missing:
        raise CheckpointError(f"{path}: a tarneeb-rl checkpoint without {missing[0]!r}, so it cannot be used "
                              f"{purpose}; {USE_INSTEAD}")


def checkpoint_rules(data: dict[str, Any], path: str) -> Rules:
    """The rules the checkpoint was trained for."""
    require_keys(data, path, ("rules",), "to play")
    try:
        return Rules(**data["rules"])
    except (TypeError, ValueError) as e:
        raise CheckpointError(f"{path}: its recorded rules are not valid here ({e}); {USE_INSTEAD}") from None


def model_from_checkpoint(data: dict[str, Any]) -> ActorCritic:
    arch = data["model"]
    model = ActorCritic.from_arch(arch)
    model.load_state_dict(data["state_dict"])
    return model.eval()


def load_checkpoint_agent(
    path: str, sample: bool = False, seed: Optional[int] = None, other: Optional[str] = None,
    rules: Optional[Rules] = None, **_ignored
) -> PolicyAgent:
    """The agent a checkpoint plays (used by ``agents.load("x.pt")``): greedy unless ``sample=True``.

    Phases the policy did not learn are played by the agent the run used for
    them (``learn.other``), or by ``other`` when given; it is loaded for
    ``rules``. The rules check of the checkpoint itself is ``agents.load``'s.
    """
    import agents

    data = load_checkpoint(path)
    require_keys(data, path, AGENT_KEYS, "to play")
    own_rules = checkpoint_rules(data, path)
    try:
        phases = tuple(data["learn"]["phases"])
        model = model_from_checkpoint(data)
    except (KeyError, TypeError, ValueError, RuntimeError) as e:
        detail = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise CheckpointError(f"{path}: a damaged tarneeb-rl checkpoint (its network cannot be rebuilt: "
                              f"{type(e).__name__} {detail}); {USE_INSTEAD}") from None
    other_agent = None
    if len(phases) < 3:
        other_agent = agents.load(other or data["learn"].get("other", "rule"), rules=rules)
    agent = PolicyAgent(model, phases, other_agent, sample=sample, seed=seed)
    agent.name = os.path.basename(path)
    agent.rules = own_rules
    return agent
