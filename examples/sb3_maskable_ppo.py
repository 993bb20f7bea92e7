"""Tarneeb with Stable-Baselines3: sb3-contrib's MaskablePPO on ``tarneeb_env.vector_env``.

The learner plays one team (drawn per hand; both partners share the team's
reward) and an ``opponent`` agent plays the other two seats inside the batch
engine, so each step is one learner decision in each of ``--num-envs`` games.
SB3 takes its own ``VecEnv``, not gymnasium's ``VectorEnv``: ``TarneebVecEnv``
below adapts one to the other, and its ``env_method("action_masks")`` is where
MaskablePPO reads the legal actions. Needs the extra: ``pip install -e ".[sb3]"``.

    python examples/sb3_maskable_ppo.py --steps 20000 --out runs/sb3_maskable_ppo.zip
    TARNEEB_SB3_MODEL=runs/sb3_maskable_ppo.zip \\
        python evaluate.py examples/sb3_maskable_ppo.py:MaskablePPOAgent random --deals 200
"""
from __future__ import annotations

import argparse
import os
import sys
from typing import Any, Optional, Sequence

import numpy as np
import torch

INSTALL_HINT = 'this example needs the sb3 extra (Stable-Baselines3, sb3-contrib): pip install -e ".[sb3]"'
try:
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import VecEnv, VecMonitor
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
N_STEPS = 512  # learner decisions per rollout, over all games


class TarneebVecEnv(VecEnv):
    """``tarneeb_env.vector_env`` behind Stable-Baselines3's ``VecEnv`` interface (SB3 takes no gymnasium
    ``VectorEnv``). Both reset a finished game inside the step that ended it, so this only renames: gymnasium's
    ``infos["final_obs"]`` becomes SB3's per-game ``terminal_observation`` (with ``TimeLimit.truncated``), and
    ``env_method("action_masks")`` hands MaskablePPO the legal actions of every game."""

    def __init__(self, venv):
        self.venv = venv
        super().__init__(venv.num_envs, venv.single_observation_space, venv.single_action_space)

    def reset(self) -> np.ndarray:
        obs, _ = self.venv.reset(seed=self._seeds[0])  # model.set_random_seed() seeds game 0 first: one seed
        self._reset_seeds()
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions, dtype=np.int64)

    def step_wait(self):
        obs, rewards, terminated, truncated, info = self.venv.step(self._actions)
        dones = terminated | truncated
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for i in np.flatnonzero(dones):
            infos[i] = {"terminal_observation": info["final_obs"][i],
                        "TimeLimit.truncated": bool(truncated[i] and not terminated[i])}
        return obs, rewards, dones, infos

    def close(self) -> None:
        self.venv.close()

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        return [getattr(self.venv, attr_name)] * len(self._get_indices(indices))

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        raise NotImplementedError("one vector env holds every game: set attributes on TarneebVecEnv.venv")

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list[Any]:
        if method_name != "action_masks":
            raise NotImplementedError(f"{method_name}: only action_masks is a per-game method here")
        return list(self.venv.action_masks()[list(self._get_indices(indices))])

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False] * len(self._get_indices(indices))


def train(steps: int, seed: int = 0, opponent: str = "random", out: Optional[str] = None,
          threads: int = 1, num_envs: int = 8) -> MaskablePPO:
    """MaskablePPO for ``steps`` learner decisions in ``num_envs`` games; saved to ``out`` when given.

    One torch thread by default: small forward passes only lose time to thread hand-offs.
    """
    torch.set_num_threads(threads)
    venv = tarneeb_env.vector_env(num_envs, opponents=opponent, seats="team", seed=seed)
    env = VecMonitor(TarneebVecEnv(venv))  # SB3's episode statistics (ep_rew_mean)
    model = MaskablePPO("MlpPolicy", env, n_steps=max(1, N_STEPS // num_envs), batch_size=128, n_epochs=4,
                        learning_rate=3e-4, policy_kwargs={"net_arch": [128, 128]}, seed=seed, device="cpu",
                        verbose=0)
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
    p.add_argument("--num-envs", type=int, default=8, help="games stepped together by the vector env")
    args = p.parse_args(argv)
    train(args.steps, args.seed, args.opponent, args.out, args.threads, args.num_envs)
    from evaluation import duplicate_match

    m = duplicate_match(MaskablePPOAgent(args.out), "random", deals=args.deals, seed=args.seed)
    ci = "" if m.ci95 is None else f" (95% CI {m.ci95[0]:+.2f} .. {m.ci95[1]:+.2f})"
    print(f"saved {args.out}; margin vs random over {args.deals} duplicate deals: {m.margin:+.2f}{ci}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
