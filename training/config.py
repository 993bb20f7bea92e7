"""The training configuration: one pydantic model per YAML section, validated on load.

pydantic checks types (strict: no string read as a number, no number as a string), bounds, choices and keys
(``extra="forbid"``); :func:`config_from_dict` turns its first error into one line naming the dotted key, what
is allowed and the closest spelling. ``--set key=value`` overrides any key (values parsed as YAML). A float
written ``3e-4`` (which YAML 1.1 reads as a string) is accepted as the number it spells, and a whole float
(``8.0``, ``1.0e+6``) as an int.

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
from typing import Annotated, Any, Literal, Optional, Union

import yaml
from pydantic import (AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, PlainValidator, ValidationError,
                      ValidationInfo, field_validator, model_validator)

from agents.arch import CRITICS
from evaluation.deals import HELDOUT
from tarneeb_env import Rules, make_rules
from tarneeb_env.transforms import PHASE_NAMES, VIEWS

SAMPLINGS = ("uniform", "pfsp")  # how the league's snapshots share their weight (training.league)
EXPLOIT_STARTS = ("target", "rule")
LEAGUE = ("current", "snapshots")  # the league's own members, beside agent specs


class ConfigError(ValueError):
    """A configuration problem; the message names the key."""


def did_you_mean(word: str, allowed) -> str:
    """``" (did you mean 'x'?)"`` with the allowed spellings closest to ``word`` (difflib), or ``""``."""
    close = difflib.get_close_matches(str(word), [str(a) for a in allowed], n=3, cutoff=0.6)
    return f" (did you mean {' or '.join(repr(c) for c in close)}?)" if close else ""


def agent_problem(spec: Any, extra: tuple[str, ...] = ()) -> Optional[str]:
    """Why ``spec`` is no built-in name (nor one of ``extra``, e.g. ``current``) and no file form (``x.pt``,
    ``file.py:Name``, ``module:Name``), with the closest spellings; None when it may be an agent (files are
    checked on loading)."""
    import agents

    if not isinstance(spec, str) or not spec:
        return f"expected an agent spec, got {spec!r}"
    base = spec.removesuffix(agents.ANY_RULES).partition("?")[0]
    names = (*extra, *sorted(agents.BUILTINS), agents.SHIPPED)
    if base in names or base.endswith(".pt") or ":" in base:
        return None
    return (f"{spec!r} is not {', '.join(repr(n) for n in names)}, a .pt checkpoint or "
            f"file.py:Name{did_you_mean(base, names)}")


# ------------------------------------------------------------------ value types
_FLOAT_RE = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")


def _number(value: Any) -> Any:
    return float(value) if isinstance(value, str) and _FLOAT_RE.match(value.strip()) else value


def _whole(value: Any) -> Any:
    return int(value) if isinstance(value, float) and value.is_integer() and abs(value) < 2**53 else value


def _agent(*extra: str, empty_ok: bool = False) -> AfterValidator:
    def check(spec: str) -> str:
        problem = None if empty_ok and spec == "" else agent_problem(spec, extra)
        if problem:
            raise ValueError(problem)
        return spec
    return AfterValidator(check)


def _refuse(test, message) -> AfterValidator:
    """A check pydantic runs after the type's: ``message`` (or ``message(value)``) where ``test(value)`` holds."""
    def check(value):
        if test(value):
            raise ValueError(message(value) if callable(message) else message)
        return value
    return AfterValidator(check)


Int = Annotated[int, BeforeValidator(_whole)]
Number = Annotated[float, BeforeValidator(_number)]
Agent = Annotated[str, _agent()]
AgentOrNone = Annotated[str, _agent(empty_ok=True)]  # '' = none


def _check_rules(value: Any) -> Union[str, dict]:
    if not isinstance(value, (str, dict)):
        raise ValueError(f"expected a preset name or a mapping of rule fields, got {value!r}")
    try:
        make_rules(value)
    except (ValueError, TypeError) as e:
        raise ValueError(str(e)) from None
    return value


