"""End-to-end training throughput: the single-process trainer against the pipelined one, in one run.

    python benchmarks/train_speed.py [--config configs/default.yaml] [--seconds 25] [--init checkpoints/default.pt]
                                     [--set key=value ...] [--vs 'key=value;key=value' ...]

Each variant builds a :class:`training.Trainer` on the config (no warm start,
no evaluation), starts from ``--init``'s weights (the shipped policy, so the
PPO statistics are those of a trained policy), runs one warm-up iteration
(numba, the rollout process's start), then PPO iterations (with the checkpoint
save of every iteration) for ``--seconds``, and prints decisions/s and learned
decisions/s (the decisions PPO trains on) end to end, each side's seconds per
iteration and the mean approx_kl / clip fraction:

- ``local``: rollout then update in this process (``rollout.backend=local, rollout.lag=0``);
- ``pipelined``: the rollout of the next iteration in a child process during the update
  (``rollout.backend=process, rollout.lag=1``);
- both again with a self-play pool of network opponents (``current`` and snapshots), where both
  teams' decisions may be learned and the update bounds the speed.

With ``--vs 'key=value;key=value'`` (repeatable) it measures instead the pipelined trainer with the config
against the same with each ``--vs``'s settings, in one run and with the config's pool (#59: more games per
iteration, fewer epochs), each variant measured twice, alternating, its better figure printed.
"""
from __future__ import annotations

import argparse
import tempfile
import time

import numpy as np

from agents.checkpoint import load_checkpoint
from training import Trainer
from training.config import load_config

VARIANTS = {
    "local": ["rollout.backend=local", "rollout.lag=0"],
    "pipelined": ["rollout.backend=process", "rollout.lag=1"],
}
SELF_PLAY = ["selfplay.weights={current: 0.5, snapshots: 0.5}", "selfplay.snapshot_interval=2"]


def measure(config: str, sets: list[str], seconds: float, init: str | None) -> dict[str, float]:
    cfg = load_config(config, sets + ["pretrain.decisions=0", "eval.interval=0", "budget.minutes=null"])
    with tempfile.TemporaryDirectory() as run_dir:
        trainer = Trainer(cfg, run_dir, progress=False)
        try:
            if init:
                trainer.model.load_state_dict(load_checkpoint(init)["state_dict"])
            trainer.iteration()
            c = trainer.counters
            d0, l0, rows = c["decisions"], c["learned_decisions"], []
            t0 = time.perf_counter()
            while time.perf_counter() - t0 < seconds:
                rows.append(trainer.iteration())
                trainer.save()
            elapsed = time.perf_counter() - t0
            decisions, learned = c["decisions"] - d0, c["learned_decisions"] - l0
        finally:
            trainer.close()

    def mean(key):
        return float(np.mean([r[key] for r in rows if key in r]))

    return {"sps": decisions / elapsed, "learned_sps": learned / elapsed, "iterations": len(rows),
            "decisions_per_it": decisions / max(len(rows), 1),
            "rollout": mean("charts/rollout_seconds"), "update": mean("charts/update_seconds"),
            "wait": mean("charts/learner_wait_seconds"), "kl": mean("losses/approx_kl"),
            "clipfrac": mean("losses/clipfrac")}


def compare(args) -> None:
    """The pipelined trainer as configured against each ``--vs``, alternating, the best of two each."""
    variants = {"as configured": []} | {vs: [x.strip() for x in vs.split(";") if x.strip()] for vs in args.vs}
    best: dict[str, dict[str, float]] = {}
    for _ in range(2):
        for name, sets in variants.items():
            r = measure(args.config, args.set + VARIANTS["pipelined"] + sets, args.seconds, args.init)
            if name not in best or r["sps"] > best[name]["sps"]:
                best[name] = r
    base = best["as configured"]["sps"]
    for name, r in best.items():
        print(f"{name:>40}: {r['sps']:8,.0f} decisions/s ({r['sps'] / base:.2f}x), {r['learned_sps']:8,.0f} "
              f"learned/s; rollout {r['rollout']:.2f}s, update {r['update']:.2f}s, learner waits {r['wait']:.2f}s "
              f"per it of {r['decisions_per_it']:,.0f} decisions")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--config", default="configs/default.yaml")
    p.add_argument("--seconds", type=float, default=25.0, help="measured seconds per variant")
    p.add_argument("--init", default="checkpoints/default.pt", help="starting weights ('' = a fresh network)")
    p.add_argument("--set", action="append", default=[])
    p.add_argument("--vs", action="append", default=[], metavar="SETS",
                   help="compare the pipelined trainer against itself with these ';'-separated settings")
    args = p.parse_args()
    cfg = load_config(args.config, args.set)
    print(f"config {args.config}: {cfg.env.num_games} games x {cfg.env.rollout_steps} steps, hidden "
          f"{cfg.model.hidden}, threads {cfg.threads}, pool {cfg.selfplay.weights}; {args.seconds:g} s per variant")
    if args.vs:
        compare(args)
        return
    for pool_name, pool_sets in (("config's pool", []), ("self-play pool", SELF_PLAY)):
        results = {}
        for name, sets in VARIANTS.items():
            r = results[name] = measure(args.config, args.set + pool_sets + sets, args.seconds, args.init)
            print(f"{pool_name:>14} {name:>9}: {r['sps']:8,.0f} decisions/s, {r['learned_sps']:8,.0f} learned/s "
                  f"({r['iterations']} it; rollout {r['rollout']:.2f}s, update {r['update']:.2f}s, "
                  f"learner waits {r['wait']:.2f}s per it; approx_kl {r['kl']:.4f}, clipfrac {r['clipfrac']:.3f})")
        ratio = results["pipelined"]["sps"] / results["local"]["sps"]
        print(f"{pool_name:>14}  pipelined / local: {ratio:.2f}x")


if __name__ == "__main__":
    main()
