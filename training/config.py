"""The training configuration: one dataclass per YAML section, validated on load.

Unknown keys, wrong types and impossible values raise :class:`ConfigError`
naming the dotted key and what is allowed. ``--set key=value`` overrides any
key (values parsed as YAML). A float written ``3e-4`` (which YAML 1.1 reads as
a string) is accepted as the number it spells.

A file may start from another with ``base: other.yaml`` (a path relative to the
file; bases may chain): each section it gives changes only the keys it names,
and a key's value (a list, ``selfplay.weights``, ``rules``) is replaced whole, as
a stage's ``selfplay`` changes the top-level one. A run's ``config.yaml`` is
always the resolved whole.
"""
from __future__ import annotations

import dataclasses
import difflib
import os
import re
import typing
from dataclasses import dataclass, field
from typing import Any, Optional, Union

import yaml

from agents.arch import CRITICS
from evaluation.deals import HELDOUT

SAMPLINGS = ("uniform", "pfsp")  # how the league's snapshots share their weight (training.league)
from tarneeb_env import Rules, make_rules
from tarneeb_env.transforms import PHASE_NAMES, VIEWS


class ConfigError(ValueError):
    """A configuration problem; the message names the key."""


def did_you_mean(word: str, allowed) -> str:
    """``" (did you mean 'x'?)"`` with the allowed spellings closest to ``word`` (difflib), or ``""``."""
    close = difflib.get_close_matches(str(word), [str(a) for a in allowed], n=3, cutoff=0.6)
    return f" (did you mean {' or '.join(repr(c) for c in close)}?)" if close else ""


def check_agent_name(key: str, spec: Any, extra: tuple[str, ...] = ()) -> None:
    """Refuse, naming ``key`` and the closest spellings, a spec that is no built-in name (nor ``extra``, e.g.
    ``current``) and no file form (``x.pt``, ``file.py:Name``, ``module:Name``); files are checked on loading."""
    import agents

    if not isinstance(spec, str) or not spec:
        raise ConfigError(f"{key}: expected an agent spec, got {spec!r}")
    base = spec.removesuffix(agents.ANY_RULES).partition("?")[0]
    names = (*extra, *sorted(agents.BUILTINS), agents.SHIPPED)
    if base in names or base.endswith(".pt") or ":" in base:
        return
    raise ConfigError(f"{key}: {spec!r} is not {', '.join(repr(n) for n in names)}, a .pt checkpoint or "
                      f"file.py:Name{did_you_mean(base, names)}")


def _meta(*, choices=None, lo=None, hi=None, lo_open=False, doc=""):
    return {"choices": choices, "lo": lo, "hi": hi, "lo_open": lo_open, "doc": doc}


@dataclass
class EnvConfig:
    num_games: int = field(default=128, metadata=_meta(lo=1, doc="games played at once"))
    rollout_steps: int = field(default=256, metadata=_meta(lo=1, doc="decisions per game per iteration"))
    seed: int = field(default=0, metadata=_meta(lo=0, doc="the run's seed: deals, sampling, network init, league"))


@dataclass
class ModelConfig:
    hidden: list[int] = field(default_factory=lambda: [256, 256], metadata=_meta(lo=1, doc=(
        "hidden layer widths of the policy (and critic) MLP; a wider start from pretrain.init is widened (Net2Net)")))
    critic: str = field(default="shared", metadata=_meta(choices=CRITICS, doc="privileged: the value net also "
                                                         "reads the other seats' cards (training only)"))
    canonical_trump: bool = field(default=False, metadata=_meta(doc="the network sees the trump suit as hearts "
                                                                "(rules whose trump varies learn it once)"))
    view: str = field(default="plain", metadata=_meta(choices=VIEWS, doc="contract7: a deal without an auction "
                                                      "reads as a 7 bid by the eldest hand (auction: none only)"))


