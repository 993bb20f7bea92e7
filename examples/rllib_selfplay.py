"""Self-play PPO on tarneeb_v0 with RLlib: the PettingZoo env through RLlib's ``PettingZooEnv``.

All four seats map to one shared policy, an RLModule (RLlib's new API stack) that
reads the env's ``{"observation", "action_mask"}`` dict and gives illegal actions
a logit of -1e9 in every forward pass, so exploration, training and inference
never pick one. Needs the extra: ``pip install -e ".[rllib]"``.

    python examples/rllib_selfplay.py --iterations 5
"""
from __future__ import annotations

import argparse
import sys
from typing import Any

import torch
from torch import nn

INSTALL_HINT = 'this example needs the rllib extra (Ray RLlib): pip install -e ".[rllib]"'
try:
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.core.rl_module.torch import TorchRLModule
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
    from ray.tune.registry import register_env
except ImportError as e:  # run as a script: one line and exit 2; imported: an ImportError
    if __name__ != "__main__":
        raise ImportError(f"{INSTALL_HINT} ({e})") from None
    print(f"{sys.argv[0]}: error: {INSTALL_HINT} ({e})", file=sys.stderr)
    raise SystemExit(2)

import tarneeb_env

ENV_NAME = "tarneeb_v0"
POLICY = "shared"
MASKED_LOGIT = -1e9


def make_env(env_config: dict[str, Any]) -> PettingZooEnv:
    """tarneeb_v0 (one hand per episode unless ``episode`` says otherwise) as an RLlib MultiAgentEnv."""
    return PettingZooEnv(tarneeb_env.env(**env_config))


class MaskedActorCritic(TorchRLModule, ValueFunctionAPI):
    """An MLP policy and value head over the observation; the action mask removes illegal actions."""

    def setup(self):
        obs_size = self.observation_space["observation"].shape[0]
        hidden = self.model_config.get("hidden", [128])
        layers, width = [], obs_size
        for h in hidden:
            layers += [nn.Linear(width, h), nn.ReLU()]
            width = h
        self.body = nn.Sequential(*layers)
        self.pi = nn.Linear(width, self.action_space.n)
        self.vf = nn.Linear(width, 1)

    def _forward(self, batch: dict[str, Any], **kwargs) -> dict[str, Any]:
        obs = batch[Columns.OBS]
        logits = self.pi(self.body(obs["observation"]))
        logits = logits.masked_fill(obs["action_mask"] == 0, MASKED_LOGIT)
        return {Columns.ACTION_DIST_INPUTS: logits}

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        return self.vf(self.body(batch[Columns.OBS]["observation"])).squeeze(-1)


def build_config(seed: int = 0, batch: int = 1000, hidden: tuple[int, ...] = (128,)) -> PPOConfig:
    """PPO with one policy for the four seats, sampling in the driver process (small and reproducible)."""
    register_env(ENV_NAME, make_env)
    return (
        PPOConfig()
        # RLlib's env checker steps random unmasked actions, which tarneeb_v0 rightly refuses
        .environment(ENV_NAME, env_config={"episode": "hand"}, disable_env_checking=True)
        .env_runners(num_env_runners=0, rollout_fragment_length="auto")
        .multi_agent(policies={POLICY}, policy_mapping_fn=lambda agent_id, *args, **kwargs: POLICY)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={
            POLICY: RLModuleSpec(module_class=MaskedActorCritic, model_config={"hidden": list(hidden)}),
        }))
        .training(train_batch_size_per_learner=batch, minibatch_size=min(batch, 256), num_epochs=2, lr=3e-4)
        .debugging(seed=seed, log_level="ERROR")
    )


def train(iterations: int, seed: int = 0, batch: int = 1000, threads: int = 1) -> list[dict[str, Any]]:
    """Run ``iterations`` PPO iterations; returns each iteration's result dict.

    One torch thread by default: sampling runs single-step forward passes in this process.
    """
    torch.set_num_threads(threads)
    algo = build_config(seed, batch).build_algo()
    try:
        return [algo.train() for _ in range(iterations)]
    finally:
        algo.stop()


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--iterations", type=int, default=5)
    p.add_argument("--batch", type=int, default=1000, help="env steps (all seats) per iteration")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=1, help="torch threads")
    args = p.parse_args(argv)
    import ray

    ray.init(include_dashboard=False)
    for i, result in enumerate(train(args.iterations, args.seed, args.batch, args.threads), 1):
        env, learn = result["env_runners"], result["learners"][POLICY]
        print(f"iteration {i}: env steps {env['num_env_steps_sampled_lifetime']:.0f}, "
              f"hands {env['num_episodes_lifetime']:.0f}, "
              f"team 0 mean hand return {env['agent_episode_returns_mean']['player_0']:+.2f}, "
              f"policy loss {learn['policy_loss']:.3f}, entropy {learn['entropy']:.3f}")
    ray.shutdown()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
