"""The actor-critic network shared by all four seats (how it acts is :mod:`agents.policy`'s).

One MLP trunk reads the 694-float observation; a policy head gives 70 logits and
a value head the expected rest-of-hand reward (scaled by ``reward_scale``). With
``critic="privileged"`` the value comes from a separate MLP that also reads the
other seats' cards (:mod:`tarneeb_env.privileged`), during training only: the
policy's inputs stay the seat's observation, so a table never needs them.
With ``canonical_trump=True`` the network sees every deal with the trump suit
relabelled as hearts (trump and hearts swapped in each card block, the trump and
voids blocks, and the card and trump actions; deals whose trump is not yet known
as they are): what it learns about trumps is learned once instead of once per
suit, and a network trained
where hearts are always trump (``hearts41``) plays where the trump is turned up
(``syrian41``). With ``view="contract7"`` a deal without an auction (``trump_by_card``) reads as one where
the eldest hand (who leads) bid 7 and the others passed, with the trump as dealt: both sides then need 7
tricks, as both do there, so a network trained on the team auction (``classic.pt``) plays such deals from
its first step instead of meeting inputs it never saw. Both transforms are the observation's
(:mod:`tarneeb_env.transforms`); the network applies them. Illegal actions are masked to a large negative logit
(not ``-inf``, so that ``p * log p`` stays 0 in the entropy) before sampling, in the loss and in the entropy:
their probability underflows to exactly zero.
"""
from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy as np
import torch
from numba import njit
from torch import nn

from tarneeb_env import NUM_ACTIONS, OBS_SIZE
from tarneeb_env.observation import OFFSETS
from tarneeb_env.privileged import PRIV_SIZE
from tarneeb_env.transforms import CONTRACT7_AUCTIONS, VIEWS, as_contract7, suit_swaps

from .arch import CRITICS
from .sparse_input import SparseInputLinear

MASKED_LOGIT = -1e9
_TRUMP = OFFSETS["trump"]


@njit(cache=True)
def _permute_columns(x, t, table, out):
    """``out[b, j] = x[b, table[t[b], j]]``."""
    for b in range(x.shape[0]):
        row = table[t[b]]
        for j in range(x.shape[1]):
            out[b, j] = x[b, row[j]]


def permute_columns(x: torch.Tensor, t: torch.Tensor, table: torch.Tensor) -> torch.Tensor:
    """``x.gather(1, table[t])``: each row's columns reordered by its row of ``table``. On CPU a compiled loop,
    several times faster on a rollout step's rows than the gather, which first builds a (B, W) index tensor."""
    if x.device.type != "cpu" or x.dtype != torch.float32 or x.requires_grad:
        return x.gather(1, table[t])
    out = torch.empty(x.shape, dtype=torch.float32)
    _permute_columns(x.contiguous().numpy(), t.numpy(), table.numpy(), out.numpy())
    return out


def _mlp(width: int, hidden: Sequence[int]) -> tuple[nn.Sequential, int]:
    """Tanh MLP over an observation; its first layer reads only the non-zero inputs on CPU."""
    layers: list[nn.Module] = []
    for i, h in enumerate(hidden):
        layers += [(SparseInputLinear if i == 0 else nn.Linear)(width, h), nn.Tanh()]
        width = h
    return nn.Sequential(*layers), width


def _init_trunk(trunk: nn.Sequential) -> None:
    for m in trunk:
        if isinstance(m, nn.Linear):
            nn.init.orthogonal_(m.weight, gain=np.sqrt(2))
            nn.init.zeros_(m.bias)


