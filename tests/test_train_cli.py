"""train.py's command-line errors before any training: --resume without a checkpoint, --set keys and values,
and agents the run would seat under other rules. Each is one stderr line and exit 2."""
from __future__ import annotations

from pathlib import Path

import pytest

from training import cli as train
from training.config import ConfigError, dump_config, load_config

ROOT = Path(__file__).resolve().parent.parent
SMOKE = str(ROOT / "configs" / "smoke.yaml")
SHIPPED = str(ROOT / "checkpoints" / "default.pt")


@pytest.fixture
def no_trainer(monkeypatch):
    """Every case here must fail before a Trainer is built."""
    monkeypatch.setattr(train, "Trainer", lambda *a, **k: pytest.fail("the Trainer was built"))


def _one_error_line(capsys, argv) -> str:
    assert train.main(argv) == 2
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("train.py: error: ") and "Traceback" not in err, err
    return lines[0][len("train.py: error: "):]


def test_resume_of_a_run_killed_before_its_first_checkpoint_says_how_to_restart(tmp_path, capsys, no_trainer):
    run = tmp_path / "r"
    run.mkdir()
    (run / "config.yaml").write_text(dump_config(load_config(SMOKE)), encoding="utf-8")
    message = _one_error_line(capsys, ["--resume", str(run)])
    assert message == (f"--resume {run}: the run had not reached its first checkpoint (no latest.pt), so there is "
                       f"nothing to resume; start it again with python train.py --config {run / 'config.yaml'} "
                       f"--run-dir {run}")


def test_the_restart_command_reads_the_saved_config_back(tmp_path):
    """The config.yaml a run writes is what the restart command gives --config: it must load as the same config."""
    cfg = load_config(SMOKE, ["ppo.lr=1e-4", "rules=syrian41"])
    again = tmp_path / "config.yaml"
    again.write_text(dump_config(cfg), encoding="utf-8")
    assert load_config(str(again)).to_dict() == cfg.to_dict()


def test_resume_of_a_missing_or_foreign_directory_or_a_file(tmp_path, capsys, no_trainer):
    missing = tmp_path / "nosuch"
    assert _one_error_line(capsys, ["--resume", str(missing)]) == (
        f"--resume {missing}: no such run directory; start a run there with python train.py --config FILE "
        f"--run-dir {missing}")
    assert "not a run directory of train.py (no latest.pt, no config.yaml)" in _one_error_line(
        capsys, ["--resume", str(tmp_path)])
    assert "a play-only checkpoint" in _one_error_line(capsys, ["--resume", SHIPPED])


@pytest.mark.parametrize("item, message", [
    ("foo.bar=1", "--set foo.bar: unknown key foo; allowed in the top level: ['rules', 'env',"),
    ("ppo.learning_rate=1", "--set ppo.learning_rate: unknown key ppo.learning_rate; allowed in ppo: ['lr',"),
    ("ppo.lr.x=1", "--set ppo.lr.x: ppo.lr is a value, not a section"),
    ("rules.colour=red", "--set rules.colour: unknown key rules.colour; allowed in rules: ['preset', "),
    ("ppo.lr=[1", "--set 'ppo.lr=[1': the value '[1' is not valid YAML: expected ',' or ']', but got "
                  "'<stream end>' at line 1, column 3 (while parsing a flow sequence)"),
    ("env.seed={a: 1", "--set 'env.seed={a: 1': the value '{a: 1' is not valid YAML: "),
])
def test_set_errors_name_the_flag_in_one_line(tmp_path, capsys, no_trainer, item, message):
    got = _one_error_line(capsys, ["--config", SMOKE, "--run-dir", str(tmp_path / "r"), "--set", item])
    assert got.startswith(message), got
    assert SMOKE not in got  # the config file is not to blame


def test_resume_names_an_unknown_set_key_as_unknown(tmp_path):
    run = tmp_path / "r"
    run.mkdir()
    (run / "latest.pt").write_bytes(b"")  # never read: the --set key is checked first
    with pytest.raises(ConfigError, match=r"--set foo\.bar: unknown key foo; allowed in the top level"):
        train.setup(train.parse_args(["--resume", str(run), "--set", "foo.bar=1"]))


def test_set_keys_that_exist_are_accepted():
    cfg = load_config(SMOKE, ["rules.target_score=41", "selfplay.weights={current: 1.0}", "budget.minutes=null"])
    assert cfg.make_rules().target_score == 41 and cfg.selfplay.weights == {"current": 1.0}


