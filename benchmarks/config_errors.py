"""The one line each of 55 bad config inputs gets (4 good ones: accepted), and the CPU time one config takes to read.

For comparing two versions of ``training/config.py`` (e.g. before and after a change to how configs are checked):
run it on each and diff the outputs. Paths are printed relative to a scratch folder (DIR) and the repository.

    python benchmarks/config_errors.py
"""
from __future__ import annotations

import os
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from training.config import ConfigError, load_config  # noqa: E402

SMOKE = os.path.join(ROOT, "configs", "smoke.yaml")
FILES = {  # name -> text, written to a scratch folder
    "top.yaml": f"base: {SMOKE}\noptimiser: adam\n",
    "nested.yaml": f"base: {SMOKE}\nbudget:\n  minuts: 3\n",
    "nobase.yaml": "base: missing.yaml\n",
    "loop.yaml": "base: loop.yaml\n",
    "notsection.yaml": f"base: {SMOKE}\nppo: 3\n",
    "empty.yaml": f"base: {SMOKE}\nppo:\n",
    "list.yaml": "[1, 2]\n",
    "intkey.yaml": f"base: {SMOKE}\nppo:\n  1: 2\n",
    "two.yaml": f"base: {SMOKE}\nppo:\n  lr: -1\n  clip: x\nenv: {{seeds: 1}}\n",
}
SETS = [  # --set items on configs/smoke.yaml
    "ppo.lrr=1", "env.num_games=many", "model.hidden=64", "ppo.lr=true", "ppo.lr_schedule=linar",
    "learn.phases=[play, defence]", "ppo.lr", "ppo.lr=[1", "ppo.lr.x=1", "ppo.lr=-1", "ppo.gae_lambda=1.5",
    "stages=[{lr: 0.001}]", "selfplay.weights={curent: 1.0}", "selfplay.weights={curent:1.0}", "env.seed=true",
    "ppo.target_kl=x", "rules=3", "stages=3", "stages=[3]", "selfplay.weights={rule: -1}", "selfplay.weights={rule: 0}",
    "selfplay.weights=3", "selfplay.weights={1: 1}", "model.hidden=[0]", "model.hidden=[]", "learn.phases=[]",
    "learn.phases=[play, play]", "device=null", "env.num_games=8.5", "env.seed='3'", "rollout.address=3",
    "model.canonical_trump=maybe", "stages=[{decisions: 10, lr: -1}]", "stages=[{decisions: 10, lrr: 1}]",
    "stages=[{decisions: 0}]", "rules.target_score=0", "rules={presett: classic}", "eval.opponents=rule",
    "model.view=contract7", "eval.seed=1000050", "rollout.lag=2", "ppo.lr=.nan", "pretrain.teacher=rul",
    "rules=syrain41", "rules.preset=classik", "optimiser.lr=1", "budget.minuts=3",
    # accepted: a whole float as an int, a number YAML reads as a string, an empty stage league
    "env.num_games=8.0", "ppo.lr='3e-4'", "stages=[{decisions: 10, selfplay: null}]",
]


def main() -> None:
    scratch = tempfile.mkdtemp()
    for name, text in FILES.items():
        with open(os.path.join(scratch, name), "w", encoding="utf-8") as f:
            f.write(text)
    cases = [(os.path.join(scratch, name), []) for name in FILES] + [(SMOKE, [item]) for item in SETS]
    for path, sets in cases:
        try:
            load_config(path, sets)
            line = "accepted"
        except ConfigError as e:
            line = str(e)
        given = os.path.basename(path) if path != SMOKE else f"--set {sets[0]}"
        print(f"{given} -> {line.replace(scratch, 'DIR').replace(ROOT, 'ROOT')}")
    start = time.process_time()
    for _ in range(20):
        load_config(os.path.join(ROOT, "configs", "classic.yaml"))
    print(f"configs/classic.yaml read in {(time.process_time() - start) / 20 * 1000:.1f} ms CPU (mean of 20)")


if __name__ == "__main__":
    main()
