"""Agents: built-in baselines, trained checkpoints and user code behind one interface.

``agents.load(spec, rules=None, **options)`` accepts:

- a built-in name: ``random``, ``casual`` (``rule`` with a share of careless cards), ``rule``, ``expert``,
  ``search`` (the shipped network searching over the unseen cards, :mod:`agents.search_agent`), or ``ppo``:
  the shipped trained agent for the rules in play (see :mod:`agents.shipped`; an error when none is trained for them). A built-in name may carry its settings as a
  query, ``search?samples=8&rollout=dds``: each value is read as the type of the setting's default (an int,
  a number, ``true``/``false``, or text), and a setting the agent does not have is an error naming those it has;
- a checkpoint path ending in ``.pt`` (written by ``train.py``);
- ``path/to/file.py:Name`` or ``package.module:Name``: a class or factory called with no arguments
  (``seed=`` and ``rules=`` are passed on when it accepts them);
- ``engine:COMMAND ARGS``: an external engine speaking the engine protocol (``docs/engine-protocol.md``), any
  language; the command is split like a shell would, but never run through one. Settings go before the colon:
  ``engine?timeout=5:tarneeb-engine ppo`` (see :mod:`agents.engine`).

``rules=`` (a :class:`~tarneeb_env.Rules`, preset name or mapping) names the rules the agent will play;
an agent made for other rules (its ``.rules``, e.g. a checkpoint's training rules) is refused with
:class:`RulesMismatchError`, unless the spec ends in ``?rules=any`` (``x.pt?rules=any``): then it is
loaded with one :class:`RulesOverrideWarning`. ``rules=None`` checks nothing. Every caller that seats an
agent for a game (evaluator, ``play.py``, the trainer's opponent pool) passes its rules here.
"""
from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
import urllib.parse
from typing import Callable

from tarneeb_env import make_rules
from tarneeb_env.rules import RulesSpec

from .base import Agent
from .casual_agent import CasualAgent
from .engine import EngineAgent, EngineError, is_engine_spec, load_engine
from .expert_agent import ExpertAgent
from .random_agent import RandomAgent
from .rule_agent import RuleAgent
from .rules_check import ANY_RULES, RulesMismatchError, RulesOverrideWarning, check_rules

# name -> "module:Class" in this package, imported when first asked for: ``search`` loads torch, which ``import
# agents`` and the torch-free agents (``rule`` opponents of the vector env) do not
BUILTINS: dict[str, str] = {
    "random": "random_agent:RandomAgent", "casual": "casual_agent:CasualAgent", "rule": "rule_agent:RuleAgent",
    "expert": "expert_agent:ExpertAgent", "search": "search_agent:SearchAgent",
}
QUERY_SETTINGS_HIDDEN = ("seed", "rules", "clock")  # passed by callers, never written in a spec

SHIPPED = "ppo"  # the shipped trained agent for the rules in play

SPEC_FORMS = (
    "a built-in name ({names}; settings after '?', e.g. search?samples=8), a checkpoint path ending in .pt, "
    "'path/to/file.py:Name' or 'package.module:Name' (any of them may end in " + ANY_RULES + "), "
    "or 'engine:COMMAND ARGS' (an external engine)"
)


class AgentSpecError(ValueError):
    """A spec that names no agent; the message lists the valid forms."""


def _spec_error(spec: str, why: str) -> AgentSpecError:
    forms = SPEC_FORMS.format(names=", ".join(sorted([*BUILTINS, SHIPPED])))
    return AgentSpecError(f"cannot load agent {spec!r}: {why}. An agent spec is {forms}.")


def builtin(name: str) -> Callable[..., Agent]:
    """The class of the built-in agent ``name`` (a key of :data:`BUILTINS`)."""
    module, _, cls = BUILTINS[name].partition(":")
    return getattr(importlib.import_module(f".{module}", __name__), cls)


def __getattr__(name: str):
    """``agents.SearchAgent`` on first use (it loads torch)."""
    if name == "SearchAgent":
        return builtin("search")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _call(factory, options: dict) -> Agent:
    try:
        params = inspect.signature(factory).parameters
    except (TypeError, ValueError):
        params = {}
    accepts_kw = any(p.kind == p.VAR_KEYWORD for p in params.values())
    kwargs = {k: v for k, v in options.items() if accepts_kw or k in params}
    return factory(**kwargs)


