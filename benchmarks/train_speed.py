"""End-to-end training throughput (decisions/s) for a config, split into rollout and update.

    python benchmarks/train_speed.py [--config configs/default.yaml] [--iterations 3] [--set key=value ...]

Runs a few iterations in a temporary run dir (no evaluation) and prints the
figures of each iteration after the first (which includes warm-up).
"""
from __future__ import annotations

import argparse
import tempfile

from training.config import load_config
from training import Trainer


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--config", default="configs/default.yaml")
    p.add_argument("--iterations", type=int, default=3)
    p.add_argument("--set", action="append", default=[])
    args = p.parse_args()
    cfg = load_config(args.config, args.set + ["eval.interval=0", f"budget.iterations={args.iterations + 1}"])
    with tempfile.TemporaryDirectory() as run_dir:
        trainer = Trainer(cfg, run_dir, progress=False)
        rows = []
        for i in range(args.iterations + 1):
            s = trainer.iteration()
            if i:
                rows.append(s)
                print(f"iteration {i}: end-to-end {s['charts/SPS']:,.0f} decisions/s, rollout "
                      f"{s['charts/rollout_SPS']:,.0f}/s (agents {s['charts/agent_seconds']:.2f}s), "
                      f"update {s['charts/update_seconds']:.2f}s for {s['charts/learned_decisions']:,.0f} "
                      f"learned decisions")
    mean = sum(r["charts/SPS"] for r in rows) / len(rows)
    print(f"config {args.config} (threads={cfg.threads}, games={cfg.env.num_games}, "
          f"steps={cfg.env.rollout_steps}, hidden={cfg.model.hidden}): mean {mean:,.0f} decisions/s end to end")


if __name__ == "__main__":
    main()