def test_invalid_yaml_in_the_config_file_is_one_line(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("ppo:\n  lr: [1\n", encoding="utf-8")
    with pytest.raises(ConfigError) as e:
        load_config(str(bad))
    assert len(str(e.value).splitlines()) == 1 and str(e.value).startswith(f"{bad}: not valid YAML: ")


@pytest.mark.parametrize("item", ["selfplay.weights={current: 0.5, " + SHIPPED + ": 0.5}",
                                  "learn.other=" + SHIPPED, "eval.opponents=[rule, ppo]",
                                  "pretrain.teacher=" + SHIPPED,
                                  "stages=[{decisions: 10, selfplay: {weights: {'" + SHIPPED + "': 1.0}}}]"])
def test_a_run_refuses_agents_made_for_other_rules_before_training(tmp_path, capsys, no_trainer, item, unshipped_rules):
    got = _one_error_line(capsys, ["--config", SMOKE, "--run-dir", str(tmp_path / "r"),
                                   "--set", f"rules={unshipped_rules}",
                                   "--set", "learn.phases=[play]", "--set", item])
    assert "trained for rules classic, but the game's rules are custom" in got or \
        "no shipped agent is trained for rules custom" in got


def test_an_override_in_the_pool_is_one_warning_line_however_often_it_is_loaded(tmp_path, capsys, monkeypatch):
    import agents

    class PoolOnlyTrainer:
        """Seats the pool agents as the trainer does (for the run's rules), twice, and trains nothing."""

        def __init__(self, cfg, run_dir, resume=None, progress=False, **provenance):
            self.run_dir = run_dir
            for _ in range(2):
                for spec in cfg.selfplay.weights:
                    if spec not in ("current", "snapshots"):
                        agents.load(spec, rules=cfg.make_rules())

        def run(self):
            return {"counters": {"iteration": 0, "decisions": 0, "seconds": 0.0}, "last_eval": {}}

    monkeypatch.setattr(train, "Trainer", PoolOnlyTrainer)
    spec = SHIPPED + "?rules=any"
    assert train.main(["--config", SMOKE, "--run-dir", str(tmp_path / "r"), "--set", "rules=syrian41",
                       "--set", f"selfplay.weights={{current: 0.5, '{spec}': 0.5}}"]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"train.py: warning: agent '{spec}' was trained for rules classic")


def test_resume_of_a_run_on_an_older_observation_layout_says_to_start_from_its_weights(tmp_path, capsys, no_trainer):
    """A layout-1 run's network loads (upgraded) to play or to start a run from, but its optimizer and snapshots
    have the old layout's shapes: --resume refuses in one line and says what to do instead."""
    import torch

    run = tmp_path / "old"
    run.mkdir()
    data = torch.load(SHIPPED, weights_only=True)  # written on layout 1
    assert data["obs_version"] == 1
    torch.save({**data, "optimizer": {}, "pool": {}, "rng": {}}, run / "latest.pt")
    assert _one_error_line(capsys, ["--resume", str(run)]) == (
        f"--resume {run}: the run was trained on observation layout 1, this code's is 2, so it cannot be continued; "
        f"start a new run from its weights (pretrain.init: {run / 'latest.pt'})")


def test_a_trainer_given_a_layout_1_run_to_resume_refuses_it_before_building_anything(tmp_path):
    """The same refusal for library code that builds the Trainer itself (no CLI in between)."""
    import torch

    from training import Trainer

    data = torch.load(SHIPPED, weights_only=True)
    run = tmp_path / "old"
    with pytest.raises(ConfigError) as e:
        Trainer(load_config(SMOKE), str(run), resume={**data, "optimizer": {}, "pool": {}, "rng": {}}, progress=False)
    assert str(e.value) == (f"resume {run}: the run was trained on observation layout 1, this code's is 2, so it "
                            f"cannot be continued; start a new run from its weights (pretrain.init: "
                            f"{run / 'latest.pt'})")
    assert not run.exists()


def test_a_config_on_a_base_changes_only_the_keys_it_names(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "base.yaml").write_text(f"base: {SMOKE}\nppo:\n  lr: 2.0e-4\nselfplay:\n  weights: {{rule: 1.0}}\n"
                                        "  max_snapshots: 3\n")
    (tmp_path / "sub" / "child.yaml").write_text("base: ../base.yaml\nenv:\n  seed: 9\n"
                                                 "selfplay:\n  weights: {current: 1.0}\n")
    smoke, child = load_config(SMOKE), load_config(str(tmp_path / "sub" / "child.yaml"))
    assert child.env.seed == 9 and child.env.num_games == smoke.env.num_games  # a section changed key by key
    assert child.ppo.lr == 2.0e-4 and child.ppo.epochs == smoke.ppo.epochs  # through the chain of bases
    assert child.selfplay.weights == {"current": 1.0} and child.selfplay.max_snapshots == 3  # a value replaced whole
    expected = smoke.to_dict()
    expected["env"]["seed"], expected["ppo"]["lr"] = 9, 2.0e-4
    expected["selfplay"].update(weights={"current": 1.0}, max_snapshots=3)
    assert child.to_dict() == expected
    assert "base" not in dump_config(child)  # a run's config.yaml is the resolved whole


@pytest.mark.parametrize("text, words", [
    ("base: missing.yaml\n", "base: no such config file"),
    ("base: [a.yaml]\n", "base: expected the path of another config file"),
    ("base: loop.yaml\n", "the chain of bases loops"),
    ("base: good.yaml\nppo:\n  lrr: 1\n", "(on "),
])
def test_a_bad_base_is_one_line(tmp_path, capsys, no_trainer, text, words):
    (tmp_path / "good.yaml").write_text(f"base: {SMOKE}\n")
    (tmp_path / "loop.yaml").write_text("base: loop.yaml\n")
    (tmp_path / "c.yaml").write_text(text)
    message = _one_error_line(capsys, ["--config", str(tmp_path / "c.yaml"), "--no-progress"])
    assert words in message and str(tmp_path) in message
    if words == "(on ":  # an unknown key is named, and which files it may be in
        assert "ppo.lrr" in message and "good.yaml" in message