@dataclass
class PPOConfig:
    lr: float = field(default=3e-4, metadata=_meta(lo=0, lo_open=True, doc="Adam learning rate of the PPO updates"))
    lr_schedule: str = field(default="linear", metadata=_meta(choices=("constant", "linear"), doc=(
        "linear: decays to 2% of lr over budget.decisions or budget.iterations (with stages: over each stage)")))
    clip: float = field(default=0.2, metadata=_meta(lo=0, lo_open=True, doc="PPO's clip range of the ratio"))
    epochs: int = field(default=3, metadata=_meta(lo=1, doc="passes over each iteration's batch"))
    minibatch_size: int = field(default=4096, metadata=_meta(lo=1, doc="learned decisions per gradient step"))
    gae_lambda: float = field(default=0.95, metadata=_meta(lo=0, hi=1, doc="GAE's lambda (per seat)"))
    gamma: float = field(default=1.0, metadata=_meta(lo=0, hi=1, doc="discount per decision; 1 = none within a hand"))
    ent_coef: float = field(default=0.01, metadata=_meta(lo=0, doc="weight of the entropy bonus (legal actions only)"))
    vf_coef: float = field(default=0.5, metadata=_meta(lo=0, doc="weight of the value loss"))
    max_grad_norm: float = field(default=0.5, metadata=_meta(lo=0, lo_open=True, doc="gradients clipped to this norm"))
    target_kl: Optional[float] = field(default=0.03, metadata=_meta(lo=0, lo_open=True, doc=(
        "an iteration's epochs stop once the approximate KL passes this (null: never)")))
    reward_scale: float = field(default=0.1, metadata=_meta(lo=0, lo_open=True, doc="value targets = reward * this"))


@dataclass
class SelfPlayConfig:
    weights: dict[str, float] = field(
        default_factory=lambda: {"current": 0.5, "snapshots": 0.25, "rule": 0.25},
        metadata=_meta(lo=0, doc="'current', 'snapshots' or an agent spec (rule, random, x.pt) -> weight"),
    )
    snapshot_interval: int = field(default=10, metadata=_meta(lo=1, doc="iterations between snapshots"))
    max_snapshots: int = field(default=8, metadata=_meta(lo=1, doc="snapshots kept; the oldest leaves past this"))
    sampling: str = field(default="uniform", metadata=_meta(choices=SAMPLINGS, doc="how the snapshots share their "
                          "weight: equally, or toward those the learner does worst against (pfsp)"))
    pfsp_scale: float = field(default=1.0, metadata=_meta(lo=0, lo_open=True, doc="pfsp: snapshot weight "
                              "exp(-margin / pfsp_scale), margin in points per hand"))


@dataclass
class StageConfig:
    """One part of the PPO budget, with its own learning rate and league (``stages``)."""

    decisions: Optional[int] = field(default=None, metadata=_meta(lo=1, doc="PPO decisions of this stage (required)"))
    lr: Optional[float] = field(default=None, metadata=_meta(lo=0, lo_open=True, doc=(
        "its learning rate (null: ppo.lr); ppo.lr_schedule linear decays it over the stage's decisions")))
    selfplay: SelfPlayConfig = field(default_factory=SelfPlayConfig, metadata=_meta(doc=(
        "the league while it lasts: the top-level selfplay section with these keys changed")))


@dataclass
class LearnConfig:
    phases: list[str] = field(default_factory=lambda: list(PHASE_NAMES), metadata=_meta(choices=PHASE_NAMES, doc=(
        "the phases the network decides and learns")))
    other: str = field(default="rule", metadata=_meta(doc="agent spec playing the phases not learned"))


