"""Training: the config, PPO, rollouts on the batch engine, the warm start and the :class:`Trainer`.

``python train.py`` (or ``tarneeb-train``) is the command line; :mod:`training.cli` holds it.
"""
from .config import Config, ConfigError, load_config


def __getattr__(name: str):
    """``Trainer`` on first use: it loads torch, which reading a config does not."""
    if name == "Trainer":
        from .trainer import Trainer

        return Trainer
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["Config", "ConfigError", "Trainer", "load_config"]