class ActorCritic(nn.Module):
    """MLP trunk (tanh) with a policy head and a value head; the value head on its own trunk over
    observation + hidden hands when ``critic="privileged"``."""

    def __init__(self, hidden: Sequence[int] = (256, 256), obs_size: int = OBS_SIZE, num_actions: int = NUM_ACTIONS,
                 critic: str = "shared", canonical_trump: bool = False, view: str = "plain"):
        super().__init__()
        if critic not in CRITICS:
            raise ValueError(f"critic: expected one of {', '.join(CRITICS)}, got {critic!r}")
        if view not in VIEWS:
            raise ValueError(f"view: expected one of {', '.join(VIEWS)}, got {view!r}")
        self.view = view
        self.hidden = [int(h) for h in hidden]
        self.obs_size = obs_size
        self.num_actions = num_actions
        self.critic = critic
        self.canonical_trump = bool(canonical_trump)
        # the transforms' tables as buffers, which move with the network to its device; not persistent: the
        # state dict is the same as a plain network's
        if self.canonical_trump:
            for name, table in zip(("_obs_swap", "_act_swap", "_priv_swap"), suit_swaps()):
                self.register_buffer(name, torch.from_numpy(table), persistent=False)
        if view == "contract7":
            self.register_buffer("_contract7", torch.tensor(CONTRACT7_AUCTIONS), persistent=False)
        self.trunk, width = _mlp(obs_size, self.hidden)
        self.policy = nn.Linear(width, num_actions)
        if critic == "privileged":
            self.critic_trunk, cwidth = _mlp(obs_size + PRIV_SIZE, self.hidden)
        else:
            self.critic_trunk, cwidth = None, width
        self.value = nn.Linear(cwidth, 1)
        # initialised in this order so that a shared-critic net draws the same weights from a seed as before
        _init_trunk(self.trunk)
        nn.init.orthogonal_(self.policy.weight, gain=0.01)
        nn.init.zeros_(self.policy.bias)
        nn.init.orthogonal_(self.value.weight, gain=1.0)
        nn.init.zeros_(self.value.bias)
        if self.critic_trunk is not None:
            _init_trunk(self.critic_trunk)

    @property
    def privileged(self) -> bool:
        return self.critic == "privileged"

    def arch(self) -> dict[str, Any]:
        """What is needed to rebuild this network (stored in checkpoints)."""
        return {"hidden": list(self.hidden), "obs_size": self.obs_size, "num_actions": self.num_actions,
                "critic": self.critic, "canonical_trump": self.canonical_trump, "view": self.view}

    @classmethod
    def from_arch(cls, arch: dict[str, Any]) -> "ActorCritic":
        """The network :meth:`arch` describes (fresh weights); keys added later default as they did before."""
        return cls(arch["hidden"], arch.get("obs_size", OBS_SIZE), arch.get("num_actions", NUM_ACTIONS),
                   arch.get("critic", "shared"), arch.get("canonical_trump", False), arch.get("view", "plain"))

    def _relabel(self, obs: torch.Tensor) -> tuple[Optional[torch.Tensor], torch.Tensor]:
        """(each row's swap-table row, the observation as the trunk sees it)."""
        if self.view == "contract7":
            obs = as_contract7(obs, self._contract7)
        if not self.canonical_trump:
            return None, obs
        trump = obs[:, _TRUMP : _TRUMP + 4]
        t = torch.where(trump.sum(-1) > 0, trump.argmax(-1), 4)
        return t, permute_columns(obs, t, self._obs_swap)

    def _logits(self, t: Optional[torch.Tensor], x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        raw = self.policy(x)
        return masked_logits(raw if t is None else raw.gather(1, self._act_swap[t]), mask)

    def forward(self, obs: torch.Tensor, mask: torch.Tensor,
                priv: Optional[torch.Tensor] = None) -> tuple[torch.Tensor, torch.Tensor]:
        """Masked logits (B, 70) and values (B,). ``mask`` is bool or 0/1 (B, 70); ``priv`` (B, 156) the
        hidden hands, required by a privileged critic."""
        t, obs = self._relabel(obs)
        x = self.trunk(obs)
        logits = self._logits(t, x, mask)
        if self.critic_trunk is None:
            return logits, self.value(x).squeeze(-1)
        if priv is None:
            raise ValueError("a privileged critic needs the hidden hands (priv); at a table use policy_logits()")
        if t is not None:
            priv = permute_columns(priv, t, self._priv_swap)
        return logits, self.value(self.critic_trunk(torch.cat([obs, priv], dim=-1))).squeeze(-1)

    def policy_logits(self, obs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Masked logits from the observation alone: all a table needs, whatever the critic."""
        t, obs = self._relabel(obs)
        return self._logits(t, self.trunk(obs), mask)


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    return logits.masked_fill(~mask.bool(), MASKED_LOGIT)


def log_probs_entropy(logits: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Log-probabilities (B, 70) and entropy (B,) of masked logits.

    The probabilities come from ``softmax``, not ``logp.exp()``: the same values, but ``exp`` of the
    masked entries' -1e9 takes a slow path in torch's CPU kernel (about ten times the softmax)."""
    logp = torch.log_softmax(logits, dim=-1)
    entropy = -(torch.softmax(logits, dim=-1) * logp).sum(-1)
    return logp, entropy


