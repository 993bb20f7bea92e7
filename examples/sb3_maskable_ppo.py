"""tarneeb_v0 with Stable-Baselines3: sb3-contrib's MaskablePPO on a single-agent view of the AEC env.

The pattern of PettingZoo's "SB3 action masking" tutorial (a single-agent
wrapper, ``ActionMasker``, ``MaskablePPO``), with one change for a team game:
the tutorial lets one policy act for every seat and credits each decision with
the reward of whichever seat moved last, which in Tarneeb would reward a seat
for its opponents' hands. Here the learner plays one team (drawn per hand;
both partners share the team's reward) and an ``opponent`` agent plays the
other two seats inside the wrapper. Needs the extra: ``pip install -e ".[sb3]"``.

    python examples/sb3_maskable_ppo.py --steps 20000 --out runs/sb3_maskable_ppo.zip
    TARNEEB_SB3_MODEL=runs/sb3_maskable_ppo.zip \\
        python evaluate.py examples/sb3_maskable_ppo.py:MaskablePPOAgent random --deals 200
"""
from __future__ import annotations

import argparse
import os
import sys
from typing import Any, Optional, Sequence

import gymnasium as gym
import numpy as np
import torch

INSTALL_HINT = 'this example needs the sb3 extra (Stable-Baselines3, sb3-contrib): pip install -e ".[sb3]"'
try:
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.wrappers import ActionMasker
except ImportError as e:  # run as a script: one line and exit 2; imported (an agent spec): an ImportError
    if __name__ != "__main__":
        raise ImportError(f"{INSTALL_HINT} ({e})") from None
    print(f"{sys.argv[0]}: error: {INSTALL_HINT} ({e})", file=sys.stderr)
    raise SystemExit(2)

import agents
import tarneeb_env
from tarneeb_env import PlayerView

MODEL_ENV_VAR = "TARNEEB_SB3_MODEL"
DEFAULT_MODEL = "runs/sb3_maskable_ppo.zip"


class TeamVsAgentEnv(gym.Env):
    """One team of a tarneeb_v0 hand as a gymnasium env; ``opponent`` plays the other team's seats.

    The reward of a step is the learner team's score difference earned since its previous decision
    (non-zero only when the hand ends); ``action_masks()`` gives the legal actions of the seat to act.
    """

    def __init__(self, opponent: str = "random", rules: Any = "classic"):
        self.aec = tarneeb_env.env(rules=rules, episode="hand")
        space = self.aec.observation_space("player_0")
        self.observation_space = space["observation"]
        self.action_space = self.aec.action_space("player_0")
        self.opponent = agents.load(opponent)
        self.team = 0

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None):
        super().reset(seed=seed)
        self.aec.reset(seed=int(self.np_random.integers(2**31)))
        self.opponent.seed(int(self.np_random.integers(2**31)))
        self.opponent.reset()
        self.team = int(self.np_random.integers(2))
        self._play_opponents()
        return self._observation(), {}

    def step(self, action):
        reward = self._apply(int(action)) + self._play_opponents()
        done = self._done()
        return self._observation(), reward, done, False, {}

    def action_masks(self) -> np.ndarray:
        if self._done():
            return np.ones(self.action_space.n, dtype=bool)
        return self.aec.observe(self.aec.agent_selection)["action_mask"].astype(bool)

    def _done(self) -> bool:
        a = self.aec.agent_selection
        return self.aec.terminations[a] or self.aec.truncations[a]

    def _observation(self) -> np.ndarray:
        return self.aec.observe(self.aec.agent_selection)["observation"]

    def _apply(self, action: int) -> float:
        self.aec.step(action)
        return float(self.aec.rewards[f"player_{self.team}"])

    def _play_opponents(self) -> float:
        """Let the opponent act until a learner seat is to act or the hand is over."""
        reward = 0.0
        while not self._done():
            agent = self.aec.agent_selection
            if int(agent.rsplit("_", 1)[1]) % 2 == self.team:
                break
            view = self.aec.unwrapped.view(agent)
            reward += self._apply(self.opponent.act(self.aec.observe(agent), view))
        return reward


def mask_fn(env: TeamVsAgentEnv) -> np.ndarray:
    return env.action_masks()


def train(steps: int, seed: int = 0, opponent: str = "random", out: Optional[str] = None,
          threads: int = 1) -> MaskablePPO:
    """MaskablePPO for ``steps`` learner decisions; saved to ``out`` when given.

    One torch thread by default: single-observation forward passes only lose time to thread hand-offs.
    """
    torch.set_num_threads(threads)
    env = ActionMasker(TeamVsAgentEnv(opponent), mask_fn)
    env.reset(seed=seed)
    model = MaskablePPO("MlpPolicy", env, n_steps=512, batch_size=128, n_epochs=4, learning_rate=3e-4,
                        policy_kwargs={"net_arch": [128, 128]}, seed=seed, device="cpu", verbose=0)
    model.learn(total_timesteps=steps)
    if out:
        os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
        model.save(out)
    return model


class MaskablePPOAgent(agents.Agent):
    """A saved MaskablePPO model at the table: ``path``, else $TARNEEB_SB3_MODEL, else runs/sb3_maskable_ppo.zip."""

    name = "sb3_maskable_ppo"

    def __init__(self, path: Optional[str] = None, seed: Optional[int] = None):
        super().__init__(seed)
        path = path or os.environ.get(MODEL_ENV_VAR, DEFAULT_MODEL)
        if not os.path.isfile(path):
            raise FileNotFoundError(f"no MaskablePPO model at {path!r}: train one with "
                                    f"`python examples/sb3_maskable_ppo.py --out {path}` or set ${MODEL_ENV_VAR}")
        self.model = MaskablePPO.load(path, device="cpu")

    def act(self, observation: dict[str, Any], view: PlayerView) -> int:
        return self.act_batch([observation], [view])[0]

    def act_batch(self, observations: Sequence[dict[str, Any]], views: Sequence[PlayerView]) -> list[int]:
        obs = np.stack([o["observation"] for o in observations])
        masks = np.stack([o["action_mask"] for o in observations]).astype(bool)
        actions, _ = self.model.predict(obs, action_masks=masks, deterministic=True)
        return [int(a) for a in actions]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=20000, help="learner decisions to train on")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--opponent", default="random", help="agent spec playing the other team while training")
    p.add_argument("--out", default=DEFAULT_MODEL)
    p.add_argument("--deals", type=int, default=200, help="duplicate deals against random afterwards")
    p.add_argument("--threads", type=int, default=1, help="torch threads")
    args = p.parse_args(argv)
    train(args.steps, args.seed, args.opponent, args.out, args.threads)
    from evaluation import duplicate_match

    m = duplicate_match(MaskablePPOAgent(args.out), "random", deals=args.deals, seed=args.seed)
    ci = "" if m.ci95 is None else f" (95% CI {m.ci95[0]:+.2f} .. {m.ci95[1]:+.2f})"
    print(f"saved {args.out}; margin vs random over {args.deals} duplicate deals: {m.margin:+.2f}{ci}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
