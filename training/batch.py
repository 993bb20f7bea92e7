"""One batch type for every exchange of training data: rollouts, the warm start, the updates.

A :class:`Batch` holds one row per learned decision. A rollout fills it with
numpy arrays (cheap to pickle to and from worker processes); :meth:`Batch.to`
gives the torch tensors on the learner's device that the PPO and cloning
losses read. Warm-start (teacher) rows have no behaviour policy: their
``logp`` and ``values`` are 0, so ``advantages`` equal ``returns``. ``priv``
(the other seats' cards at each decision) is there only for a privileged
critic (``model.critic: privileged``); it is ``None`` otherwise.

:func:`schema` (dtype and row shape of each field) is the one description of a
row: the rollout's :class:`~training.rollout.Storage`, the warm start and the
rollout process's shared memory all allocate from it.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import torch

from tarneeb_env import NUM_ACTIONS, OBS_SIZE
from tarneeb_env.privileged import PRIV_SIZE

DATA = ("obs", "mask", "actions", "logp", "values", "advantages", "returns")
_FIELDS = {"obs": (np.float32, (OBS_SIZE,)), "mask": (np.bool_, (NUM_ACTIONS,)), "actions": (np.int64, ()),
           "logp": (np.float32, ()), "values": (np.float32, ()), "advantages": (np.float32, ()),
           "returns": (np.float32, ()), "priv": (np.float32, (PRIV_SIZE,))}


def schema(privileged: bool, fields: Sequence[str] = DATA) -> dict[str, tuple[type, tuple[int, ...]]]:
    """``{field: (dtype, row shape)}`` of ``fields``, and ``priv`` (the hidden hands) with a privileged critic."""
    return {f: _FIELDS[f] for f in (*fields, "priv") if f != "priv" or privileged}


def allocate(lead: tuple[int, ...], privileged: bool, fields: Sequence[str] = DATA) -> dict[str, np.ndarray]:
    """Zeroed arrays of shape ``lead + row shape`` for :func:`schema`'s fields."""
    return {f: np.zeros((*lead, *shape), dtype=dt) for f, (dt, shape) in schema(privileged, fields).items()}


@dataclass
class Batch:
    obs: Any  # (B, 694) float32
    mask: Any  # (B, 70) bool
    actions: Any  # (B,) int64
    logp: Any  # (B,) float32 behaviour log-probability
    values: Any  # (B,) float32 behaviour values
    advantages: Any  # (B,) float32
    returns: Any  # (B,) float32 value targets (reward * reward_scale)
    stats: dict[str, float] = field(default_factory=dict)  # the collection's figures (rollouts only)
    priv: Any = None  # (B, 156) float32 hidden hands, for a privileged critic only

    def fields(self) -> tuple[str, ...]:
        """The row fields this batch holds."""
        return DATA if self.priv is None else DATA + ("priv",)

    def __len__(self) -> int:
        return int(self.actions.shape[0])

    def to(self, device: torch.device) -> Batch:
        """The same rows as torch tensors on ``device`` (numpy arrays are converted, tensors moved)."""
        def tensor(x):
            return (torch.from_numpy(x) if isinstance(x, np.ndarray) else x).to(device)

        return replace(self, **{f: tensor(getattr(self, f)) for f in self.fields()})

    def select(self, idx: torch.Tensor) -> Batch:
        """The rows ``idx`` (a minibatch of a :meth:`to` batch), without statistics. ``index_select``, not
        ``x[idx]``: on CPU it copies a minibatch of observations in about a quarter of the time."""
        def rows(x):
            return x.index_select(0, idx)

        return Batch(*(rows(getattr(self, f)) for f in DATA), priv=None if self.priv is None else rows(self.priv))

    @staticmethod
    def concat(batches: Sequence[Batch], stats: dict[str, float]) -> Batch:
        """The rows of ``batches`` in order (numpy), with ``stats``."""
        priv = None if batches[0].priv is None else np.concatenate([b.priv for b in batches])
        return Batch(*(np.concatenate([getattr(b, f) for b in batches]) for f in DATA), stats=stats, priv=priv)

