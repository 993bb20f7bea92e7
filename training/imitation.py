"""Behaviour-cloning warm start: teacher-vs-teacher decisions and the supervised update.

Plain PPO from a random network soon learns that passing every bid is safe and
never finds its way to contracts; cloning a decent teacher (``rule``) first
gives PPO a policy that bids and plays, and a value head that already knows
what a hand is worth, so the policy gradient starts from useful advantages.

Data come in chunks: ``num_games`` games on the batch engine, every seat played
by the teacher (one agent object seated at every table through
:class:`agents.seating.Seating`, asked once per step), ``steps`` decisions each,
re-seeded from one integer like a PPO rollout. Value targets are each seat's undiscounted rest-of-hand reward (the
hand's team score difference) times ``reward_scale``, the units of the value
head; decisions of hands still running when the chunk stops, and those of
phases the policy does not learn, are dropped.

``target="dd"`` learns card play from double-dummy values instead of the
teacher's choices: each card play with a choice is solved on the actual deal
(one DDS solve gives every legal card's tricks), and the policy minimises its
expected trick loss against the best card, ``sum_a pi(a) * regret(a)``. The
policy cannot see the deal, so the minimum is the card with the least loss on
average over the deals its observation allows: PIMC's rule, with the deals
weighted as they arise in play rather than sampled uniformly, and learned once
instead of searched at every decision. Other decisions keep the teacher's
action as their target (regret 1 for every other action).
"""
from __future__ import annotations

import numpy as np
import torch

import agents
from agents.model import ActorCritic, log_probs_entropy, phase_of
from agents.seating import BatchTables, Seating
from tarneeb_env import Rules
from tarneeb_env import batch_kernels as bk
from tarneeb_env.batch import BatchEnv
from tarneeb_env.cards import NUM_ACTIONS
from tarneeb_env.privileged import PRIV_SIZE
from tarneeb_env.rules_core import PLAY

from .batch import Batch
from .ppo import gae_per_seat, minibatch_steps
from .seeds import teacher_seeds


TARGETS = ("action", "dd")


def dd_regret(env: BatchEnv, games: np.ndarray) -> np.ndarray:
    """float32 (len(games), 70): for the card play of each game in ``games`` (seat to act, play phase),
    each legal card's double-dummy trick loss against the best legal card on the actual deal; 0 elsewhere."""
    from agents import dds

    st, plays, _ = env.kernel_state()
    positions = []
    for i in games:
        n = st[i, bk.NPLAYED]
        trick = [int(c) for c in plays[i, n - n % 4 : n, 1]]
        leader = int(plays[i, n - n % 4, 0]) if trick else int(st[i, bk.CURRENT])
        hands = [int(h) for h in st[i, bk.HAND0 : bk.HAND0 + 4]]
        positions.append((hands, int(st[i, bk.TRUMP_SUIT]), leader, trick))
    out = np.zeros((len(games), NUM_ACTIONS), dtype=np.float32)
    for row, values in zip(out, dds.solve_positions(positions)):
        best = max(values.values())
        for card, tricks in values.items():
            row[card] = best - tricks
    return out


class TeacherRollout:
    """Plays ``num_games`` teacher-only games on the batch engine and keeps every decision."""

    def __init__(self, teacher: str, rules: Rules, num_games: int, steps: int, reward_scale: float, gamma: float,
                 learned: np.ndarray, privileged: bool = False, target: str = "action", threads: int = 1):
        self.learned = learned  # bool[4] per phase index: only these decisions are kept
        self.privileged = privileged  # record the hidden hands for a privileged critic
        self.target = target  # "action": the teacher's choices; "dd": card play's double-dummy regret
        if target == "dd":
            from agents import dds

            dds.set_threads(threads)
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
        all_obs = np.zeros((T, N, obs.shape[1]), dtype=np.float32)
        all_mask = np.zeros((T, N, mask.shape[1]), dtype=bool)
        all_priv = np.zeros((T, N, PRIV_SIZE if self.privileged else 0), dtype=np.float32)
        regret = np.zeros((T, N, NUM_ACTIONS if self.target == "dd" else 0), dtype=np.float32)
        actions = np.zeros((T, N), dtype=np.int64)
        seats = np.zeros((T, N), dtype=np.int64)
        rewards = np.zeros((T, N, 4), dtype=np.float32)
        dones = np.zeros((T, N), dtype=bool)
        for t in range(T):
            all_obs[t], all_mask[t], seats[t] = obs, mask, seat
            if self.privileged:
                all_priv[t] = self.env.privileged()
            actions[t] = self.seating.act(games, seat.tolist(), engine)
            if self.target == "dd":
                play = phase_of(obs) == PLAY
                solve = play & (mask.sum(-1) > 1)
                regret[t] = 1.0
                regret[t, np.arange(N), actions[t]] = 0.0  # outside card play: the teacher's action
                regret[t, play] = 0.0  # a forced card costs nothing
                if solve.any():
                    regret[t, solve] = dd_regret(self.env, np.flatnonzero(solve))
            obs, mask, seat, rewards[t], dones[t], _ = self.env.step(actions[t])
            engine.update(obs, mask)
        # Monte-Carlo returns: GAE with zero values and lambda 1
        returns = gae_per_seat(np.zeros((T, N), np.float32), rewards * self.reward_scale, dones, seats,
                               np.ones((T, N), bool), self.gamma, 1.0)
        last_done = np.full(N, -1)
        tt, gg = np.nonzero(dones)
        np.maximum.at(last_done, gg, tt)
        keep = (np.arange(T)[:, None] <= last_done[None, :]) & self.learned[phase_of(all_obs)]
        returns = returns[keep]
        zeros = np.zeros_like(returns)
        return Batch(all_obs[keep], all_mask[keep], actions[keep], logp=zeros, values=zeros, advantages=returns,
                     returns=returns, priv=all_priv[keep] if self.privileged else None,
                     regret=regret[keep] if self.target == "dd" else None)


def bc_loss(model: ActorCritic, mb: Batch, vf_coef: float) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """Masked cross-entropy on the teacher's actions (or, with ``regret`` rows, the expected regret under the
    policy) plus ``vf_coef`` times the value loss. ``accuracy``: the greedy choice is the teacher's (has no
    regret)."""
    logits, values = model(mb.obs, mb.mask, mb.priv)
    if mb.regret is None:
        logp_all, _ = log_probs_entropy(logits)
        policy_loss = -logp_all.gather(1, mb.actions[:, None]).squeeze(1).mean()
    else:
        policy_loss = (torch.softmax(logits, dim=-1) * mb.regret).sum(-1).mean()
    v_loss = 0.5 * ((values - mb.returns) ** 2).mean()
    with torch.no_grad():
        greedy = logits.argmax(-1)
        right = (greedy == mb.actions) if mb.regret is None else (mb.regret.gather(1, greedy[:, None])[:, 0] == 0)
        stats = {"policy_loss": policy_loss.detach(), "value_loss": v_loss.detach(), "accuracy": right.float().mean()}
    return policy_loss + vf_coef * v_loss, stats


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
