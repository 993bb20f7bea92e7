"""Writing checkpoints: atomic save, the play-only export, weight averaging, and RNG states as plain data.

Everything written is plain tensors, dicts, lists and numbers, so the reader
(:func:`agents.checkpoint.load_checkpoint`) can use ``torch.load(..., weights_only=True)``.
"""
from __future__ import annotations

import os
import random
from typing import Any

import numpy as np
import torch

from agents.checkpoint import FORMAT, FORMAT_VERSION, CheckpointError, load_checkpoint, require_keys
from tarneeb_env import OBS_VERSION

from .provenance import derived


def save_checkpoint(path: str, payload: dict[str, Any]) -> None:
    """Write ``payload`` (plus format markers) to ``path`` atomically: tmp file, then ``os.replace``."""
    data = {**payload, "format": FORMAT, "format_version": FORMAT_VERSION, "obs_version": OBS_VERSION}
    tmp = f"{path}.tmp.{os.getpid()}"
    torch.save(data, tmp)
    os.replace(tmp, path)


PLAY_KEYS = ("rules", "config", "learn", "model", "state_dict", "counters", "last_eval")
# What only a training checkpoint holds: an export (PLAY_KEYS) plays but cannot be resumed.
TRAINING_KEYS = ("optimizer", "pool", "rng")


def require_training_checkpoint(data: dict[str, Any], path: str) -> None:
    """Refuse, before any trainer is built, a checkpoint that ``--resume`` cannot continue."""
    if all(k not in data for k in TRAINING_KEYS) and all(k in data for k in PLAY_KEYS):
        raise CheckpointError(
            f"{path}: a play-only checkpoint (written by train.py --export: no optimizer, pool or RNG state), so "
            "it cannot be resumed; resume the run directory that wrote it (its latest.pt), or start a new run with "
            "python train.py --config FILE"
        )
    require_keys(data, path, (*PLAY_KEYS, *TRAINING_KEYS), "to resume training")


def export_for_play(src: str, dst: str) -> None:
    """Write the part of a training checkpoint that playing needs (no optimizer, pool or RNG state).

    The result is about a third of the size, loads with ``agents.load`` like any
    checkpoint, and cannot be resumed. Used to ship the files in ``checkpoints/``.
    """
    data = load_checkpoint(src)
    require_keys(data, src, PLAY_KEYS, "to export")
    os.makedirs(os.path.dirname(dst) or ".", exist_ok=True)
    save_checkpoint(dst, {**{k: data[k] for k in PLAY_KEYS},
                          "provenance": derived("export", [(src, _short_name(src), data)])})


def average_for_play(srcs: list[str], dst: str) -> None:
    """Write a play-only checkpoint whose weights are the mean of ``srcs``' (a "model soup", Wortsman et al. 2022).

    Runs fine-tuned from one network (e.g. two seeds of one link of a training chain) stay in one basin of the
    loss: the mean of two such runs played better than either for classic's links 3 to 5 and trump_by_card's
    links 3 to 8 (docs/results.md has the figures), at no cost at play time; the mean of runs of different recipes from
    syrian41.pt was level with its best member. Networks trained from different starts do not average into
    anything useful, and nothing here can tell (docs/results.md says which shipped files are averages, of what).
    Every source needs the
    same rules, learned phases and architecture; layout-1 files are upgraded on load. Rules, learned phases and
    config come from the first source; ``counters`` are the sources' sums and ``averaged_from`` names the
    sources (folder/file).
    """
    if len(srcs) < 2:
        raise CheckpointError(f"--average needs at least two checkpoints to average, got {len(srcs)}")
    datas = [load_checkpoint(src) for src in srcs]
    for src, data in zip(srcs, datas):
        require_keys(data, src, PLAY_KEYS, "to average")
    first, head = datas[0], srcs[0]
    for src, data in zip(srcs[1:], datas[1:]):
        for key, what in (("rules", "rules"), ("learn", "learned phases"), ("model", "network")):
            differ = [f"{k} {data[key].get(k)!r} against {first[key].get(k)!r}"
                      for k in dict.fromkeys([*first[key], *data[key]]) if data[key].get(k) != first[key].get(k)]
            if differ:
                raise CheckpointError(f"{src}: its {what} differ from {head}'s ({'; '.join(differ)}); only networks "
                                      "of one architecture, trained for one game, can be averaged")
    keys = list(first["state_dict"])
    average = {k: sum(data["state_dict"][k].float() for data in datas) / len(datas) for k in keys}
    counters = {k: sum(d["counters"].get(k, 0) for d in datas) for k in first["counters"]}
    os.makedirs(os.path.dirname(dst) or ".", exist_ok=True)
    save_checkpoint(dst, {**{k: first[k] for k in PLAY_KEYS}, "state_dict": average, "counters": counters,
                          "last_eval": {}, "averaged_from": [_short_name(src) for src in srcs],
                          "provenance": derived("average", [(s, _short_name(s), d) for s, d in zip(srcs, datas)])})


def _short_name(path: str) -> str:
    """A source's file name with its folder's (``run/latest.pt``): enough to tell the sources apart, and no
    more of this machine's paths in a file that may be shipped."""
    path = os.path.abspath(path)
    return f"{os.path.basename(os.path.dirname(path))}/{os.path.basename(path)}"


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
