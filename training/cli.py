"""``train.py`` / ``tarneeb-train``: the command line over :class:`training.Trainer`."""
from __future__ import annotations

import argparse
import os
import sys

import yaml

import agents
from agents.checkpoint import CheckpointError, load_checkpoint
from agents.rules_check import warnings_in_one_line

from .checkpoints import average_for_play, export_for_play, require_training_checkpoint
from .config import (
    Config,
    ConfigError,
    apply_overrides,
    check_override_key,
    config_files,
    config_from_dict,
    dump_config,
    load_config,
    override_of,
)
from .provenance import config_source
from .trainer import RESUME_MUTABLE, Trainer, require_current_layout

_DESCRIPTION = "Self-play PPO for Tarneeb, from a behaviour-cloning warm start."


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="train.py", description=_DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--config", help="YAML config (see configs/default.yaml)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="override a config key (dotted path, value parsed as YAML); repeatable")
    p.add_argument("--run-dir", help="output directory (default runs/<config name>)")
    p.add_argument("--resume", metavar="RUN_DIR", help="continue the run in RUN_DIR from its latest.pt")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--export", nargs=2, metavar=("CHECKPOINT", "OUT"),
                   help="write the play-only part of CHECKPOINT (weights, rules, config) to OUT and exit")
    p.add_argument("--average", nargs="+", metavar=("OUT", "CHECKPOINT"),
                   help="write to OUT a play-only checkpoint whose weights are the mean of two or more CHECKPOINTs' "
                        "(runs from one start network, e.g. seeds of one link) and exit")
    args = p.parse_args(argv)
    if args.export or args.average:
        if args.average and len(args.average) < 3:
            p.error("--average takes OUT and at least two checkpoints to average")
        return args
    if args.resume and (args.config or args.run_dir):
        p.error("--resume continues a run with its saved config; do not combine it with --config or --run-dir")
    if not args.resume and not args.config:
        p.error("give --config FILE (or --resume RUN_DIR)")
    return args


def load_resumable(run_dir: str) -> dict:
    """The checkpoint ``--resume run_dir`` continues; each way of there being none is explained in one line."""
    latest = os.path.join(run_dir, "latest.pt")
    if os.path.isfile(run_dir):  # a checkpoint named instead of its run directory
        data = load_checkpoint(run_dir)
        require_training_checkpoint(data, run_dir)
        raise ConfigError(f"--resume takes the run directory, not a checkpoint file: --resume "
                          f"{os.path.dirname(run_dir) or '.'}")
    if not os.path.isdir(run_dir):
        raise ConfigError(f"--resume {run_dir}: no such run directory; start a run there with "
                          f"python train.py --config FILE --run-dir {run_dir}")
    if not os.path.exists(latest):
        config = os.path.join(run_dir, "config.yaml")
        if os.path.isfile(config):
            raise ConfigError(f"--resume {run_dir}: the run had not reached its first checkpoint (no latest.pt), so "
                              f"there is nothing to resume; start it again with python train.py --config {config} "
                              f"--run-dir {run_dir}")
        raise ConfigError(f"--resume {run_dir}: not a run directory of train.py (no latest.pt, no config.yaml); "
                          f"start a run with python train.py --config FILE --run-dir {run_dir}")
    data = load_checkpoint(latest)
    require_training_checkpoint(data, latest)
    require_current_layout(data, f"--resume {run_dir}", latest)  # here too: before the Trainer's start-up costs
    return data


def resumed_config(data: dict, overrides: list[str]) -> Config:
    """The saved config with ``--set`` applied. ``stages`` may change only after the stage the run is in (the
    stages begun stay as they ran, so the run is the one the new list makes from nothing); where the budget was
    the old stages' sum it becomes the new sum."""
    saved = config_from_dict(data["config"])
    changed = apply_overrides(data["config"], overrides)
    keys = {item.partition("=")[0].strip() for item in overrides}
    if "stages" in keys and "budget.decisions" not in keys and saved.budget.decisions == sum(
            st.decisions for st in saved.stages):
        changed["budget"]["decisions"] = None  # filled in from the new stages
    cfg = config_from_dict(changed)
    done, start = data["counters"]["decisions"], 0
    if "stages" in keys and not saved.stages and done:
        raise ConfigError(f"--set stages: the run has no stages and has begun ({done:,} PPO decisions), so its "
                          "schedule cannot become stages; start a run with them (pretrain.init may start it from this "
                          "run)")
    for k, st in enumerate(saved.stages):
        if start >= done:
            break
        if k >= len(cfg.stages) or cfg.stages[k] != st:
            raise ConfigError(f"--set stages: stage {k} has begun (it starts at {start:,} PPO decisions, the run is at "
                              f"{done:,}) and must stay as it is; only the stages after it may change or be added")
        start += st.decisions
    return cfg