@dataclass
class PretrainConfig:
    init: str = field(default="", metadata=_meta(doc="a checkpoint (.pt, trained for these rules) the run starts "
                      "from: its policy, and its critic when of the same kind (then cloning, if any, continues it); "
                      "append ?rules=any to start from an agent of other rules (transfer: the card play carries over)"))
    teacher: str = field(default="rule", metadata=_meta(doc="agent spec whose decisions the policy clones"))
    decisions: int = field(default=0, metadata=_meta(lo=0, doc="teacher decisions to clone (0 = no warm start)"))
    steps: int = field(default=512, metadata=_meta(lo=64, doc="decisions per game per chunk (env.num_games games); "
                                                              "decisions of hands left unfinished are dropped"))
    epochs: int = field(default=2, metadata=_meta(lo=1, doc="passes over each chunk"))
    lr: float = field(default=1e-3, metadata=_meta(lo=0, lo_open=True, doc="Adam learning rate of the cloning"))
    minibatch_size: int = field(default=1024, metadata=_meta(lo=1, doc="teacher decisions per gradient step"))
    vf_coef: float = field(default=0.5, metadata=_meta(lo=0, doc="weight of the value loss"))


EXPLOIT_STARTS = ("target", "rule")


@dataclass
class ExploitConfig:
    """A best response to one frozen agent: set ``target`` and the run is an exploiter, its league the target alone
    in both opponent seats (docs/exploit.md)."""

    target: str = field(default="", metadata=_meta(doc="agent spec the run learns to beat (x.pt, ppo, rule, ...): it "
                        "plays both opponent seats of every game, frozen; '' = not an exploiter"))
    start: str = field(default="target", metadata=_meta(choices=EXPLOIT_STARTS, doc="target: from the target's own "
                       "network (a checkpoint target); rule: from a clone of rule (pretrain.decisions > 0)"))


@dataclass
class EvalConfig:
    interval: int = field(default=20, metadata=_meta(lo=0, doc="iterations between evaluations (0 = never)"))
    deals: int = field(default=200, metadata=_meta(lo=1, doc="duplicate deals per opponent at each evaluation"))
    opponents: list[str] = field(default_factory=lambda: ["rule", "random"], metadata=_meta(doc=(
        "agent specs the learner is evaluated against (eval/margin_vs_<name> in TensorBoard)")))
    seed: int = field(default=12345, metadata=_meta(lo=0, doc="the evaluation deal set (the same at every evaluation)"))
    workers: int = field(default=1, metadata=_meta(lo=1, doc="evaluator processes"))
    ladder_deals: int = field(default=0, metadata=_meta(lo=0, doc="at each evaluation, rate the league's snapshots, "
                              "the learner and the eval opponents in a round robin on this many deals (0 = no)"))


@dataclass
class CheckpointConfig:
    interval: int = field(default=20, metadata=_meta(lo=1, doc="iterations between kept checkpoints"))
    keep: int = field(default=5, metadata=_meta(lo=1, doc="periodic checkpoints kept"))


@dataclass
class BudgetConfig:
    decisions: Optional[int] = field(default=None, metadata=_meta(lo=1, doc=(
        "decisions played in the PPO rollouts, all four seats (the warm start not counted); the run stops at the "
        "first limit reached")))
    minutes: Optional[float] = field(default=None, metadata=_meta(lo=0, lo_open=True, doc=(
        "wall-clock minutes, counted across --resume")))
    iterations: Optional[int] = field(default=None, metadata=_meta(lo=1, doc="PPO iterations"))


@dataclass
class RolloutConfig:
    backend: str = field(default="auto", metadata=_meta(choices=("auto", "local", "process", "ray"), doc=(
        "where rollouts run: this process, one child process, or Ray actors; auto = process when this "
        "process may use two or more CPUs (os.sched_getaffinity), else local")))
    lag: int = field(default=1, metadata=_meta(lo=0, hi=1, doc=(
        "policy lag: 1 = iteration k >= 1 learns from a rollout played with the weights of iteration k - 1, "
        "collected while the learner updates (pipelined); 0 = collect, then update")))
    workers: int = field(default=2, metadata=_meta(lo=1, doc=(
        "Ray actors, one CPU each; each plays env.num_games games")))
    address: str = field(default="", metadata=_meta(doc=(
        "'' -> $RAY_ADDRESS or a new local Ray; 'auto' or host:port -> a cluster")))
    timeout: float = field(default=600.0, metadata=_meta(lo=0, lo_open=True, doc=(
        "seconds one collection may take (Ray worker or rollout process) before it is retried")))


