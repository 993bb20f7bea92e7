"""Self-play PPO from a YAML config: ``python train.py --config configs/default.yaml`` (see ``--help``).

    python train.py --config configs/default.yaml [--set key=value ...] [--run-dir runs/NAME]
    python train.py --resume runs/NAME [--set budget.decisions=...]

The library is the ``training`` package; this script is its front end, as is ``tarneeb-train``.
"""
import sys

from training.cli import main

if __name__ == "__main__":
    sys.exit(main())
