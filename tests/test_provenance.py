"""Every .pt the trainer writes says how it was made (training/provenance.py), and `evaluate.py --info` prints it."""
from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest
import torch
import yaml

from agents.checkpoint import load_checkpoint, sha256_file
from evaluation import cli as eval_cli
from training import cli

ROOT = Path(__file__).resolve().parents[1]
SMOKE = "configs/smoke.yaml"
TINY = ["env.num_games=8", "env.rollout_steps=80", "ppo.minibatch_size=256", "pretrain.decisions=0",
        "model.hidden=[16]", "budget.iterations=1", "budget.minutes=null", "eval.interval=0",
        "rollout.backend=local", "selfplay.snapshot_interval=1"]


def _train(run_dir: str, *sets: str, config: str = SMOKE) -> dict:
    args = ["--config", config, "--run-dir", run_dir, "--no-progress"]
    assert cli.main(args + [a for s in (*TINY, *sets) for a in ("--set", s)]) == 0
    return load_checkpoint(os.path.join(run_dir, "latest.pt"))  # weights_only: provenance is plain data


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """A run from a config with a base, one from its product, the first resumed, an export and an average."""
    tmp = tmp_path_factory.mktemp("prov")
    child = tmp / "child.yaml"
    child.write_text(f"base: {ROOT / SMOKE}\nenv:\n  seed: 7\n", encoding="utf-8")
    a = _train(str(tmp / "a"), config=str(child))
    a_sha = sha256_file(str(tmp / "a" / "latest.pt"))
    b = _train(str(tmp / "b"), f"pretrain.init={tmp / 'a' / 'latest.pt'}", "env.seed=5")
    assert cli.main(["--resume", str(tmp / "a"), "--no-progress", "--set", "budget.iterations=2"]) == 0
    resumed = load_checkpoint(str(tmp / "a" / "latest.pt"))
    assert cli.main(["--export", str(tmp / "b" / "latest.pt"), str(tmp / "exp.pt")]) == 0
    assert cli.main(["--average", str(tmp / "avg.pt"), str(tmp / "a" / "latest.pt"), str(tmp / "b" / "latest.pt")]) == 0
    return {"tmp": tmp, "child": child, "a": a, "a_sha": a_sha, "b": b, "resumed": resumed}


def test_a_run_records_its_config_file_and_bases_seed_code_and_overrides(runs):
    p = runs["a"]["provenance"]
    assert p["made_by"] == "train" and p["seed"] == 7 and p["parents"] == [] and p["resumed"] == []
    src = p["config_file"]
    assert src["path"] == str(runs["child"]) and src["sha256"] == sha256_file(str(runs["child"]))
    assert src["bases"] == [{"path": str(ROOT / SMOKE), "sha256": sha256_file(str(ROOT / SMOKE))}]
    assert src["overrides"] == TINY
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True).stdout
    code = p["code"]
    assert code["git_commit"] == head.strip() and isinstance(code["git_dirty"], bool)
    assert code["package_version"] and code["torch"] == str(torch.__version__)


def test_a_run_from_another_file_records_that_file_s_hash(runs):
    p = runs["b"]["provenance"]
    assert p["seed"] == 5
    assert p["parents"] == [{"role": "pretrain.init", "path": str(runs["tmp"] / "a" / "latest.pt"),
                             "sha256": runs["a_sha"], "provenance": runs["a"]["provenance"]}]


def test_a_league_member_file_is_a_parent_too(tmp_path):
    spec = "checkpoints/default.pt"
    p = _train(str(tmp_path / "r"), f"selfplay.weights={{current: 0.5, {spec}: 0.5}}", "model.hidden=[256, 256]")
    assert p["provenance"]["parents"] == [{"role": "selfplay.weights", "path": spec,
                                           "sha256": sha256_file(spec), "provenance": None}]  # (from before it)


def test_a_resumed_run_keeps_its_record_and_adds_the_file_it_continued(runs):
    p = runs["resumed"]["provenance"]
    assert p["config_file"] == runs["a"]["provenance"]["config_file"] and p["seed"] == 7
    (step,) = p["resumed"]
    assert step["from_sha256"] == runs["a_sha"] and step["overrides"] == ["budget.iterations=2"]


