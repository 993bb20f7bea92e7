"""Every file that cannot be used as a checkpoint gets one line (what it is, why, what to do), in the library
and in each command line (exit 2, no traceback, never torch's advice to load with weights_only=False)."""
from __future__ import annotations

import os
import pickle
import random
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import torch

import agents
from agents.checkpoint import CheckpointError, load_checkpoint
from evaluation import cli as evaluate
from playing import cli as play
from training import cli as train
from training.checkpoints import require_training_checkpoint, save_checkpoint

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ROOT / "checkpoints" / "default.pt"


class Payload:
    """Unpickling this runs ``open(path, 'w')``: a file that appears means the loader executed code."""

    def __init__(self, path: str):
        self.path = path

    def __reduce__(self):
        return (open, (self.path, "w"))


def _text(d: Path) -> Path:
    p = d / "notes.pt"
    p.write_text("these are my notes, not a network\n", encoding="utf-8")
    return p


def _empty(d: Path) -> Path:
    p = d / "empty.pt"
    p.write_bytes(b"")
    return p


def _truncated(d: Path) -> Path:
    p = d / "truncated.pt"
    p.write_bytes(SHIPPED.read_bytes()[: SHIPPED.stat().st_size // 2])
    return p


def _random_bytes(d: Path) -> Path:
    p = d / "random.pt"
    data = bytes(random.Random(7).randrange(256) for _ in range(4096))
    assert data[:1] not in (b"\x80", b"P")  # neither a pickle nor a zip by its first byte
    p.write_bytes(data)
    return p


def _zip(d: Path) -> Path:
    p = d / "archive.pt"
    with zipfile.ZipFile(p, "w") as z:
        z.writestr("readme.txt", "a zip, but not a torch file")
    return p


def _torch_pickle_with_code(d: Path) -> Path:
    p = d / "hostile.pt"
    torch.save({"format": "tarneeb-rl-checkpoint", "x": Payload(str(d / "PWNED"))}, p)
    return p


def _bare_pickle_with_code(d: Path) -> Path:
    p = d / "hostile_pickle.pt"
    with open(p, "wb") as f:
        pickle.dump(Payload(str(d / "PWNED")), f)
    return p


def _no_marker(d: Path) -> Path:
    p = d / "weights.pt"
    torch.save({"weights": torch.zeros(3)}, p)
    return p


def _old_layout(d: Path) -> Path:
    p = d / "old_layout.pt"
    torch.save({"format": "tarneeb-rl-checkpoint", "format_version": 1, "obs_version": 0}, p)
    return p


def _other_format_version(d: Path) -> Path:
    p = d / "future.pt"
    torch.save({**load_checkpoint(str(SHIPPED)), "format_version": 99}, p)
    return p


def _missing_key(d: Path) -> Path:
    p = d / "no_model.pt"
    data = load_checkpoint(str(SHIPPED))
    del data["model"]
    save_checkpoint(str(p), data)
    return p


def _damaged_weights(d: Path) -> Path:
    p = d / "wrong_shapes.pt"
    data = load_checkpoint(str(SHIPPED))
    data["state_dict"] = {k: torch.zeros(1) for k in data["state_dict"]}
    save_checkpoint(str(p), data)
    return p


# (maker, words the one line must hold)
BAD_FILES = {
    "text": (_text, "not a torch file (it is text beginning 'these are my notes"),
    "empty": (_empty, "an empty file"),
    "truncated": (_truncated, "a damaged zip archive (truncated or corrupted"),
    "random bytes": (_random_bytes, "not a torch file (unrecognised binary data)"),
    "zip": (_zip, "a zip archive that is not a torch file"),
    "torch file with code": (_torch_pickle_with_code, "holding code or Python objects beyond tensors"),
    "pickle with code": (_bare_pickle_with_code, "a pickle holding code or Python objects beyond tensors"),
    "no marker": (_no_marker, "a torch file but not a tarneeb-rl checkpoint (no 'tarneeb-rl-checkpoint' marker)"),
    "other layout": (_old_layout, "observation layout version 0"),
    "other format version": (_other_format_version, "checkpoint format version 99, but this code reads version 1"),
    "missing key": (_missing_key, "a tarneeb-rl checkpoint without 'model'"),
    "damaged weights": (_damaged_weights, "a damaged tarneeb-rl checkpoint (its network cannot be rebuilt"),
}
CASES = pytest.mark.parametrize("case", list(BAD_FILES))


def _bad(tmp_path: Path, case: str) -> tuple[Path, str]:
    make, words = BAD_FILES[case]
    return make(tmp_path), words


def _check_line(text: str, path: Path, words: str) -> None:
    lines = text.strip().splitlines()
    assert len(lines) == 1, text
    assert str(path) in lines[0] and words in lines[0], text
    assert "Traceback" not in text and "weights_only" not in text


@CASES
def test_agents_load_gives_one_line_per_bad_file(tmp_path, case):
    path, words = _bad(tmp_path, case)
    with pytest.raises(CheckpointError) as e:
        agents.load(str(path), rules="classic")
    _check_line(str(e.value), path, words)
    assert not (tmp_path / "PWNED").exists()  # a pickle with code is refused without running it


@pytest.mark.parametrize("case", ["text", "truncated", "pickle with code", "other layout"])
def test_every_bad_file_message_says_what_to_do(tmp_path, case):
    path, _ = _bad(tmp_path, case)
    with pytest.raises(CheckpointError) as e:
        load_checkpoint(str(path))
    assert "use a .pt written by train.py" in str(e.value) or "use the tarneeb-rl version" in str(e.value)


@CASES
def test_evaluate_cli_exits_2_with_one_line(tmp_path, capsys, case):
    path, words = _bad(tmp_path, case)
    assert evaluate.main([str(path), "rule", "--deals", "2"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("evaluate.py: error: ")
    _check_line(err, path, words)


@pytest.mark.parametrize("case", [c for c in BAD_FILES if c != "damaged weights"])  # export copies weights as is
def test_train_export_exits_2_with_one_line(tmp_path, capsys, case):
    path, words = _bad(tmp_path, case)
    assert train.main(["--export", str(path), str(tmp_path / "out.pt")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("train.py: error: ")
    _check_line(err, path, words)
    assert not (tmp_path / "out.pt").exists()


@CASES
def test_train_resume_exits_2_with_one_line(tmp_path, capsys, case):
    path, words = _bad(tmp_path, case)
    run = tmp_path / "run"
    run.mkdir()
    os.replace(path, run / "latest.pt")
    assert train.main(["--resume", str(run), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("train.py: error: ")
    if case == "damaged weights":  # readable, has every play key; but not a training checkpoint either
        words = "play-only checkpoint"
    _check_line(err, run / "latest.pt", words.replace(path.name, "latest.pt"))


@CASES
def test_play_cli_exits_2_with_one_line(tmp_path, capsys, case):
    path, words = _bad(tmp_path, case)
    assert play.main(["--partner", str(path), "--opponents", "rule", "--seed", "1", "--delay", "0"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("play.py: error: --partner: ")
    _check_line(err, path, words)


def test_resume_of_a_play_only_checkpoint_is_refused_before_the_trainer_is_built(tmp_path, capsys, monkeypatch):
    run = tmp_path / "run"
    run.mkdir()
    (run / "latest.pt").write_bytes(SHIPPED.read_bytes())  # the shipped file is an export
    monkeypatch.setattr(train, "Trainer", lambda *a, **k: pytest.fail("the Trainer was built"))
    assert train.main(["--resume", str(run), "--no-progress"]) == 2
    err = capsys.readouterr().err
    _check_line(err, run / "latest.pt", "a play-only checkpoint (written by train.py --export")
    assert "cannot be resumed" in err


def test_require_training_checkpoint_names_a_missing_training_key(tmp_path):
    data = {k: 0 for k in ("rules", "config", "learn", "model", "state_dict", "counters", "last_eval",
                           "optimizer", "pool")}
    with pytest.raises(CheckpointError, match=r"x\.pt: a tarneeb-rl checkpoint without 'rng', so it cannot be "
                                              r"used to resume training"):
        require_training_checkpoint(data, "x.pt")
    require_training_checkpoint({**data, "rng": 0}, "x.pt")  # complete: accepted


@pytest.mark.parametrize("script, args", [
    ("evaluate.py", ["{bad}", "rule", "--deals", "2"]),
    ("train.py", ["--export", "{bad}", "{out}"]),
    ("play.py", ["--partner", "{bad}", "--opponents", "rule", "--delay", "0"]),
])
def test_scripts_print_one_line_for_a_hostile_file(tmp_path, script, args):
    bad = _bare_pickle_with_code(tmp_path)
    argv = [a.format(bad=bad, out=tmp_path / "out.pt") for a in args]
    p = subprocess.run([sys.executable, str(ROOT / script), *argv], capture_output=True, text=True, cwd=ROOT,
                       timeout=120, stdin=subprocess.DEVNULL)
    assert p.returncode == 2, p.stderr
    _check_line(p.stderr, bad, "a pickle holding code")
    assert not (tmp_path / "PWNED").exists()
