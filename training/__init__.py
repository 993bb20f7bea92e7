"""Training: the config, PPO, rollouts on the batch engine, the warm start and the :class:`Trainer`.

``python train.py`` (or ``tarneeb-train``) is the command line; :mod:`training.cli` holds it.
"""
from .config import Config, ConfigError, load_config
from .trainer import Trainer

__all__ = ["Config", "ConfigError", "Trainer", "load_config"]
