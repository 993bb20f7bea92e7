"""Agents: built-in baselines, trained checkpoints and user code behind one interface.

``agents.load(spec, **options)`` accepts:

- a built-in name: ``random``, ``rule``, ``expert``;
- a checkpoint path ending in ``.pt`` (written by ``train.py``);
- ``path/to/file.py:Name`` or ``package.module:Name``: a class or factory called with no arguments
  (``seed=`` is passed on when it accepts it).
"""
from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
from typing import Callable

from .base import Agent
from .expert_agent import ExpertAgent
from .random_agent import RandomAgent
from .rule_agent import RuleAgent

BUILTINS: dict[str, Callable[..., Agent]] = {"random": RandomAgent, "rule": RuleAgent, "expert": ExpertAgent}

SPEC_FORMS = (
    "a built-in name ({names}), a checkpoint path ending in .pt, "
    "'path/to/file.py:Name' or 'package.module:Name'"
)


class AgentSpecError(ValueError):
    """A spec that names no agent; the message lists the valid forms."""


def _spec_error(spec: str, why: str) -> AgentSpecError:
    forms = SPEC_FORMS.format(names=", ".join(sorted(BUILTINS)))
    return AgentSpecError(f"cannot load agent {spec!r}: {why}. An agent spec is {forms}.")


def _call(factory, options: dict) -> Agent:
    try:
        params = inspect.signature(factory).parameters
    except (TypeError, ValueError):
        params = {}
    accepts_kw = any(p.kind == p.VAR_KEYWORD for p in params.values())
    kwargs = {k: v for k, v in options.items() if accepts_kw or k in params}
    return factory(**kwargs)


def load(spec: str, **options) -> Agent:
    """Build an agent from a spec string (see the module docstring)."""
    if not isinstance(spec, str) or not spec:
        raise _spec_error(str(spec), "expected a non-empty string")
    if spec in BUILTINS:
        return _call(BUILTINS[spec], options)
    if spec.endswith(".pt"):
        if not os.path.isfile(spec):
            raise _spec_error(spec, "no such checkpoint file")
        from .checkpoint import load_checkpoint_agent

        return load_checkpoint_agent(spec, **options)
    if ":" in spec:
        target, _, name = spec.rpartition(":")
        if target.endswith(".py"):
            if not os.path.isfile(target):
                raise _spec_error(spec, f"no such file {target!r}")
            module_name = "tarneeb_user_" + os.path.splitext(os.path.basename(target))[0]
            mod_spec = importlib.util.spec_from_file_location(module_name, target)
            module = importlib.util.module_from_spec(mod_spec)
            mod_spec.loader.exec_module(module)
        else:
            try:
                module = importlib.import_module(target)
            except ImportError as e:
                raise _spec_error(spec, f"cannot import module {target!r} ({e})") from None
        factory = getattr(module, name, None)
        if factory is None or not callable(factory):
            raise _spec_error(spec, f"{target!r} has no class or factory named {name!r}")
        agent = _call(factory, options)
        if not callable(getattr(agent, "act", None)):
            raise _spec_error(spec, f"{name!r} did not return an object with an act(observation, view) method")
        return agent
    raise _spec_error(spec, "not a built-in name, a .pt checkpoint or a 'target:Name' reference")


__all__ = ["Agent", "AgentSpecError", "BUILTINS", "ExpertAgent", "RandomAgent", "RuleAgent", "load"]