def resolve(spec: str, rules: RulesSpec = None) -> tuple[str, bool]:
    """``(concrete spec, allow other rules)``: the ``?rules=any`` suffix split off, ``ppo`` replaced by the path
    of the shipped checkpoint for ``rules`` (classic when None); :class:`AgentSpecError` when none is shipped."""
    if not isinstance(spec, str) or not spec:
        raise _spec_error(str(spec), "expected a non-empty string")
    if is_engine_spec(spec):
        return spec, False  # the command is the engine's: nothing in it is read here
    allow_other = spec.endswith(ANY_RULES)
    base = spec[: -len(ANY_RULES)] if allow_other else spec
    if base == SHIPPED:
        from .shipped import shipped_checkpoint

        rules = make_rules(rules)
        path = shipped_checkpoint(rules)
        if path is None:
            raise _spec_error(spec, f"no shipped agent is trained for rules {rules.name}; train one with train.py "
                                    "(its runs/<name>/latest.pt is a spec), or play 'rule'")
        base = path
    return base, allow_other


def load(spec: str, rules: RulesSpec = None, **options) -> Agent:
    """Build an agent from a spec string for ``rules`` (see the module docstring)."""
    rules = None if rules is None else make_rules(rules)
    if is_engine_spec(spec):
        try:
            return load_engine(spec, rules, seed=options.get("seed"))
        except ValueError as e:
            if isinstance(e, RulesMismatchError):
                raise
            raise _spec_error(spec, str(e)) from None
    base, allow_other = resolve(spec, rules)
    if rules is not None:
        options["rules"] = rules
    return check_rules(_build(spec, base, options), rules, spec, allow_other)


def _query_options(spec: str, factory, query: str) -> dict:
    """A built-in's settings from the ``k=v&k=v`` query of its spec, each read as its default's type."""
    params = inspect.signature(factory).parameters
    settings = [k for k in params if k not in QUERY_SETTINGS_HIDDEN and params[k].default is not params[k].empty]
    try:
        pairs = urllib.parse.parse_qsl(query, keep_blank_values=True, strict_parsing=True)
    except ValueError:
        raise _spec_error(spec, f"settings must read 'name?key=value&key=value', got {query!r}") from None
    out = {}
    for key, text in pairs:
        if key not in settings:
            has = f"its settings are {', '.join(settings)}" if settings else "it has no settings"
            raise _spec_error(spec, f"no setting {key!r}; {has}")
        out[key] = _typed(spec, key, text, params[key].default)
    return out


def _typed(spec: str, key: str, text: str, default):
    if isinstance(default, bool):
        if text.lower() not in ("true", "false"):
            raise _spec_error(spec, f"{key}= must be true or false, got {text!r}")
        return text.lower() == "true"
    for kind in (int, float):
        if default is None or isinstance(default, kind):
            try:
                return kind(text)
            except ValueError:
                if default is not None:
                    raise _spec_error(spec, f"{key}= must be {'an int' if kind is int else 'a number'}, "
                                            f"got {text!r}") from None
    return text


def _build(spec: str, base: str, options: dict) -> Agent:
    name, _, query = base.partition("?")
    if name in BUILTINS:
        factory = builtin(name)
        settings = _query_options(spec, factory, query) if query else {}
        return _call(factory, {**options, **settings})
    if base.endswith(".pt"):
        if not os.path.isfile(base):
            raise _spec_error(spec, "no such checkpoint file")
        from .checkpoint import load_checkpoint_agent

        return load_checkpoint_agent(base, **options)
    if ":" in base:
        target, _, name = base.rpartition(":")
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


__all__ = [
    "ANY_RULES", "Agent", "AgentSpecError", "BUILTINS", "CasualAgent", "EngineAgent", "EngineError", "ExpertAgent",
    "RandomAgent", "RuleAgent", "RulesMismatchError", "RulesOverrideWarning", "SHIPPED", "SearchAgent", "builtin",
    "check_rules", "load", "resolve",
]