@dataclass
class Config:
    rules: Union[str, dict] = field(default="classic", metadata=_meta(doc=(
        "a preset name, a mapping of Rules fields (with an optional preset: key) or a rules YAML file")))
    env: EnvConfig = field(default_factory=EnvConfig)
    model: ModelConfig = field(default_factory=ModelConfig)
    ppo: PPOConfig = field(default_factory=PPOConfig)
    selfplay: SelfPlayConfig = field(default_factory=SelfPlayConfig)
    learn: LearnConfig = field(default_factory=LearnConfig)
    pretrain: PretrainConfig = field(default_factory=PretrainConfig)
    eval: EvalConfig = field(default_factory=EvalConfig)
    checkpoint: CheckpointConfig = field(default_factory=CheckpointConfig)
    budget: BudgetConfig = field(default_factory=BudgetConfig)
    rollout: RolloutConfig = field(default_factory=RolloutConfig)
    exploit: ExploitConfig = field(default_factory=ExploitConfig)
    stages: list[StageConfig] = field(default_factory=list, metadata=_meta(doc=(
        "optional: the PPO budget in parts run one after another (e.g. against rule, then a league); the "
        "league's snapshots carry over; budget.decisions defaults to their sum")))
    device: str = field(default="auto", metadata=_meta(choices=("auto", "cpu", "cuda"), doc=(
        "where the learner runs; auto = cuda when available (rollouts run on the CPU)")))
    threads: int = field(default=1, metadata=_meta(lo=0, doc=(
        "torch threads (0 = torch's default); 1 is fastest on a shared 2-core machine")))

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def make_rules(self) -> Rules:
        return make_rules(self.rules)


_FLOAT_RE = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")


def type_name(tp) -> str:
    """How error messages and the config reference name a key's type ('an int', 'a list of strings')."""
    origin = typing.get_origin(tp)
    if tp is int:
        return "an int"
    if tp is float:
        return "a number"
    if tp is str:
        return "a string"
    if tp is bool:
        return "true/false"
    if origin is list:
        return f"a list of {type_name(typing.get_args(tp)[0]).partition(' ')[2]}s"
    if origin is dict:
        return "a mapping of names to numbers"
    if origin is Union:
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        names = " or ".join(type_name(a) for a in args)
        return names + (" or null" if type(None) in typing.get_args(tp) else "")
    return str(tp)