def test_export_and_average_record_their_sources_with_the_sources_own_records(runs):
    tmp = runs["tmp"]
    exp = load_checkpoint(str(tmp / "exp.pt"))["provenance"]
    (parent,) = exp["parents"]
    assert exp["made_by"] == "export" and parent["path"] == "b/latest.pt"
    assert parent["sha256"] == sha256_file(str(tmp / "b" / "latest.pt"))
    assert parent["provenance"] == runs["b"]["provenance"]
    avg = load_checkpoint(str(tmp / "avg.pt"))["provenance"]
    assert avg["made_by"] == "average" and [q["path"] for q in avg["parents"]] == ["a/latest.pt", "b/latest.pt"]
    assert avg["parents"][0]["provenance"]["resumed"] and avg["parents"][1]["provenance"]["seed"] == 5


def _info(capsys, *argv) -> tuple[int, str, str]:
    code = eval_cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_info_prints_a_new_file_s_provenance(runs, capsys):
    code, out, err = _info(capsys, "--info", str(runs["tmp"] / "exp.pt"))
    info = yaml.safe_load(out)
    assert code == 0 and not err
    assert info["sha256"] == sha256_file(str(runs["tmp"] / "exp.pt")) and info["kind"].startswith("play-only")
    assert info["provenance"]["parents"][0]["provenance"]["seed"] == 5
    assert info["manifest"].startswith("not a shipped file") and info["config"]["env"]["seed"] == 5


def test_info_on_a_shipped_file_without_provenance_shows_what_is_known_and_its_manifest_entry(capsys):
    code, out, _ = _info(capsys, "--info", "checkpoints/trump_by_card.pt")
    info = yaml.safe_load(out)
    assert code == 0 and info["provenance"]["recorded"].startswith("none recorded")
    assert info["provenance"]["known_from_the_file"]["averaged_from"] == ["trump_by_card8/latest.pt",
                                                                          "trump_by_card8b/latest.pt"]
    assert info["manifest"]["trump_by_card.pt"]["sha256"] == info["sha256"] == sha256_file(
        "checkpoints/trump_by_card.pt")


def test_info_on_the_recipe_made_shipped_file_traces_it_to_its_config_and_sessions(capsys):
    code, out, _ = _info(capsys, "--info", "checkpoints/classic.pt")
    info = yaml.safe_load(out)
    run = info["provenance"]["parents"][0]["provenance"]  # exported from the run's latest.pt
    assert code == 0 and info["provenance"]["made_by"] == "export" and run["made_by"] == "train"
    assert run["config_file"]["path"] == "configs/classic.yaml" and run["seed"] == 0 and run["parents"] == []
    assert len(run["resumed"]) >= 1 and info["counters"]["decisions"] == info["manifest"]["classic.pt"]["decisions"]
    assert info["manifest"]["classic.pt"]["sha256"] == info["sha256"] == sha256_file("checkpoints/classic.pt")


class _Boom:
    def __reduce__(self):
        return (os.system, ("echo pwned",))


@pytest.mark.parametrize("content", [b"not a checkpoint\n", pickle.dumps(_Boom()), b""])
def test_info_refuses_a_bad_or_hostile_file_in_one_line(tmp_path, capfd, content):
    bad = tmp_path / "bad.pt"
    bad.write_bytes(content)
    code = eval_cli.main(["--info", str(bad)])
    out, err = capfd.readouterr()  # (file descriptors: os.system's echo would write there)
    assert code == 2 and out == "" and "pwned" not in err
    assert len(err.strip().splitlines()) == 1 and err.startswith(f"evaluate.py: error: --info: {bad}: ")


def test_info_refuses_a_crafted_file_nested_too_deeply_in_one_line(tmp_path, capsys):
    data = load_checkpoint("checkpoints/classic.pt")
    deep: list = []
    for _ in range(5000):
        deep = [deep]
    path = tmp_path / "deep.pt"
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(50_000)  # torch.save recurses too
    try:
        torch.save({**data, "provenance": deep}, path)
    finally:
        sys.setrecursionlimit(limit)
    code, out, err = _info(capsys, "--info", str(path))
    assert code == 2 and out == "" and len(err.splitlines()) == 1
    assert err.startswith(f"evaluate.py: error: --info: {path}: its records are nested")


def test_info_takes_no_agents(capsys):
    with pytest.raises(SystemExit) as e:
        eval_cli.main(["--info", "checkpoints/classic.pt", "rule"])
    assert e.value.code == 2 and "give no agents" in capsys.readouterr().err
