"""Rollout throughput of the Ray backend against the local one, and the learner's update time.

    python benchmarks/ray_speed.py [--config configs/default.yaml] [--workers 1 2] [--repeats 3] [--set k=v ...]

Per backend: decisions/s of ``collect`` (the learner's wall time; the first
collect, with Ray's and numba's warm-up, is not counted). Every Ray worker
plays ``env.num_games`` games, so with W workers an iteration is W times the
local one. Then one PPO update (``ppo`` section settings) on a local batch:
the learner's seconds per learned decision bound what any number of workers
can feed it.
"""
from __future__ import annotations

import argparse
import time

import torch

from agents.model import ActorCritic
from training.config import load_config
from training.league import League
from training.ppo import ppo_update
from training.ray_rollout import RayRollout, import_ray
from training.rollout import LocalRollout


def rate(rollout, weights, pool, repeats: int) -> tuple[float, float]:
    """(decisions/s, learned share) over ``repeats`` collects after a warm-up collect."""
    rollout.collect(weights, pool, 0)
    decisions = learned = 0.0
    t0 = time.perf_counter()
    for r in range(repeats):
        s = rollout.collect(weights, pool, r + 1).stats
        decisions += s["decisions"]
        learned += s["learned_decisions"]
    return decisions / (time.perf_counter() - t0), learned / decisions


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--config", default="configs/default.yaml")
    p.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--set", action="append", default=[])
    args = p.parse_args()
    cfg = load_config(args.config, args.set)
    rules = cfg.make_rules()
    torch.manual_seed(cfg.env.seed)
    torch.set_num_threads(1)  # the learner process's rollout gets one core, like each Ray worker
    model = ActorCritic(cfg.model.hidden)
    weights = model.state_dict()
    pool = League(cfg.selfplay.weights, cfg.selfplay.max_snapshots).entries()
    print(f"config {args.config}: {cfg.env.num_games} games x {cfg.env.rollout_steps} steps per worker, "
          f"hidden {cfg.model.hidden}, pool {[e.name for e in pool]}")

    local = LocalRollout(cfg, rules)
    sps, share = rate(local, weights, pool, args.repeats)
    print(f"local           : {sps:9,.0f} decisions/s")
    ray = import_ray()
    ray.init(num_cpus=max(args.workers), include_dashboard=False)
    for w in args.workers:
        ro = RayRollout(cfg, rules, workers=w)
        r_sps, _ = rate(ro, weights, pool, args.repeats)
        print(f"ray, {w} worker{'s' if w > 1 else ' '}: {r_sps:9,.0f} decisions/s ({r_sps / sps:.2f}x local)")
        ro.close()
    ray.shutdown()

    torch.set_num_threads(max(cfg.threads, 1))
    res = local.collect(weights, pool, 99)
    batch = res.to(torch.device("cpu"))
    opt = torch.optim.Adam(model.parameters(), lr=cfg.ppo.lr, eps=1e-5)
    t0 = time.perf_counter()
    ppo_update(model, opt, batch, epochs=cfg.ppo.epochs, minibatch_size=cfg.ppo.minibatch_size, clip=cfg.ppo.clip,
               ent_coef=cfg.ppo.ent_coef, vf_coef=cfg.ppo.vf_coef, max_grad_norm=cfg.ppo.max_grad_norm,
               target_kl=None, generator=torch.Generator().manual_seed(0))
    upd = time.perf_counter() - t0
    learned_per_s = len(res.actions) / upd
    print(f"learner update  : {upd:.2f}s for {len(res.actions):,} learned decisions, {cfg.ppo.epochs} epochs, "
          f"{cfg.threads} threads = {learned_per_s:,.0f} learned decisions/s "
          f"(= {learned_per_s / share:,.0f} played decisions/s at this config's learned share {share:.2f})")


if __name__ == "__main__":
    main()