def _league_weights(weights: Any) -> Any:
    """Refuse ``{curent:1.0}`` (YAML reads one key ``curent:1.0`` with no value) saying so."""
    for k, v in weights.items() if isinstance(weights, dict) else ():
        if v is None and ":" in str(k):
            name, _, number = str(k).partition(":")
            problem = agent_problem(name, LEAGUE)
            raise ValueError(f"{k!r} has no value: YAML needs a space after the colon ({{{name}: {number}}})"
                             + (f"; and {problem}" if problem else ""))
    return weights


# ------------------------------------------------------------------ the sections
class Section(BaseModel):
    """Unknown keys are refused, and values are not converted between types (but see Int and Number)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    @model_validator(mode="before")
    @classmethod
    def _as_yaml_wrote_it(cls, data: Any) -> Any:
        """A section with every key left out (``ppo:`` alone) is YAML's null: it keeps its defaults. A key YAML read
        as another type (``1:``) is named as written."""
        return {} if data is None else {str(k): v for k, v in data.items()} if isinstance(data, dict) else data


class EnvConfig(Section):
    num_games: Int = Field(128, ge=1, description="games played at once")
    rollout_steps: Int = Field(256, ge=1, description="decisions per game per iteration")
    seed: Int = Field(0, ge=0, description="the run's seed: deals, sampling, network init, league")


class ModelConfig(Section):
    hidden: Annotated[list[Annotated[Int, Field(ge=1)]], _refuse(
        lambda v: not v, "must list at least one layer width")] = Field([256, 256], description=(
            "hidden layer widths of the policy (and critic) MLP; a wider start from pretrain.init is widened "
            "(Net2Net)"))
    critic: Literal[CRITICS] = Field("shared", description="privileged: the value net also reads the other seats' "
                                     "cards (training only)")
    canonical_trump: bool = Field(False, description="the network sees the trump suit as hearts (rules whose trump "
                                  "varies learn it once)")
    view: Literal[VIEWS] = Field("plain", description="contract7: a deal without an auction reads as a 7 bid by the "
                                 "eldest hand (auction: none only)")


class PPOConfig(Section):
    lr: Number = Field(3e-4, gt=0, description="Adam learning rate of the PPO updates")
    lr_schedule: Literal["constant", "linear"] = Field("linear", description=(
        "linear: decays to 2% of lr over budget.decisions or budget.iterations (with stages: over each stage)"))
    clip: Number = Field(0.2, gt=0, description="PPO's clip range of the ratio")
    epochs: Int = Field(3, ge=1, description="passes over each iteration's batch")
    minibatch_size: Int = Field(4096, ge=1, description="learned decisions per gradient step")
    gae_lambda: Number = Field(0.95, ge=0, le=1, description="GAE's lambda (per seat)")
    gamma: Number = Field(1.0, ge=0, le=1, description="discount per decision; 1 = none within a hand")
    ent_coef: Number = Field(0.01, ge=0, description="weight of the entropy bonus (legal actions only)")
    vf_coef: Number = Field(0.5, ge=0, description="weight of the value loss")
    max_grad_norm: Number = Field(0.5, gt=0, description="gradients clipped to this norm")
    target_kl: Optional[Number] = Field(0.03, gt=0, description=(
        "an iteration's epochs stop once the approximate KL passes this (null: never)"))
    reward_scale: Number = Field(0.1, gt=0, description="value targets = reward * this")


class SelfPlayConfig(Section):
    weights: Annotated[dict[Annotated[str, BeforeValidator(str), _agent(*LEAGUE)], Annotated[Number, Field(ge=0)]],
                       BeforeValidator(_league_weights),
                       _refuse(lambda w: not w or sum(w.values()) <= 0, "at least one weight must be positive")] = Field(
        {"current": 0.5, "snapshots": 0.25, "rule": 0.25},
        description="'current', 'snapshots' or an agent spec (rule, random, x.pt) -> weight")
    snapshot_interval: Int = Field(10, ge=1, description="iterations between snapshots")
    max_snapshots: Int = Field(8, ge=1, description="snapshots kept; the oldest leaves past this")
    sampling: Literal[SAMPLINGS] = Field("uniform", description="how the snapshots share their weight: equally, or "
                                         "toward those the learner does worst against (pfsp)")
    pfsp_scale: Number = Field(1.0, gt=0, description="pfsp: snapshot weight exp(-margin / pfsp_scale), margin in "
                               "points per hand")


class StageConfig(Section):
    """One part of the PPO budget, with its own learning rate and league (``stages``)."""

    decisions: Int = Field(ge=1, description="the PPO decisions of the stage")
    lr: Optional[Number] = Field(None, gt=0, description=(
        "its learning rate (null: ppo.lr); ppo.lr_schedule linear decays it over the stage's decisions"))
    selfplay: SelfPlayConfig = Field(default_factory=SelfPlayConfig, description=(
        "the league while it lasts: the top-level selfplay section with these keys changed"))


class LearnConfig(Section):
    phases: Annotated[list[Literal[PHASE_NAMES]],
                      _refuse(lambda v: not v, f"must name at least one of {list(PHASE_NAMES)}"),
                      _refuse(lambda v: len(set(v)) != len(v), lambda v: f"repeated phase in {v}")] = Field(
        list(PHASE_NAMES), description="the phases the network decides and learns")
    other: Agent = Field("rule", description="agent spec playing the phases not learned")


class PretrainConfig(Section):
    init: AgentOrNone = Field("", description=(
        "a checkpoint (.pt, trained for these rules) the run starts from: its policy, and its critic when of the "
        "same kind (then cloning, if any, continues it); append ?rules=any to start from an agent of other rules "
        "(transfer: the card play carries over)"))
    teacher: Agent = Field("rule", description="agent spec whose decisions the policy clones")
    decisions: Int = Field(0, ge=0, description="teacher decisions to clone (0 = no warm start)")
    steps: Int = Field(512, ge=64, description="decisions per game per chunk (env.num_games games); decisions of "
                       "hands left unfinished are dropped")
    epochs: Int = Field(2, ge=1, description="passes over each chunk")
    lr: Number = Field(1e-3, gt=0, description="Adam learning rate of the cloning")
    minibatch_size: Int = Field(1024, ge=1, description="teacher decisions per gradient step")
    vf_coef: Number = Field(0.5, ge=0, description="weight of the value loss")


class ExploitConfig(Section):
    """A best response to one frozen agent: set ``target`` and the run is an exploiter, its league the target alone
    in both opponent seats (docs/exploit.md)."""

    target: AgentOrNone = Field("", description="agent spec the run learns to beat (x.pt, ppo, rule, ...): it plays "
                                "both opponent seats of every game, frozen; '' = not an exploiter")
    start: Literal[EXPLOIT_STARTS] = Field("target", description="target: from the target's own network (a "
                                           "checkpoint target); rule: from a clone of rule (pretrain.decisions > 0)")


class EvalConfig(Section):
    interval: Int = Field(20, ge=0, description="iterations between evaluations (0 = never)")
    deals: Int = Field(200, ge=1, description="duplicate deals per opponent at each evaluation")
    opponents: list[Agent] = Field(["rule", "random"], description=(
        "agent specs the learner is evaluated against (eval/margin_vs_<name> in TensorBoard)"))
    seed: Annotated[Int, _refuse(lambda s: s in HELDOUT.seeds, lambda s: (  # in-training evaluation picks snapshots
        f"{s} is in the held-out deal set {HELDOUT.describe()}; in-training evaluation informs choices, so give a "
        "seed outside it (default 12345)"))] = Field(12345, ge=0, description=(
            "the evaluation deal set (the same at every evaluation)"))
    workers: Int = Field(1, ge=1, description="evaluator processes")
    ladder_deals: Int = Field(0, ge=0, description="at each evaluation, rate the league's snapshots, the learner and "
                              "the eval opponents in a round robin on this many deals (0 = no)")


class CheckpointConfig(Section):
    interval: Int = Field(20, ge=1, description="iterations between kept checkpoints")
    keep: Int = Field(5, ge=1, description="periodic checkpoints kept")


class BudgetConfig(Section):
    decisions: Optional[Int] = Field(None, ge=1, description=(
        "decisions played in the PPO rollouts, all four seats (the warm start not counted); the run stops at the "
        "first limit reached"))
    minutes: Optional[Number] = Field(None, gt=0, description="wall-clock minutes, counted across --resume")
    iterations: Optional[Int] = Field(None, ge=1, description="PPO iterations")


class RolloutConfig(Section):
    backend: Literal["auto", "local", "process", "ray"] = Field("auto", description=(
        "where rollouts run: this process, one child process, or Ray actors; auto = process when this "
        "process may use two or more CPUs (os.sched_getaffinity), else local"))
    lag: Int = Field(1, ge=0, le=1, description=(
        "policy lag: 1 = iteration k >= 1 learns from a rollout played with the weights of iteration k - 1, "
        "collected while the learner updates (pipelined); 0 = collect, then update"))
    workers: Int = Field(2, ge=1, description="Ray actors, one CPU each; each plays env.num_games games")
    address: str = Field("", description="'' -> $RAY_ADDRESS or a new local Ray; 'auto' or host:port -> a cluster")
    timeout: Number = Field(600.0, gt=0, description=(
        "seconds one collection may take (Ray worker or rollout process) before it is retried"))


class Config(Section):
    rules: Annotated[Union[str, dict], PlainValidator(_check_rules)] = Field("classic", description=(
        "a preset name, a mapping of Rules fields (with an optional preset: key) or a rules YAML file"))
    env: EnvConfig = Field(default_factory=EnvConfig)
    model: ModelConfig = Field(default_factory=ModelConfig)
    ppo: PPOConfig = Field(default_factory=PPOConfig)
    selfplay: SelfPlayConfig = Field(default_factory=SelfPlayConfig)
    learn: LearnConfig = Field(default_factory=LearnConfig)
    pretrain: PretrainConfig = Field(default_factory=PretrainConfig)
    eval: EvalConfig = Field(default_factory=EvalConfig)
    checkpoint: CheckpointConfig = Field(default_factory=CheckpointConfig)
    budget: BudgetConfig = Field(default_factory=BudgetConfig)
    rollout: RolloutConfig = Field(default_factory=RolloutConfig)
    exploit: ExploitConfig = Field(default_factory=ExploitConfig)
    stages: list[StageConfig] = Field([], description=(
        "optional: the PPO budget in parts run one after another (e.g. against rule, then a league); the "
        "league's snapshots carry over; budget.decisions defaults to their sum"))
    device: Literal["auto", "cpu", "cuda"] = Field("auto", description=(
        "where the learner runs; auto = cuda when available (rollouts run on the CPU)"))
    threads: Int = Field(1, ge=0, description=(
        "torch threads (0 = torch's default); 1 is fastest on a shared 2-core machine"))

    @field_validator("stages", mode="before")
    @classmethod
    def _inherit_selfplay(cls, stages: Any, info: ValidationInfo) -> Any:
        """Each stage's ``selfplay`` is the top-level section with the stage's keys changed."""
        base = info.data.get("selfplay")
        if not isinstance(stages, list) or base is None:
            return stages  # the type check names what is wrong
        own_keys = base.model_dump(exclude_unset=True)
        return [{**st, "selfplay": {**own_keys, **(st.get("selfplay") or {})}}
                if isinstance(st, dict) and isinstance(st.get("selfplay") or {}, dict) else st for st in stages]

    @model_validator(mode="after")
    def _check_across_sections(self) -> "Config":
        _check_and_complete(self)
        return self

    def to_dict(self) -> dict[str, Any]:
        return self.model_dump()

    def make_rules(self) -> Rules:
        return make_rules(self.rules)


def _check_and_complete(cfg: Config) -> None:
    """Checks across sections; resolves an exploiter; fills in budget.decisions from the stages."""
    if cfg.model.view == "contract7" and cfg.make_rules().auction != "none":
        raise ConfigError("model.view: contract7 shows a 7 bid where there is no auction, so it needs rules with "
                          "auction: none (trump_by_card); use plain")
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


# ------------------------------------------------------------------ pydantic's errors in one line
_BOUNDS = {"greater_than": ("gt", ">"), "greater_than_equal": ("ge", ">="), "less_than": ("lt", "<"),
           "less_than_equal": ("le", "<=")}


def _bare(tp):
    while typing.get_origin(tp) is Annotated:
        tp = typing.get_args(tp)[0]
    return tp


def is_section(tp) -> bool:
    return isinstance(tp, type) and issubclass(tp, BaseModel)


def type_at(loc) -> Any:
    """The type of the key at a pydantic error location: through sections, list indexes and mapping values."""
    tp = Config
    for part in loc:
        tp = _bare(tp)
        tp = tp.model_fields[part].annotation if is_section(tp) else typing.get_args(tp)[0 if isinstance(
            part, int) else -1]
    return _bare(tp)


def type_name(tp) -> str:
    """How error messages and the config reference name a key's type ('an int', 'a list of strings')."""
    tp = _bare(tp)
    origin = typing.get_origin(tp)
    if origin is Union:
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        return " or ".join(type_name(a) for a in args) + (" or null" if type(None) in typing.get_args(tp) else "")
    if origin is list:
        return f"a list of {type_name(typing.get_args(tp)[0]).partition(' ')[2]}s"
    names = {int: "an int", float: "a number", str: "a string", bool: "true/false", dict: "a mapping of names to "
             "numbers", Literal: "a string"}
    return "a mapping" if is_section(tp) else names.get(origin or tp, str(tp))


