"""Behaviour-cloning warm start: teacher-vs-teacher decisions and the supervised update.

Plain PPO from a random network soon learns that passing every bid is safe and
never finds its way to contracts; cloning a decent teacher (``rule``) first
gives PPO a policy that bids and plays, and a value head that already knows
what a hand is worth, so the policy gradient starts from useful advantages.

Data come in chunks: ``num_games`` games on the batch engine, every seat played
by the teacher (one agent object seated at every table through
:class:`agents.seating.Seating`, asked once per step), ``steps`` decisions each,
re-seeded from one integer like a PPO rollout and recorded and finished as one
(:class:`~training.rollout.Storage`). Value targets are each seat's rest-of-hand
reward (the hand's team score difference; discounted by ``gamma`` per decision,
1 by default) times ``reward_scale``, the units of the value head; decisions of
hands still running when the chunk stops, and those of phases the policy does
not learn, are dropped.
"""
from __future__ import annotations

import numpy as np
import torch

import agents
from agents.model import ActorCritic, log_probs_entropy
from agents.seating import BatchTables, Seating
from tarneeb_env import Rules
from tarneeb_env.batch import BatchEnv
from tarneeb_env.transforms import obs_phase

from .batch import Batch
from .ppo import minibatch_steps
from .rollout import Storage
from .seeds import teacher_seeds


class TeacherRollout:
    """Plays ``num_games`` teacher-only games on the batch engine and keeps every decision."""

    def __init__(self, teacher: str, rules: Rules, num_games: int, steps: int, reward_scale: float, gamma: float,
                 learned: np.ndarray, privileged: bool = False):
        self.learned = learned  # bool[4] per phase index: only these decisions are kept
        self.privileged = privileged  # record the hidden hands for a privileged critic
        self.env = BatchEnv(num_games=num_games, rules=rules)
        self.seating = Seating([agents.load(teacher, rules=rules)], np.zeros((num_games, 4), dtype=np.int64))
        self.steps = steps
        self.reward_scale = reward_scale
        self.gamma = gamma

    def collect(self, seed: int) -> Batch:
        agent_seeds, deal_seed = teacher_seeds(seed, 1)
        self.seating.start(agent_seeds)
        N, T = self.env.num_games, self.steps
        games = list(range(N))
        obs, mask, seat = self.env.reset(seed=deal_seed)
        engine = BatchTables(self.env, obs, mask)
        storage = Storage(T, N, self.privileged)  # logp and values stay 0: no behaviour policy
        for t in range(T):
            storage.obs[t], storage.mask[t], storage.seats[t] = obs, mask, seat
            if storage.priv is not None:
                storage.priv[t] = self.env.privileged()
            storage.actions[t] = self.seating.act(games, seat.tolist(), engine)
            obs, mask, seat, storage.rewards[t], storage.dones[t], _ = self.env.step(storage.actions[t])
            engine.update(obs, mask)
        # Monte-Carlo returns: the rollout's finishing with zero values and lambda 1, along every decision's chain
        every = np.ones((T, N), dtype=bool)
        return storage.finish(every, self.learned[obs_phase(storage.obs)], self.reward_scale, self.gamma, 1.0, {})


def bc_loss(model: ActorCritic, mb: Batch, vf_coef: float) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """Masked cross-entropy on the teacher's actions plus ``vf_coef`` times the value loss."""
    logits, values = model(mb.obs, mb.mask, mb.priv)
    logp_all, _ = log_probs_entropy(logits)
    ce = -logp_all.gather(1, mb.actions[:, None]).squeeze(1).mean()
    v_loss = 0.5 * ((values - mb.returns) ** 2).mean()
    with torch.no_grad():
        stats = {
            "policy_loss": ce.detach(),
            "value_loss": v_loss.detach(),
            "accuracy": (logits.argmax(-1) == mb.actions).float().mean(),
        }
    return ce + vf_coef * v_loss, stats


def bc_update(
    model: ActorCritic,
    optimizer: torch.optim.Optimizer,
    data: Batch,
    *,
    epochs: int,
    minibatch_size: int,
    vf_coef: float,
    max_grad_norm: float,
    generator: torch.Generator,
) -> dict[str, float]:
    """Minibatch epochs of :func:`bc_loss`; returns the mean statistics of the last epoch."""
    model.train()
    out = {"policy_loss": float("nan"), "value_loss": float("nan"), "accuracy": float("nan")}  # no data: no update
    for _ in range(epochs):
        totals: dict[str, float] = {}
        count = 0
        for stats in minibatch_steps(
            model, optimizer, data, lambda mb: bc_loss(model, mb, vf_coef), minibatch_size, max_grad_norm, generator
        ):
            for k, v in stats.items():
                totals[k] = totals.get(k, 0.0) + float(v)
            count += 1
        out = {k: v / max(count, 1) for k, v in totals.items()}
    model.eval()
    return out


@torch.no_grad()
def agreement(model: ActorCritic, data: Batch) -> float:
    """Share of decisions with a choice (two or more legal actions) where the greedy policy picks the teacher's."""
    choice = data.mask.sum(-1) > 1
    if not choice.any():
        return float("nan")
    logits = model.policy_logits(data.obs[choice], data.mask[choice])
    return float((logits.argmax(-1) == data.actions[choice]).float().mean())
