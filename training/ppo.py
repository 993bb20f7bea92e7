"""PPO pieces: per-seat GAE over batched rollouts, the clipped loss, and one update.

Rollouts come as (T, N) arrays: step ``t`` of game ``i`` is one decision by
seat ``seats[t, i]``. Seats take turns in one game, so each seat's trajectory
is the chain of *its own* decisions; GAE runs along those chains, never across
seats. Rewards of step ``t`` (``rewards[t, i, s]``, given when a hand ends)
belong to each seat's latest decision at or before ``t``.
"""
from __future__ import annotations

import numpy as np
import torch
from torch import nn

from agents.model import ActorCritic, log_probs_entropy

from .batch import Batch


def gae_per_seat(
    values: np.ndarray,
    rewards: np.ndarray,
    dones: np.ndarray,
    seats: np.ndarray,
    in_chain: np.ndarray,
    gamma: float,
    lam: float,
) -> np.ndarray:
    """Advantages (T, N) along each (game, seat) chain of ``in_chain`` decisions.

    ``values`` (T, N); ``rewards`` (T, N, 4) per absolute seat after step t;
    ``dones`` (T, N) episode ended after step t (the chain ends there, no
    bootstrap); ``in_chain`` (T, N) which decisions carry a value and get an
    advantage (others, e.g. a rule agent's, are skipped; their rewards pass on
    to the seat's previous chain decision). Entries outside the chain are 0.
    """
    T, N = values.shape
    adv = np.zeros((T, N), dtype=np.float32)
    next_adv = np.zeros((N, 4), dtype=np.float64)
    next_value = np.zeros((N, 4), dtype=np.float64)
    has_next = np.zeros((N, 4), dtype=bool)
    pending = np.zeros((N, 4), dtype=np.float64)
    games = np.arange(N)
    for t in range(T - 1, -1, -1):
        d = dones[t]
        if d.any():
            has_next[d] = False
            next_adv[d] = 0.0
            pending[d] = 0.0  # rewards of a later episode never flow back past its start
        pending += rewards[t]
        idx = games[in_chain[t]]
        if idx.size == 0:
            continue
        s = seats[t, idx]
        r = pending[idx, s]
        pending[idx, s] = 0.0
        nonterm = has_next[idx, s]
        v = values[t, idx]
        delta = r + gamma * np.where(nonterm, next_value[idx, s], 0.0) - v
        a = delta + gamma * lam * np.where(nonterm, next_adv[idx, s], 0.0)
        adv[t, idx] = a
        next_adv[idx, s] = a
        next_value[idx, s] = v
        has_next[idx, s] = True
    return adv


def ppo_loss(
    model: ActorCritic, mb: Batch, clip: float, ent_coef: float, vf_coef: float, normalize_adv: bool = True
) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """Clipped-surrogate PPO loss on one minibatch, and its diagnostics."""
    logits, values = model(mb.obs, mb.mask, mb.priv)
    logp_all, entropy = log_probs_entropy(logits)
    logp = logp_all.gather(1, mb.actions[:, None]).squeeze(1)
    logratio = logp - mb.logp
    ratio = logratio.exp()
    adv = mb.advantages
    if normalize_adv and adv.numel() > 1:
        adv = (adv - adv.mean()) / (adv.std() + 1e-8)
    pg_loss = torch.max(-adv * ratio, -adv * ratio.clamp(1 - clip, 1 + clip)).mean()
    v_loss = 0.5 * ((values - mb.returns) ** 2).mean()
    ent = entropy.mean()
    loss = pg_loss - ent_coef * ent + vf_coef * v_loss
    with torch.no_grad():
        stats = {
            "policy_loss": pg_loss.detach(),
            "value_loss": v_loss.detach(),
            "entropy": ent.detach(),
            "approx_kl": ((ratio - 1) - logratio).mean(),
            "clipfrac": ((ratio - 1).abs() > clip).float().mean(),
        }
    return loss, stats


def explained_variance(pred: np.ndarray, target: np.ndarray) -> float:
    var = float(np.var(target))
    return float("nan") if var == 0 else 1.0 - float(np.var(target - pred)) / var


def minibatch_steps(model, optimizer, batch, loss_fn, minibatch_size: int, max_grad_norm: float,
                    generator: torch.Generator):
    """One shuffled pass of clipped gradient steps over ``batch``; yields each minibatch's statistics.

    Shared by PPO and the cloning warm start, so both draw their shuffles the same way.
    """
    perm = torch.randperm(len(batch), generator=generator)
    for start in range(0, len(batch), minibatch_size):
        loss, stats = loss_fn(batch.select(perm[start : start + minibatch_size]))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
        optimizer.step()
        yield stats


def ppo_update(
    model: ActorCritic,
    optimizer: torch.optim.Optimizer,
    batch: Batch,
    *,
    epochs: int,
    minibatch_size: int,
    clip: float,
    ent_coef: float,
    vf_coef: float,
    max_grad_norm: float,
    target_kl: float | None,
    generator: torch.Generator,
) -> dict[str, float]:
    """Several epochs of minibatch PPO; stops early once approx KL passes ``target_kl``."""
    model.train()
    totals: dict[str, float] = {}
    count = 0
    for _ in range(epochs):
        stop = False
        for stats in minibatch_steps(
            model, optimizer, batch, lambda mb: ppo_loss(model, mb, clip, ent_coef, vf_coef),
            minibatch_size, max_grad_norm, generator,
        ):
            for k, v in stats.items():
                totals[k] = totals.get(k, 0.0) + float(v)
            count += 1
            if target_kl is not None and float(stats["approx_kl"]) > target_kl:
                stop = True
                break
        if stop:
            break
    model.eval()
    out = {k: v / max(count, 1) for k, v in totals.items()}
    out["minibatches"] = float(count)
    out["explained_variance"] = explained_variance(batch.values.cpu().numpy(), batch.returns.cpu().numpy())
    return out