def check_agents(cfg) -> None:
    """Load every agent the run will seat (pool, other phases, teacher, evaluation opponents) for its rules, so that
    a bad spec or one made for other rules fails now, in one line naming its key, not after minutes of training."""
    rules = cfg.make_rules()
    leagues = [("selfplay", cfg.selfplay)] + [(f"stages[{i}].selfplay", st.selfplay) for i, st in enumerate(cfg.stages)]
    specs = [(f"{key}.weights", name) for key, sp in leagues for name in sp.weights
             if name not in ("current", "snapshots")]
    specs += [("learn.other", cfg.learn.other)] if len(cfg.learn.phases) < 3 else []
    specs += [(f"eval.opponents[{i}]", name) for i, name in enumerate(cfg.eval.opponents)]
    specs += [("pretrain.teacher", cfg.pretrain.teacher)] if cfg.pretrain.decisions else []
    specs += [("pretrain.init", cfg.pretrain.init)] if cfg.pretrain.init else []
    seen = set()
    for key, spec in specs:
        if spec in seen:
            continue
        seen.add(spec)
        try:
            agents.load(spec, rules=rules)  # an override warns here; main() shows each warning once
        except (agents.AgentSpecError, agents.RulesMismatchError, CheckpointError) as e:
            raise ConfigError(f"{key}: {e}") from None


def setup(args: argparse.Namespace) -> Trainer:
    """Resolve config and run dir from the command line and build the trainer."""
    if args.resume:
        for item in args.set:
            key = item.partition("=")[0].strip()
            check_override_key(key)
            if key.split(".")[0] not in RESUME_MUTABLE:
                raise ConfigError(f"--set {key}: cannot be changed on --resume (only {', '.join(RESUME_MUTABLE)})")
        data = load_resumable(args.resume)
        source = None
        cfg = resumed_config(data, args.set)
        run_dir = args.resume
    else:
        cfg = load_config(args.config, args.set)
        source = config_source(args.config, config_files(args.config), args.set)
        run_dir = args.run_dir or os.path.join("runs", os.path.splitext(os.path.basename(args.config))[0])
        if os.path.exists(os.path.join(run_dir, "latest.pt")):
            raise ConfigError(f"{run_dir} already holds a run; continue it with --resume {run_dir} or pick --run-dir")
        data = None
    try:
        check_agents(cfg)
    except ConfigError as e:
        item = override_of(str(e), args.set)
        raise ConfigError(f"--set {item}: {e}" if item else str(e)) from None
    os.makedirs(run_dir, exist_ok=True)
    with open(os.path.join(run_dir, "config.yaml"), "w", encoding="utf-8") as f:
        f.write(dump_config(cfg))
    return Trainer(cfg, run_dir, resume=data, progress=not args.no_progress, config_file=source, overrides=args.set)


def say_if_compiling() -> None:
    """One line before the engine's and rule's numba kernels compile (a fresh install: about half a minute of
    silence otherwise); they are cached on disk afterwards."""
    import agents.rule_kernels  # noqa: F401  (its kernels join the count)
    import tarneeb_env.batch_kernels  # noqa: F401
    from tarneeb_env.kernel_cache import uncached_kernels

    missing, total = uncached_kernels()
    if missing > total // 2:  # a fresh install or changed rules (a kernel or two more compile in a second or so)
        print(f"compiling {missing} numba kernels of the game engine and the rule player (once: about half a "
              "minute; cached afterwards)", flush=True)


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.export or args.average:
        option, out = ("--export", args.export[1]) if args.export else ("--average", args.average[0])
        try:
            if args.export:
                export_for_play(*args.export)
            else:
                average_for_play(args.average[1:], out)
        except CheckpointError as e:
            print(f"train.py: error: {e}", file=sys.stderr)
            return 2
        except OSError as e:
            print(f"train.py: error: {option}: cannot write {out}: {e.strerror or e}", file=sys.stderr)
            return 2
        print(f"wrote {out} ({os.path.getsize(out) / 1e6:.1f} MB)")
        return 0
    with warnings_in_one_line("train.py"):  # e.g. a pool agent played under other rules (?rules=any)
        try:
            trainer = setup(args)
        except (ConfigError, CheckpointError, agents.AgentSpecError, agents.RulesMismatchError,
                yaml.YAMLError) as e:
            print(f"train.py: error: {e}", file=sys.stderr)
            return 2
        if args.resume:
            stopped = trainer.finished()
            if stopped:
                trainer.close()
                print(f"{args.resume} is finished: it reached {stopped} ({trainer.position()}); to train on, "
                      f"extend it: python train.py --resume {args.resume} {trainer.extend_hint(stopped)}")
                return 0
            print(f"resuming {args.resume} {trainer.position()}", flush=True)
        say_if_compiling()
        try:
            summary = trainer.run()
        except KeyboardInterrupt:
            print(f"\ninterrupted; resume with: python train.py --resume {trainer.run_dir}", file=sys.stderr)
            return 130
    c = summary["counters"]
    print(f"done: {c['iteration']} iterations, {c['decisions']} decisions in {c['seconds'] / 60:.1f} min; "
          f"checkpoint {os.path.join(trainer.run_dir, 'latest.pt')}")
    if summary.get("warm_start_left"):
        print(f"  the warm start did not finish ({summary['warm_start_left']:,} teacher decisions left), so no PPO "
              f"was trained; continue it with python train.py --resume {trainer.run_dir} --set budget.minutes=MORE")
    for k, v in summary["last_eval"].items():
        print(f"  {k}: {v:+.3f}")
    return 0