def _coerce(key: str, value: Any, tp, meta: dict) -> Any:
    """Check ``value`` against type ``tp`` and bounds; returns the value (floats as float)."""
    origin = typing.get_origin(tp)
    if origin is Union:
        args = typing.get_args(tp)
        if value is None and type(None) in args:
            return None
        for a in args:
            if a is type(None):
                continue
            try:
                return _coerce(key, value, a, meta)
            except ConfigError:
                if len(args) == 2:
                    raise
        raise ConfigError(f"{key}: expected {type_name(tp)}, got {value!r}")
    if origin is list:
        if not isinstance(value, list):
            raise ConfigError(f"{key}: expected {type_name(tp)}, got {value!r}")
        (item,) = typing.get_args(tp)
        return [_coerce(f"{key}[{i}]", v, item, meta) for i, v in enumerate(value)]
    if origin is dict:
        if not isinstance(value, dict):
            raise ConfigError(f"{key}: expected {type_name(tp)}, got {value!r}")
        _, vt = typing.get_args(tp)
        for k, v in value.items():
            if v is None and ":" in str(k):  # {curent:1.0}: YAML reads one key "curent:1.0"
                name, _, number = str(k).partition(":")
                try:  # the only mapping of names is a league's: say a misspelled member too
                    check_agent_name(key, name, ("current", "snapshots"))
                    also = ""
                except ConfigError as e:
                    also = "; and " + str(e).partition(": ")[2]
                raise ConfigError(f"{key}: {k!r} has no value: YAML needs a space after the colon "
                                  f"({{{name}: {number}}}){also}")
        return {str(k): _coerce(f"{key}.{k}", v, vt, meta) for k, v in value.items()}
    if tp is float:
        if isinstance(value, str) and _FLOAT_RE.match(value.strip()):
            value = float(value)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigError(f"{key}: expected a number, got {value!r}")
        value = float(value)
    elif tp is int:
        if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
            value = int(value)  # 1e6 written as a float
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{key}: expected an int, got {value!r}")
    elif tp is str:
        if not isinstance(value, str):
            raise ConfigError(f"{key}: expected a string, got {value!r}")
    elif tp is bool:
        if not isinstance(value, bool):
            raise ConfigError(f"{key}: expected true or false, got {value!r}")
    choices, lo, hi = meta.get("choices"), meta.get("lo"), meta.get("hi")
    if choices is not None and value not in choices:
        raise ConfigError(f"{key}: {value!r} is not one of {list(choices)}{did_you_mean(value, choices)}")
    if lo is not None and (value < lo or (meta.get("lo_open") and value == lo)):
        raise ConfigError(f"{key}: must be {'>' if meta.get('lo_open') else '>='} {lo}, got {value!r}")
    if hi is not None and value > hi:
        raise ConfigError(f"{key}: must be <= {hi}, got {value!r}")
    return value


def _build(cls, data: Any, prefix: str):
    if not isinstance(data, dict):
        raise ConfigError(f"{prefix or 'config'}: expected a mapping, got {data!r}")
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = sorted(set(data) - set(fields))
    if unknown:
        where = f"{prefix}." if prefix else ""
        raise ConfigError(f"unknown key {where}{unknown[0]!s}{did_you_mean(unknown[0], fields)}; allowed in "
                          f"{prefix or 'the top level'}: {list(fields)}")
    kwargs = {}
    for name, value in data.items():
        key = f"{prefix}.{name}" if prefix else name
        tp = hints[name]
        if dataclasses.is_dataclass(tp):
            kwargs[name] = _build(tp, value if value is not None else {}, key)
        elif typing.get_origin(tp) is list and dataclasses.is_dataclass(typing.get_args(tp)[0]):
            if not isinstance(value, list):
                raise ConfigError(f"{key}: expected a list of mappings, got {value!r}")
            kwargs[name] = [_build(typing.get_args(tp)[0], v, f"{key}[{i}]") for i, v in enumerate(value)]
        elif name == "rules" and cls is Config:
            kwargs[name] = _check_rules(value)
        else:
            kwargs[name] = _coerce(key, value, tp, dict(fields[name].metadata))
    return cls(**kwargs)


def _check_rules(value: Any) -> Union[str, dict]:
    if not isinstance(value, (str, dict)):
        raise ConfigError(f"rules: expected a preset name or a mapping of rule fields, got {value!r}")
    try:
        make_rules(value)
    except (ValueError, TypeError) as e:
        raise ConfigError(f"rules: {e}") from None
    return value


