"""Masked PPO on ``tarneeb_env.vector_env``, CleanRL style: one file, read top to bottom.

The learner plays one team (drawn per hand) against ``rule`` from scratch; every ``step`` of the vector env
is one learner decision in each of ``--num-envs`` games, the opponents' moves played inside the engine. It is
CleanRL's ``ppo.py`` with three changes for a card game: illegal actions are masked out of the policy
(logits set to a large negative number, the mask from ``infos["action_mask"]``), the env resets in the same
step (``AutoresetMode.SAME_STEP``: the observation after a done step is the next hand's first decision, so
``dones`` is read as in CleanRL's gym-0.21 scripts), and training stops at a wall-clock budget. Afterwards the
greedy policy plays ``--eval-deals`` duplicate deals against ``random`` through the project's evaluator.

    python examples/cleanrl_ppo_vector.py --minutes 10 --eval-deals 1000

Metric names are CleanRL's (``charts/episodic_return``, ``losses/approx_kl``...): printed every
``--log-every`` iterations and written to TensorBoard under ``--log-dir`` when given.
"""
from __future__ import annotations

import argparse
import time
from typing import Optional

import gymnasium as gym
import numpy as np
import torch
import torch.nn as nn
from torch.distributions import Categorical

import agents
import tarneeb_env
from evaluation import duplicate_match

MASKED_LOGIT = -1e8  # an illegal action's logit: exp() underflows to 0, no NaN as -inf would give


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--opponents", default="rule", help="agent spec playing the other team while training")
    p.add_argument("--minutes", type=float, default=10.0, help="wall-clock training budget")
    p.add_argument("--total-timesteps", type=int, default=50_000_000, help="learner decisions (whichever first)")
    p.add_argument("--num-envs", type=int, default=128)
    p.add_argument("--num-steps", type=int, default=64, help="steps per env per rollout")
    p.add_argument("--learning-rate", type=float, default=3e-4)
    p.add_argument("--gamma", type=float, default=1.0, help="rewards come once per hand: no discount needed")
    p.add_argument("--gae-lambda", type=float, default=0.95)
    p.add_argument("--num-minibatches", type=int, default=4)
    p.add_argument("--update-epochs", type=int, default=4)
    p.add_argument("--clip-coef", type=float, default=0.2)
    p.add_argument("--ent-coef", type=float, default=0.01)
    p.add_argument("--vf-coef", type=float, default=0.5)
    p.add_argument("--max-grad-norm", type=float, default=0.5)
    p.add_argument("--reward-scale", type=float, default=0.05, help="score points to reward units")
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--threads", type=int, default=1, help="torch threads")
    p.add_argument("--eval-deals", type=int, default=1000, help="duplicate deals against random afterwards")
    p.add_argument("--log-every", type=int, default=10, help="iterations between printed metrics")
    p.add_argument("--log-dir", default=None, help="TensorBoard directory (none: print only)")
    args = p.parse_args(argv)
    args.batch_size = args.num_envs * args.num_steps
    args.minibatch_size = args.batch_size // args.num_minibatches
    return args


def layer_init(layer: nn.Linear, std: float = np.sqrt(2), bias_const: float = 0.0) -> nn.Linear:
    torch.nn.init.orthogonal_(layer.weight, std)
    torch.nn.init.constant_(layer.bias, bias_const)
    return layer


