"""The PPO update with the sparse input layer against the dense one, on the same batch, in one run.

    python benchmarks/update_speed.py [--config configs/default.yaml] [--init checkpoints/default.pt]
                                      [--repeats 5] [--set key=value ...]

Collects one rollout batch with the config (the shipped policy's weights by default), then
times ``ppo_update`` (the config's epochs and minibatches, ``target_kl`` off so both do the
same steps) from the same weights and optimizer state, alternating the network as built
(input layers :class:`agents.sparse_input.SparseInputLinear`) and a copy whose input layers
are plain ``nn.Linear``. Prints the median and the fastest seconds of each (the fastest is the
figure least disturbed by other processes on a shared machine), their ratios, and how far apart
the two updated networks end (float rounding only).
"""
from __future__ import annotations

import argparse
import copy
import tempfile
import time

import numpy as np
import torch
from torch import nn

from agents.checkpoint import load_checkpoint
from agents.sparse_input import SparseInputLinear
from training import Trainer
from training.config import load_config
from training.ppo import ppo_update
from training.seeds import update_generator


def dense_copy(model: nn.Module) -> nn.Module:
    dense = copy.deepcopy(model)
    for m in dense.modules():
        if isinstance(m, SparseInputLinear):
            m.__class__ = nn.Linear
    return dense


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--config", default="configs/default.yaml")
    p.add_argument("--init", default="checkpoints/default.pt", help="starting weights ('' = a fresh network)")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--set", action="append", default=[])
    args = p.parse_args()
    cfg = load_config(args.config, args.set + ["pretrain.decisions=0", "eval.interval=0", "budget.minutes=null",
                                               "rollout.backend=local", "rollout.lag=0"])
    torch.set_num_threads(cfg.threads)
    with tempfile.TemporaryDirectory() as run_dir:
        trainer = Trainer(cfg, run_dir, progress=False)
        try:
            if args.init:
                trainer.model.load_state_dict(load_checkpoint(args.init)["state_dict"])
            weights = {k: v.detach().clone() for k, v in trainer.model.state_dict().items()}
            batch = trainer.rollout.gather(trainer.rollout.submit(weights, trainer.pool.entries(), 1)).to("cpu")
        finally:
            trainer.close()
    sparse = trainer.model
    sparse.load_state_dict(weights)
    dense = dense_copy(sparse)
    print(f"config {args.config}: batch of {len(batch):,} decisions, hidden {cfg.model.hidden}, critic "
          f"{cfg.model.critic}, {cfg.ppo.epochs} epochs of {cfg.ppo.minibatch_size}-row minibatches, threads "
          f"{cfg.threads}; non-zero inputs {float((batch.obs != 0).float().mean()):.1%}")
    q = cfg.ppo
    times: dict[str, list[float]] = {"sparse": [], "dense": []}
    ends: dict[str, dict[str, torch.Tensor]] = {}
    for _ in range(args.repeats):
        for name, model in (("sparse", sparse), ("dense", dense)):
            model.load_state_dict(weights)
            optimizer = torch.optim.Adam(model.parameters(), lr=q.lr, eps=1e-5)
            t0 = time.perf_counter()
            ppo_update(model, optimizer, batch, epochs=q.epochs, minibatch_size=q.minibatch_size, clip=q.clip,
                       ent_coef=q.ent_coef, vf_coef=q.vf_coef, max_grad_norm=q.max_grad_norm, target_kl=None,
                       generator=update_generator(7))
            times[name].append(time.perf_counter() - t0)
            ends[name] = {k: v.detach().clone() for k, v in model.state_dict().items()}
    drift = max(float((ends["sparse"][k] - ends["dense"][k]).abs().max()) for k in ends["sparse"])
    for how, f in (("median", np.median), ("fastest", np.min)):
        s, d = float(f(times["sparse"])), float(f(times["dense"]))
        print(f"update ({how} of {args.repeats}): sparse input layer {s:.3f} s, dense {d:.3f} s; dense / sparse {d / s:.2f}x")
    print(f"largest weight difference between the two after the update: {drift:.1e}")


if __name__ == "__main__":
    main()