def _check_and_complete(cfg: Config) -> None:
    """Checks across keys; fills in budget.decisions from the stages."""
    if not cfg.learn.phases:
        raise ConfigError("learn.phases: must name at least one of ['bidding', 'trump', 'play']")
    if len(set(cfg.learn.phases)) != len(cfg.learn.phases):
        raise ConfigError(f"learn.phases: repeated phase in {cfg.learn.phases}")
    if not cfg.model.hidden:
        raise ConfigError("model.hidden: must list at least one layer width")
    if cfg.model.view == "contract7" and cfg.make_rules().auction != "none":
        raise ConfigError("model.view: contract7 shows a 7 bid where there is no auction, so it needs rules with "
                          "auction: none (trump_by_card); use plain")
    if cfg.eval.seed in HELDOUT.seeds:  # the in-training evaluation picks snapshots and links: a choice
        raise ConfigError(f"eval.seed: {cfg.eval.seed} is in the held-out deal set {HELDOUT.describe()}; "
                          "in-training evaluation informs choices, so give a seed outside it (default 12345)")
    for key, sp in [("selfplay", cfg.selfplay)] + [(f"stages[{i}].selfplay", st.selfplay)
                                                    for i, st in enumerate(cfg.stages)]:
        if not sp.weights or sum(sp.weights.values()) <= 0:
            raise ConfigError(f"{key}.weights: at least one weight must be positive")
    for key, sp in [("selfplay", cfg.selfplay)] + [(f"stages[{i}].selfplay", st.selfplay)
                                                    for i, st in enumerate(cfg.stages)]:
        for name in sp.weights:
            check_agent_name(f"{key}.weights", name, ("current", "snapshots"))
    check_agent_name("learn.other", cfg.learn.other)
    check_agent_name("pretrain.teacher", cfg.pretrain.teacher)
    for i, name in enumerate(cfg.eval.opponents):
        check_agent_name(f"eval.opponents[{i}]", name)
    if cfg.pretrain.init:
        check_agent_name("pretrain.init", cfg.pretrain.init)
    if cfg.exploit.target:
        check_agent_name("exploit.target", cfg.exploit.target)
    for i, st in enumerate(cfg.stages):
        if st.decisions is None:
            raise ConfigError(f"stages[{i}].decisions: required (the PPO decisions of the stage)")
    if cfg.exploit.target:
        _resolve_exploit(cfg)
    if cfg.stages and cfg.budget.decisions is None:  # the stages are the budget
        cfg.budget.decisions = sum(st.decisions for st in cfg.stages)
    if cfg.ppo.lr_schedule == "linear" and cfg.budget.decisions is None and cfg.budget.iterations is None:
        raise ConfigError("ppo.lr_schedule: 'linear' decays to 0 over the budget, so budget.decisions or "
                          "budget.iterations must be set (or use 'constant')")
    if cfg.budget.decisions is None and cfg.budget.minutes is None and cfg.budget.iterations is None:
        raise ConfigError("budget: set at least one of budget.decisions, budget.minutes, budget.iterations")


def _resolve_exploit(cfg: Config) -> None:
    """An exploiter's league, start and evaluation, from ``exploit``: its one opponent is the target (in both
    opponent seats: the learner's network plays both seats of its team, so what it learns is a team's best
    response, not a partnership with the target), it starts from the target's network (whose
    ``canonical_trump`` and ``view`` it takes, the inputs its weights were trained on) or from a clone of
    ``rule``, and it is evaluated against the target first. Idempotent, so a run's resolved config.yaml
    loads again on ``--resume``; keys set against it are refused."""
    import agents
    from agents.checkpoint import load_checkpoint

    ex = cfg.exploit
    if cfg.stages:
        raise ConfigError("exploit.target: an exploiter trains against its target alone, in one stage; remove stages")
    if cfg.selfplay.weights not in (SelfPlayConfig().weights, {ex.target: 1.0}):
        raise ConfigError(f"exploit.target: the exploiter's only opponent is {ex.target}; leave selfplay.weights "
                          f"unset (got {cfg.selfplay.weights})")
    try:
        path, _ = agents.resolve(ex.target, cfg.make_rules())
        if ex.start == "target":
            if not path.endswith(".pt"):
                raise ConfigError(f"exploit.start: 'target' starts from the target's network, and {ex.target} is "
                                  "not a checkpoint; use start: rule")
            arch = load_checkpoint(path)["model"]
    except ValueError as e:
        raise ConfigError(e if isinstance(e, ConfigError) else f"exploit.target: {e}") from None
    cfg.selfplay.weights = {ex.target: 1.0}
    if ex.start == "target":
        if cfg.pretrain.init not in ("", ex.target):
            raise ConfigError(f"exploit.start: 'target' starts from {ex.target}, not pretrain.init "
                              f"{cfg.pretrain.init}; leave pretrain.init unset or use start: rule")
        cfg.pretrain.init = ex.target
        cfg.model.canonical_trump = bool(arch.get("canonical_trump", False))
        cfg.model.view = arch.get("view", "plain")
    else:
        if cfg.pretrain.init or cfg.pretrain.decisions == 0:
            raise ConfigError("exploit.start: 'rule' starts from a clone of rule: leave pretrain.init unset and set "
                              "pretrain.decisions (e.g. 2000000)")
        cfg.pretrain.teacher = "rule"
    if ex.target not in cfg.eval.opponents:
        cfg.eval.opponents = [ex.target, *cfg.eval.opponents]


