"""The shipped configs: each one's code path, shortened (it validates, trains two iterations and evaluates), and
each one's start files: in the repository, or made by an earlier command written in a config's header."""
from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

import pytest

from agents.checkpoint import load_checkpoint
from tarneeb_env import Rules
from training import cli
from training.config import load_config

ROOT = Path(__file__).resolve().parents[1]
RECIPES = ("classic", "syrian41", "hearts41", "trump_by_card")
CONFIGS = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "configs").rglob("*.yaml"))
TEST_CONFIGS = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests" / "configs").glob("*.yaml"))
# the league configs: the four recipes and the chains' links (smoke and default train against rule alone)
LEAGUE_CONFIGS = [c for c in CONFIGS if c.startswith("configs/chains/") or Path(c).stem in RECIPES]
SHORT = ["env.num_games=8", "env.rollout_steps=80", "ppo.minibatch_size=256", "pretrain.steps=80",
         "pretrain.minibatch_size=128", "budget.iterations=2", "budget.minutes=null", "eval.interval=2",
         "eval.deals=4", "eval.ladder_deals=4", "selfplay.snapshot_interval=1", "rollout.backend=local",
         "checkpoint.interval=100"]


def test_configs_holds_the_recipes_the_baseline_the_smoke_and_quick_runs_and_the_chains():
    top = sorted(p.name for p in (ROOT / "configs").glob("*.yaml"))
    assert top == sorted(f"{n}.yaml" for n in (*RECIPES, "default", "smoke", "quick", "exploit"))
    assert {Path(c).parent.name for c in CONFIGS if c.startswith("configs/chains/")} == {"trump_by_card"}


@pytest.mark.parametrize("path", [c if Path(c).stem in RECIPES else pytest.param(c, marks=pytest.mark.slow)
                                  for c in LEAGUE_CONFIGS])  # the chains' links share the recipes' code paths
def test_league_config_trains_its_recipe_shortened(tmp_path, path):
    cfg = load_config(path)
    preset = cfg.make_rules().name
    assert preset in RECIPES and cfg.selfplay.sampling == "pfsp"
    assert cfg.selfplay.weights.get("current", 0) + cfg.selfplay.weights.get("snapshots", 0) > 0.5  # self-play
    shipped = f"checkpoints/{preset}.pt"  # an earlier link's output is not in a fresh clone: start from this instead
    init = shipped if cfg.pretrain.init.startswith("runs/") else cfg.pretrain.init
    weights = {shipped if k.startswith("runs/") else k: v for k, v in cfg.selfplay.weights.items()}
    sets = SHORT + (["pretrain.decisions=640"] if cfg.pretrain.decisions else []) + (
        [f"pretrain.init={init}"] if init else ["model.hidden=[32]"]) + [f"selfplay.weights={weights}"]
    run_dir = str(tmp_path / "run")
    assert cli.main(["--config", path, "--run-dir", run_dir, "--no-progress"]
                    + [a for s in sets for a in ("--set", s)]) == 0
    data = load_checkpoint(os.path.join(run_dir, "latest.pt"))
    assert data["counters"]["iteration"] == 2 and Rules(**data["rules"]).name == preset
    assert [s["iteration"] for s in data["pool"]["snapshots"]] == [1, 2]
    assert "eval/margin_vs_rule" in data["last_eval"] and "league/rating/current" in data["last_eval"]


# ---------------------------------------------------------------- where every run starts
def header_commands(path: Path) -> list[list[str]]:
    """The ``python train.py ...`` commands written in a config's header comment (``\\`` continues a line)."""
    commands, current = [], None
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            break
        text = line[1:].strip()
        if current is None and text.startswith("python train.py "):
            current = text
        elif current is not None:
            current = f"{current[:-1]} {text}"
        else:
            continue
        if not current.endswith("\\"):
            commands.append(shlex.split(current, comments=True)[2:])
            current = None
    return commands


def start_paths(argv: list[str]) -> tuple[list[str], list[str]]:
    """The files one documented command reads (checkpoints it starts from or seats) and the ones it writes."""
    args = cli.parse_args(argv)
    if args.average:
        return args.average[1:], [args.average[0]]
    if args.export:
        return [args.export[0]], [args.export[1]]
    cfg = load_config(args.config, args.set)
    specs = [cfg.pretrain.init, cfg.pretrain.teacher, cfg.learn.other, *cfg.eval.opponents,
             *[name for sp in [cfg.selfplay, *(stage.selfplay for stage in cfg.stages)] for name in sp.weights]]
    reads = [s.split("?")[0] for s in specs if s.split("?")[0].endswith(".pt")]
    return reads, [os.path.join(args.run_dir, "latest.pt")]


def _link_order(path: str) -> tuple:
    return tuple(int(t) if t.isdigit() else t for t in re.split(r"(\d+)", path))


def test_every_config_starts_from_files_in_the_repository_or_made_by_an_earlier_documented_command():
    """Run in order (the top-level configs, then each chain's links), every command written in a header reads only
    files tracked here or written by a command before it in the same sequence; every config has its command."""
    groups: dict[str, list[str]] = {}
    for c in CONFIGS + TEST_CONFIGS:
        groups.setdefault(str(Path(c).parent), []).append(c)
    run = set()
    for folder, paths in groups.items():
        made: set[str] = set()
        for path in sorted(paths, key=_link_order):
            for argv in header_commands(ROOT / path):
                reads, writes = start_paths(argv)
                for f in reads:
                    assert (ROOT / f).is_file() or os.path.normpath(f) in made, (
                        f"{path}: `{shlex.join(argv)}` reads {f}, which is neither in the repository nor written "
                        "by an earlier command")
                made.update(os.path.normpath(w) for w in writes)
                if "--config" in argv:
                    run.add(argv[argv.index("--config") + 1])
    assert run >= set(CONFIGS + TEST_CONFIGS) - {"configs/smoke.yaml"}, sorted(set(CONFIGS + TEST_CONFIGS) - run)


def test_a_start_file_outside_the_repository_is_caught(tmp_path):
    bad = tmp_path / "link.yaml"
    bad.write_text("# python train.py --config LINK --run-dir runs/x\nbase: " + str(ROOT / "configs/smoke.yaml")
                   + "\npretrain:\n  init: runs/elsewhere/latest.pt\n", encoding="utf-8")
    (argv,) = header_commands(bad)
    argv[argv.index("LINK")] = str(bad)
    reads, writes = start_paths(argv)
    assert reads == ["runs/elsewhere/latest.pt"] and writes == ["runs/x/latest.pt"]
