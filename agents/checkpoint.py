"""Training checkpoints: atomic save, safe load, and the agent that plays one.

A checkpoint is a plain dict of tensors, dicts, lists, ints, floats and strings,
so ``torch.load(..., weights_only=True)`` reads it. It records the observation
layout version and the rules, and loading a file that is not a tarneeb-rl
checkpoint (or one written for another observation layout) fails with
:class:`CheckpointError` saying why.
"""
from __future__ import annotations

import os
import pickle
import random
from typing import Any, Optional

import numpy as np
import torch

from tarneeb_env import OBS_VERSION, Rules

from .model import ActorCritic, PolicyAgent

FORMAT = "tarneeb-rl-checkpoint"
FORMAT_VERSION = 1


class CheckpointError(ValueError):
    """A file that cannot be used as a tarneeb-rl checkpoint; the message says why."""


def save_checkpoint(path: str, payload: dict[str, Any]) -> None:
    """Write ``payload`` (plus format markers) to ``path`` atomically: tmp file, then ``os.replace``."""
    data = {**payload, "format": FORMAT, "format_version": FORMAT_VERSION, "obs_version": OBS_VERSION}
    tmp = f"{path}.tmp.{os.getpid()}"
    torch.save(data, tmp)
    os.replace(tmp, path)


def load_checkpoint(path: str) -> dict[str, Any]:
    """Read and check a checkpoint (weights_only)."""
    if not os.path.isfile(path):
        raise CheckpointError(f"{path}: no such checkpoint file")
    try:
        data = torch.load(path, map_location="cpu", weights_only=True)
    except (pickle.UnpicklingError, RuntimeError, EOFError, ValueError, OSError) as e:
        raise CheckpointError(f"{path}: not a tarneeb-rl checkpoint (cannot be read as one: {e})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise CheckpointError(f"{path}: not a tarneeb-rl checkpoint (no '{FORMAT}' marker)")
    if data.get("format_version") != FORMAT_VERSION:
        raise CheckpointError(
            f"{path}: checkpoint format version {data.get('format_version')!r}, this code reads {FORMAT_VERSION}"
        )
    if data.get("obs_version") != OBS_VERSION:
        raise CheckpointError(
            f"{path}: written for observation layout version {data.get('obs_version')!r}, but this code's "
            f"OBS_VERSION is {OBS_VERSION}; the network would read the wrong inputs"
        )
    return data


PLAY_KEYS = ("rules", "config", "learn", "model", "state_dict", "counters", "last_eval")


def export_for_play(src: str, dst: str) -> None:
    """Write the part of a training checkpoint that playing needs (no optimizer, pool or RNG state).

    The result is about a third of the size, loads with ``agents.load`` like any
    checkpoint, and cannot be resumed. Used to ship ``checkpoints/default.pt``.
    """
    data = load_checkpoint(src)
    os.makedirs(os.path.dirname(dst) or ".", exist_ok=True)
    save_checkpoint(dst, {k: data[k] for k in PLAY_KEYS})


def model_from_checkpoint(data: dict[str, Any]) -> ActorCritic:
    arch = data["model"]
    model = ActorCritic(arch["hidden"], arch["obs_size"], arch["num_actions"])
    model.load_state_dict(data["state_dict"])
    return model.eval()


def load_checkpoint_agent(
    path: str, sample: bool = False, seed: Optional[int] = None, other: Optional[str] = None, **_ignored
) -> PolicyAgent:
    """The agent a checkpoint plays (used by ``agents.load("x.pt")``): greedy unless ``sample=True``.

    Phases the policy did not learn are played by the agent the run used for
    them (``learn.other``), or by ``other`` when given.
    """
    import agents

    data = load_checkpoint(path)
    learn = data["learn"]
    phases = tuple(learn["phases"])
    other_agent = None
    if len(phases) < 3:
        other_agent = agents.load(other or learn["other"])
    agent = PolicyAgent(model_from_checkpoint(data), phases, other_agent, sample=sample, seed=seed)
    agent.name = os.path.basename(path)
    agent.rules = Rules(**data["rules"])
    return agent


# ---------------------------------------------------------------- RNG states as plain data
def rng_states() -> dict[str, Any]:
    """torch, numpy and python global generator states, as tensors and plain python data."""
    name, keys, pos, has_gauss, cached = np.random.get_state()
    version, internal, gauss = random.getstate()
    return {
        "torch": torch.get_rng_state(),
        "numpy": {"name": name, "keys": keys.tolist(), "pos": int(pos), "has_gauss": int(has_gauss),
                  "cached_gaussian": float(cached)},
        "python": {"version": version, "internal": list(internal), "gauss": gauss},
    }


def set_rng_states(state: dict[str, Any]) -> None:
    torch.set_rng_state(state["torch"])
    n = state["numpy"]
    np.random.set_state((n["name"], np.array(n["keys"], dtype=np.uint32), n["pos"], n["has_gauss"],
                         n["cached_gaussian"]))
    p = state["python"]
    random.setstate((p["version"], tuple(p["internal"]), p["gauss"]))