def _inherit_selfplay(data: dict[str, Any]) -> dict[str, Any]:
    """Each stage's ``selfplay`` is the top-level section with the stage's keys changed."""
    stages, base = data.get("stages"), data.get("selfplay") or {}
    if not isinstance(stages, list) or not isinstance(base, dict):
        return data  # _build names what is wrong
    merged = []
    for st in stages:
        own = st.get("selfplay") if isinstance(st, dict) else None
        if isinstance(st, dict) and (own is None or isinstance(own, dict)):
            st = {**st, "selfplay": {**base, **(own or {})}}
        merged.append(st)
    return {**data, "stages": merged}


def config_from_dict(data: dict[str, Any]) -> Config:
    cfg = _build(Config, _inherit_selfplay(data or {}), "")
    _check_and_complete(cfg)
    return cfg


def yaml_problem(e: yaml.YAMLError) -> str:
    """A YAML error in one line (PyYAML's own text spans several, with the source and a caret)."""
    problem = getattr(e, "problem", None) or str(e).splitlines()[0]
    context = getattr(e, "context", None)
    mark = getattr(e, "problem_mark", None)
    where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
    return f"{problem}{where}" + (f" ({context})" if context else "")


def check_override_key(key: str) -> None:
    """Refuse a ``--set`` key the config has no place for, naming the flag rather than the config file."""
    cls, parts = Config, key.split(".")
    for i, part in enumerate(parts):
        names = [f.name for f in dataclasses.fields(cls)]
        if part not in names:
            section = ".".join(parts[:i])
            raise ConfigError(f"--set {key}: unknown key {'.'.join(parts[: i + 1])}{did_you_mean(part, names)}; "
                              f"allowed in {section or 'the top level'}: {names}")
        tp = typing.get_type_hints(cls)[part]
        if cls is Config and part == "rules" and i + 1 < len(parts):
            allowed = ["preset"] + [f.name for f in dataclasses.fields(Rules)]
            if parts[i + 1] not in allowed or i + 2 < len(parts):
                raise ConfigError(f"--set {key}: unknown key {key}{did_you_mean(parts[i + 1], allowed)}; "
                                  f"allowed in rules: {allowed}")
            return
        if not dataclasses.is_dataclass(tp):
            if i + 1 < len(parts) and typing.get_origin(tp) is not dict:
                raise ConfigError(f"--set {key}: {'.'.join(parts[: i + 1])} is a value, not a section")
            return
        cls = tp


