"""Config errors point at the fix: each names the key it came from, a misspelled name (key, agent, preset, choice)
gets its closest allowed spellings, and a value given with --set is blamed on that --set, not on the file."""
from __future__ import annotations

from pathlib import Path

import pytest

from training import cli as train
from training.config import ConfigError, PPOConfig, load_config

ROOT = Path(__file__).resolve().parent.parent
SMOKE = str(ROOT / "configs" / "smoke.yaml")


@pytest.fixture
def no_trainer(monkeypatch):
    monkeypatch.setattr(train, "Trainer", lambda *a, **k: pytest.fail("the Trainer was built"))


def _error(capsys, sets) -> str:
    argv = ["--config", SMOKE, "--run-dir", "/nonexistent/r"] + [a for s in sets for a in ("--set", s)]
    assert train.main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("train.py: error: "), err
    return err[0][len("train.py: error: "):]


@pytest.mark.parametrize("item, message", [
    ("ppo.lr=-1", "--set ppo.lr=-1: ppo.lr: must be > 0, got -1.0"),
    ("env.seed=x", "--set env.seed=x: env.seed: expected an int, got 'x'"),
    ("selfplay.weights={curent: 1.0}",
     "--set selfplay.weights={curent: 1.0}: selfplay.weights: 'curent' is not 'current', 'snapshots', 'casual', "
     "'expert', 'random', 'rule', 'search', 'ppo', a .pt checkpoint or file.py:Name (did you mean 'current'?)"),
    ("selfplay.weights={curent:1.0}",
     "--set selfplay.weights={curent:1.0}: selfplay.weights: 'curent:1.0' has no value: YAML needs a space after "
     "the colon ({curent: 1.0}); and 'curent' is not 'current', 'snapshots', 'casual', 'expert', 'random', 'rule', "
     "'search', 'ppo', a .pt checkpoint or file.py:Name (did you mean 'current'?)"),
    ("pretrain.teacher=rul", "--set pretrain.teacher=rul: pretrain.teacher: 'rul' is not 'casual', 'expert', "
                             "'random', 'rule', 'search', 'ppo', a .pt checkpoint or file.py:Name (did you mean "
                             "'rule'?)"),
    ("learn.other=randon", "--set learn.other=randon: learn.other: 'randon' is not "),
    ("eval.opponents=[rule, rnd]", "--set eval.opponents=[rule, rnd]: eval.opponents[1]: 'rnd' is not "),
    ("rules=syrain41", "--set rules=syrain41: rules: unknown rules preset 'syrain41' (did you mean 'syrian41'?); "
                       "presets: ['classic', 'hearts41', 'syrian41', 'trump_by_card'] (or a .yaml file)"),
    ("rules.preset=classik", "--set rules.preset=classik: rules: rules.preset: unknown preset 'classik' (did you "
                             "mean 'classic'?)"),
    ("ppo.lr_schedule=linar", "--set ppo.lr_schedule=linar: ppo.lr_schedule: 'linar' is not one of ['constant', "
                              "'linear'] (did you mean 'linear'?)"),
    ("ppo.lrr=1", "--set ppo.lrr: unknown key ppo.lrr (did you mean 'lr'?); allowed in ppo: ['lr', "),
    ("selfplay.weigths={rule: 1}", "--set selfplay.weigths: unknown key selfplay.weigths (did you mean 'weights'?)"),
    ("pretrain.teacher=nosuch.pt", "--set pretrain.teacher=nosuch.pt: pretrain.teacher: cannot load agent "
                                   "'nosuch.pt': no such checkpoint file."),
    ("ppo.target_kl=x", "--set ppo.target_kl=x: ppo.target_kl: expected a number or null, got 'x'"),
    ("ppo.lr=.nan", "--set ppo.lr=.nan: ppo.lr: must be > 0, got nan"),
    ("device=null", "--set device=null: device: None is not one of ['auto', 'cpu', 'cuda']"),
    ("stages=[{decisions: 10, lrr: 1}]", "--set stages=[{decisions: 10, lrr: 1}]: unknown key stages[0].lrr (did you "
                                         "mean 'lr'?); allowed in stages[0]: ['decisions', 'lr', 'selfplay']"),
])
def test_a_set_error_names_the_set_the_key_and_the_closest_spelling(capsys, no_trainer, item, message):
    got = _error(capsys, [item])
    assert got.startswith(message), got
    assert SMOKE not in got


def test_the_set_blamed_is_the_one_that_set_the_key(capsys, no_trainer):
    got = _error(capsys, ["ppo.lr=1e-4", "ppo.clip=0", "env.seed=3"])
    assert got == "--set ppo.clip=0: ppo.clip: must be > 0, got 0.0"


@pytest.mark.parametrize("text, message", [
    ("ppo:\n  lr: -1\n", "ppo.lr: must be > 0, got -1.0"),
    ("ppo:\n  learning_rat: 1\n", "unknown key ppo.learning_rat; allowed in ppo:"),
    ("ppo:\n  lrr: 1\n", "unknown key ppo.lrr (did you mean 'lr'?); allowed in ppo:"),
    ("selfplay:\n  weights: {curent: 1.0}\n", "selfplay.weights: 'curent' is not 'current', "),
    ("pretrain:\n  teacher: rul\n", "pretrain.teacher: 'rul' is not "),
    ("eval:\n  opponents: [rule, randm]\n", "eval.opponents[1]: 'randm' is not "),
    ("stages:\n  - decisions: 10\n    selfplay: {weights: {snapshot: 1.0}}\n",
     "stages[0].selfplay.weights: 'snapshot' is not 'current', 'snapshots', "),
    ("rules: hearts14\n", "rules: unknown rules preset 'hearts14' (did you mean 'hearts41'?)"),
    ("optimiser: adam\n", "unknown key optimiser; allowed in the top level:"),
    ("budget:\n  minuts: 3\n", "unknown key budget.minuts (did you mean 'minutes'?)"),
    ("ppo:\n  1: 2\n", "unknown key ppo.1; allowed in ppo:"),  # a key YAML reads as an int is named as written
    ("ppo: 3\n", "ppo: expected a mapping, got 3"),
])
def test_a_file_error_names_the_file_and_the_key(tmp_path, text, message):
    path = tmp_path / "mine.yaml"
    path.write_text(f"base: {SMOKE}\n{text}", encoding="utf-8")
    with pytest.raises(ConfigError) as e:
        load_config(str(path))
    got = str(e.value)
    assert got.startswith(f"{path} (on {SMOKE}): {message}"), got


def test_a_file_error_is_not_blamed_on_a_set_of_another_key(capsys, no_trainer, tmp_path):
    path = tmp_path / "mine.yaml"
    path.write_text(f"base: {SMOKE}\nppo:\n  clip: -1\n", encoding="utf-8")
    assert train.main(["--config", str(path), "--run-dir", str(tmp_path / "r"), "--set", "ppo.lr=1e-4"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"train.py: error: {path} (on {SMOKE}): ppo.clip: must be > 0, got -1.0"


def test_a_section_with_every_key_left_out_keeps_its_defaults(tmp_path):
    path = tmp_path / "mine.yaml"
    path.write_text("budget:\n  iterations: 2\nppo:\n  # lr: 1.0e-4\n", encoding="utf-8")
    assert load_config(str(path)).ppo == PPOConfig()