class Agent(nn.Module):
    """Separate actor and critic MLPs, as CleanRL's ``ppo.py``; the actor's logits masked to legal actions."""

    def __init__(self, obs_size: int, num_actions: int, hidden: int):
        super().__init__()
        self.critic = nn.Sequential(
            layer_init(nn.Linear(obs_size, hidden)), nn.Tanh(),
            layer_init(nn.Linear(hidden, hidden)), nn.Tanh(),
            layer_init(nn.Linear(hidden, 1), std=1.0),
        )
        self.actor = nn.Sequential(
            layer_init(nn.Linear(obs_size, hidden)), nn.Tanh(),
            layer_init(nn.Linear(hidden, hidden)), nn.Tanh(),
            layer_init(nn.Linear(hidden, num_actions), std=0.01),
        )

    def get_value(self, x: torch.Tensor) -> torch.Tensor:
        return self.critic(x)

    def masked_logits(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return self.actor(x).masked_fill(~mask, MASKED_LOGIT)

    def get_action_and_value(self, x, mask, action=None):
        probs = Categorical(logits=self.masked_logits(x, mask))
        if action is None:
            action = probs.sample()
        return action, probs.log_prob(action), probs.entropy(), self.critic(x)


class GreedyPlayer(agents.Agent):
    """The trained policy at the evaluator's tables: the most likely legal action."""

    name = "cleanrl_ppo"

    def __init__(self, model: Agent):
        super().__init__()
        self.model = model

    def act(self, observation, view) -> int:
        return self.act_batch([observation], [view])[0]

    def act_batch(self, observations, views) -> list[int]:
        obs = torch.from_numpy(np.stack([o["observation"] for o in observations]))
        mask = torch.from_numpy(np.stack([o["action_mask"] for o in observations]).astype(bool))
        with torch.inference_mode():
            return self.model.masked_logits(obs, mask).argmax(dim=1).tolist()


def main(argv=None) -> int:
    args = parse_args(argv)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    writer = None
    if args.log_dir:
        from torch.utils.tensorboard import SummaryWriter

        writer = SummaryWriter(args.log_dir)

    # env setup: the batch engine's vector env, its episode statistics recorded by gymnasium's wrapper
    envs = tarneeb_env.vector_env(args.num_envs, opponents=args.opponents, seats="team", seed=args.seed)
    envs = gym.wrappers.vector.RecordEpisodeStatistics(envs)
    obs_size, num_actions = envs.single_observation_space.shape[0], envs.single_action_space.n
    agent = Agent(obs_size, num_actions, args.hidden)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)

    # storage
    obs = torch.zeros((args.num_steps, args.num_envs, obs_size))
    masks = torch.zeros((args.num_steps, args.num_envs, num_actions), dtype=torch.bool)
    actions = torch.zeros((args.num_steps, args.num_envs), dtype=torch.long)
    logprobs = torch.zeros((args.num_steps, args.num_envs))
    rewards = torch.zeros((args.num_steps, args.num_envs))
    dones = torch.zeros((args.num_steps, args.num_envs))
    values = torch.zeros((args.num_steps, args.num_envs))

    global_step, iteration = 0, 0
    start_time = time.time()
    deadline = start_time + 60 * args.minutes
    next_obs, info = envs.reset(seed=args.seed)
    next_obs, next_mask = torch.from_numpy(next_obs), torch.from_numpy(info["action_mask"].astype(bool))
    next_done = torch.zeros(args.num_envs)
    returns_seen: list[float] = []
    while global_step < args.total_timesteps and time.time() < deadline:
        iteration += 1
        frac = max(0.0, 1.0 - (time.time() - start_time) / (60 * args.minutes))  # anneal over the time budget
        optimizer.param_groups[0]["lr"] = frac * args.learning_rate

        for step in range(args.num_steps):
            global_step += args.num_envs
            obs[step], masks[step], dones[step] = next_obs, next_mask, next_done
            with torch.no_grad():
                action, logprob, _, value = agent.get_action_and_value(next_obs, next_mask)
            values[step] = value.flatten()
            actions[step], logprobs[step] = action, logprob
            next_obs, reward, terminations, truncations, info = envs.step(action.numpy())
            rewards[step] = torch.from_numpy(reward) * args.reward_scale
            next_done = torch.from_numpy(np.logical_or(terminations, truncations).astype(np.float32))
            next_obs, next_mask = torch.from_numpy(next_obs), torch.from_numpy(info["action_mask"].astype(bool))
            if "episode" in info:
                returns_seen.extend(info["episode"]["r"][info["_episode"]].tolist())

        # bootstrap value if not done; SAME_STEP: dones[t + 1] says whether obs[t + 1] starts a new hand
        with torch.no_grad():
            next_value = agent.get_value(next_obs).reshape(1, -1)
            advantages = torch.zeros_like(rewards)
            lastgaelam = 0
            for t in reversed(range(args.num_steps)):
                if t == args.num_steps - 1:
                    nextnonterminal, nextvalues = 1.0 - next_done, next_value
                else:
                    nextnonterminal, nextvalues = 1.0 - dones[t + 1], values[t + 1]
                delta = rewards[t] + args.gamma * nextvalues * nextnonterminal - values[t]
                advantages[t] = lastgaelam = delta + args.gamma * args.gae_lambda * nextnonterminal * lastgaelam
            returns = advantages + values

        # flatten the batch
        b_obs, b_masks = obs.reshape(-1, obs_size), masks.reshape(-1, num_actions)
        b_logprobs, b_actions = logprobs.reshape(-1), actions.reshape(-1)
        b_advantages, b_returns, b_values = advantages.reshape(-1), returns.reshape(-1), values.reshape(-1)

        # optimize the policy and value network
        b_inds = np.arange(args.batch_size)
        clipfracs = []
        for epoch in range(args.update_epochs):
            np.random.default_rng(args.seed + iteration * args.update_epochs + epoch).shuffle(b_inds)
            for start in range(0, args.batch_size, args.minibatch_size):
                mb = b_inds[start : start + args.minibatch_size]
                _, newlogprob, entropy, newvalue = agent.get_action_and_value(b_obs[mb], b_masks[mb], b_actions[mb])
                logratio = newlogprob - b_logprobs[mb]
                ratio = logratio.exp()
                with torch.no_grad():
                    old_approx_kl = (-logratio).mean()
                    approx_kl = ((ratio - 1) - logratio).mean()
                    clipfracs.append(((ratio - 1.0).abs() > args.clip_coef).float().mean().item())
                mb_advantages = b_advantages[mb]
                mb_advantages = (mb_advantages - mb_advantages.mean()) / (mb_advantages.std() + 1e-8)
                pg_loss1 = -mb_advantages * ratio
                pg_loss2 = -mb_advantages * torch.clamp(ratio, 1 - args.clip_coef, 1 + args.clip_coef)
                pg_loss = torch.max(pg_loss1, pg_loss2).mean()
                v_loss = 0.5 * ((newvalue.view(-1) - b_returns[mb]) ** 2).mean()
                entropy_loss = entropy.mean()
                loss = pg_loss - args.ent_coef * entropy_loss + v_loss * args.vf_coef
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()

        y_pred, y_true = b_values.numpy(), b_returns.numpy()
        var_y = np.var(y_true)
        explained_var = np.nan if var_y == 0 else 1 - np.var(y_true - y_pred) / var_y
        metrics = {
            "charts/learning_rate": optimizer.param_groups[0]["lr"],
            "charts/episodic_return": float(np.mean(returns_seen)) if returns_seen else float("nan"),
            "losses/value_loss": v_loss.item(), "losses/policy_loss": pg_loss.item(),
            "losses/entropy": entropy_loss.item(), "losses/old_approx_kl": old_approx_kl.item(),
            "losses/approx_kl": approx_kl.item(), "losses/clipfrac": float(np.mean(clipfracs)),
            "losses/explained_variance": float(explained_var),
            "charts/SPS": int(global_step / (time.time() - start_time)),
        }
        returns_seen = []
        if writer is not None:
            for key, value in metrics.items():
                writer.add_scalar(key, value, global_step)
        if iteration % args.log_every == 0 or iteration == 1:
            shown = " ".join(f"{k}={v:.4g}" for k, v in metrics.items())
            print(f"iteration {iteration} global_step={global_step} {shown}", flush=True)

    envs.close()
    if writer is not None:
        writer.close()
    minutes = (time.time() - start_time) / 60
    print(f"trained {global_step} learner decisions in {iteration} iterations, {minutes:.1f} min", flush=True)
    if args.eval_deals:
        m = duplicate_match(GreedyPlayer(agent.eval()), "random", deals=args.eval_deals, seed=args.seed)
        ci = "" if m.ci95 is None else f" (95% CI {m.ci95[0]:+.2f} .. {m.ci95[1]:+.2f})"
        print(f"margin vs random over {args.eval_deals} duplicate deals: {m.margin:+.2f}{ci}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
