"""Checkpoint loading: the safe reader and the agent that plays a checkpoint (writing is in ``training``).

A checkpoint is a plain dict of tensors, dicts, lists, ints, floats and strings,
so ``torch.load(..., weights_only=True)`` reads it. It records the observation
layout version and the rules, and loading a file that is not a tarneeb-rl
checkpoint (or one written for another observation layout) fails with
:class:`CheckpointError` saying why.
"""
from __future__ import annotations

import os
import pickle
from typing import Any, Optional

import torch

from tarneeb_env import OBS_VERSION, Rules

from .model import ActorCritic, PolicyAgent

FORMAT = "tarneeb-rl-checkpoint"
FORMAT_VERSION = 1


class CheckpointError(ValueError):
    """A file that cannot be used as a tarneeb-rl checkpoint; the message says why."""


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


def model_from_checkpoint(data: dict[str, Any]) -> ActorCritic:
    arch = data["model"]
    model = ActorCritic(arch["hidden"], arch["obs_size"], arch["num_actions"], arch.get("critic", "shared"))
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