def apply_overrides(data: dict[str, Any], overrides: list[str]) -> dict[str, Any]:
    """Apply ``key.sub=value`` strings (values parsed as YAML) to a nested dict, in place."""
    for item in overrides:
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"--set {item!r}: expected key=value, e.g. ppo.lr=1e-4")
        check_override_key(key.strip())
        try:
            value = yaml.safe_load(raw)
        except yaml.YAMLError as e:
            raise ConfigError(f"--set {item!r}: the value {raw!r} is not valid YAML: {yaml_problem(e)}") from None
        parts = key.strip().split(".")
        node = data
        for i, p in enumerate(parts[:-1]):
            nxt = node.get(p)
            if nxt is None:
                nxt = node[p] = {}
            elif isinstance(nxt, str) and p == "rules" and i == 0:
                nxt = node[p] = {"preset": nxt}  # rules.target_score=41 on top of a preset name
            elif not isinstance(nxt, dict):
                raise ConfigError(f"--set {item!r}: {'.'.join(parts[: i + 1])} is not a section")
            node = nxt
        node[parts[-1]] = value
    return data


def _merge_sections(base: dict[str, Any], own: dict[str, Any]) -> dict[str, Any]:
    """``base`` with ``own``'s sections changed key by key (``rules`` and every value replaced whole)."""
    merged = dict(base)
    for key, value in own.items():
        if key != "rules" and isinstance(value, dict) and isinstance(base.get(key), dict):
            value = {**base[key], **value}
        merged[key] = value
    return merged


def _read_config_file(path: str, chain: tuple[str, ...] = ()) -> tuple[dict[str, Any], list[str]]:
    """A config file's sections with its ``base`` chain resolved, and the files read (``path`` first)."""
    try:
        with open(path, encoding="utf-8") as f:
            data = yaml.safe_load(f) or {}
    except FileNotFoundError:
        raise ConfigError(f"config file not found: {path}" if not chain else
                          f"{chain[-1]}: base: no such config file {path}") from None
    except yaml.YAMLError as e:
        raise ConfigError(f"{path}: not valid YAML: {yaml_problem(e)}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping of sections")
    if "base" not in data:
        return data, [path]
    base = data.pop("base")
    if not isinstance(base, str) or not base.strip():
        raise ConfigError(f"{path}: base: expected the path of another config file (relative to this one), "
                          f"got {base!r}")
    base_path = os.path.normpath(os.path.join(os.path.dirname(path), base))
    seen = (*chain, os.path.normpath(path))
    if base_path in seen:
        raise ConfigError(f"{path}: base: the chain of bases loops ({' -> '.join((*seen, base_path))})")
    base_data, files = _read_config_file(base_path, seen)
    return _merge_sections(base_data, data), [path, *files]


def config_files(path: str) -> list[str]:
    """The files a config is read from: ``path``, then its ``base:`` chain."""
    return _read_config_file(path)[1]


def load_config(path: str | None, overrides: list[str] = ()) -> Config:
    """Read a YAML file and its bases (or start from defaults when ``path`` is None), apply overrides, validate."""
    data: dict[str, Any] = {}
    where = ""
    if path is not None:
        data, files = _read_config_file(path)
        where = path if len(files) == 1 else f"{path} (on {' on '.join(files[1:])})"
    apply_overrides(data, list(overrides))
    try:
        return config_from_dict(data)
    except ConfigError as e:
        item = override_of(str(e), overrides)
        if item is not None:  # the key the error names was set on the command line
            raise ConfigError(f"--set {item}: {e}") from None
        raise ConfigError(f"{where}: {e}" if where else str(e)) from None


_KEY_RE = re.compile(r"^(?:unknown key )?([A-Za-z_][\w.\[\]]*)[:; ]")


def override_of(message: str, overrides) -> str | None:
    """The last ``--set`` item whose key is the key an error message starts with, or a section above it."""
    m = _KEY_RE.match(message)
    if m is None:
        return None
    named = m.group(1)
    for item in reversed(list(overrides)):
        key = item.partition("=")[0].strip()
        if named == key or named.startswith((key + ".", key + "[")) or key.startswith(named + "."):
            return item
    return None


def dump_config(cfg: Config) -> str:
    return yaml.safe_dump(cfg.to_dict(), sort_keys=False)