def _dotted(loc) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc).lstrip(".")


def _one_line(error: ValidationError) -> str:
    """pydantic's first error as one line: the dotted key, what is wrong and what is allowed. An unknown key is
    named before any other problem (a misspelled key is the likeliest cause of the rest)."""
    err = min(error.errors(), key=lambda e: e["type"] != "extra_forbidden")
    loc, kind, value, ctx = tuple(err["loc"]), err["type"], err["input"], err.get("ctx") or {}
    if loc[-1:] == ("[key]",):  # a mapping's key: the message names it, the key path names the mapping
        loc = loc[:-2]
    key = _dotted(loc)
    if kind == "extra_forbidden":
        names = list(type_at(loc[:-1]).model_fields)
        return (f"unknown key {key}{did_you_mean(loc[-1], names)}; allowed in {_dotted(loc[:-1]) or 'the top level'}: "
                f"{names}")
    if kind == "value_error":
        text = str(ctx["error"])
        return f"{key}: {text}" if key else text  # checks across sections name their keys
    if kind == "literal_error":
        choices = typing.get_args(type_at(loc))
        text = f"{value!r} is not one of {list(choices)}{did_you_mean(value, choices)}"
    elif kind in _BOUNDS:
        name, sign = _BOUNDS[kind]
        bound = ctx[name]
        if type_name(type_at(loc)).startswith("a number") and not isinstance(value, bool):
            value = float(value)
        text = f"must be {sign} {int(bound) if float(bound).is_integer() else bound}, got {value!r}"
    elif kind == "missing":  # a key without a default (a stage's decisions)
        text = f"required ({type_at(loc[:-1]).model_fields[loc[-1]].description})"
    elif kind.endswith("_type"):
        text = f"expected {'true or false' if kind == 'bool_type' else type_name(type_at(loc))}, got {value!r}"
    else:
        text = f"{err['msg']}, got {value!r}"
    return f"{key or 'config'}: {text}"


def config_from_dict(data: dict[str, Any]) -> Config:
    try:
        return Config.model_validate(data or {})
    except ValidationError as e:
        raise ConfigError(_one_line(e)) from None


# ------------------------------------------------------------------ files, --set and base:
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
        names = list(cls.model_fields)
        if part not in names:
            section = ".".join(parts[:i])
            raise ConfigError(f"--set {key}: unknown key {'.'.join(parts[: i + 1])}{did_you_mean(part, names)}; "
                              f"allowed in {section or 'the top level'}: {names}")
        tp = _bare(cls.model_fields[part].annotation)
        if cls is Config and part == "rules" and i + 1 < len(parts):
            allowed = ["preset"] + [f.name for f in dataclasses.fields(Rules)]
            if parts[i + 1] not in allowed or i + 2 < len(parts):
                raise ConfigError(f"--set {key}: unknown key {key}{did_you_mean(parts[i + 1], allowed)}; "
                                  f"allowed in rules: {allowed}")
            return
        if not is_section(tp):
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
