"""An agent made for other rules is refused wherever it is seated (agents.load, the evaluator and its workers,
play.py), or plays with one warning when its spec ends in ?rules=any; 'ppo' and play.py's default are the
shipped agent trained for the rules in play."""
from __future__ import annotations

import dataclasses
import os
import shutil
import sys
import warnings
from pathlib import Path

import pexpect
import pytest

import agents
import evaluation
from agents import shipped
from agents.checkpoint import load_checkpoint
from evaluation import cli as evaluate
from evaluation import match
from tarneeb_env import make_rules
from training.checkpoints import save_checkpoint

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = str(ROOT / "checkpoints" / "default.pt")  # trained for classic
SYRIAN, CLASSIC = make_rules("syrian41"), make_rules("classic")
REFUSED = r"agent '.*default\.pt' was trained for rules classic, but the game's rules are syrian41 \(they differ " \
          r"in first_lead, auction, trump\); pick an agent trained for these rules \(or 'rule'\), or append " \
          r"\?rules=any to the spec to play it anyway"


def _retagged(path: Path, rules) -> Path:
    """The shipped network recorded as trained for ``rules`` (only the record matters to the check)."""
    data = load_checkpoint(SHIPPED)
    save_checkpoint(str(path), {**data, "rules": make_rules(rules).to_dict()})
    return path


def test_a_checkpoint_for_other_rules_is_refused():
    with pytest.raises(agents.RulesMismatchError, match=REFUSED):
        agents.load(SHIPPED, rules="syrian41")


def test_the_override_plays_it_with_one_warning():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        agent = agents.load(SHIPPED + "?rules=any", rules=SYRIAN)
    assert [w.category for w in caught] == [agents.RulesOverrideWarning]
    assert "it plays anyway (?rules=any)" in str(caught[0].message)
    assert agent.rules == CLASSIC  # what it was trained for, whatever it plays


def test_a_checkpoint_for_its_own_rules_loads_without_a_word():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert agents.load(SHIPPED, rules=CLASSIC).rules == CLASSIC
        agents.load(SHIPPED, rules={"preset": "classic", "target_score": 41})  # the target is not compared
        agents.load(SHIPPED + "?rules=any", rules="classic")  # nothing to override: no warning
        assert agents.load("rule", rules=SYRIAN).rules is None  # baselines play any rules


def test_ppo_is_the_shipped_agent_for_the_rules(tmp_path, monkeypatch, unshipped_rules):
    assert agents.load("ppo", rules="classic").name == "classic.pt"
    assert agents.resolve("ppo", CLASSIC) == (str(ROOT / "checkpoints" / "classic.pt"), False)
    assert agents.load("ppo", rules="hearts41").name == "hearts41.pt"
    assert agents.load("ppo", rules="trump_by_card").name == "trump_by_card.pt"
    with pytest.raises(agents.AgentSpecError, match="cannot load agent 'ppo': no shipped agent is trained for "
                                                    "rules custom"):
        agents.load("ppo", rules=unshipped_rules)
    shutil.copy(SHIPPED, tmp_path / "default.pt")
    with pytest.raises(agents.AgentSpecError, match="no shipped agent is trained for rules syrian41"):
        monkeypatch.setattr(shipped, "SHIPPED_DIR", tmp_path)
        agents.load("ppo", rules="syrian41")
    _retagged(tmp_path / "syrian41.pt", "syrian41")
    monkeypatch.setattr(shipped, "SHIPPED_DIR", tmp_path)
    assert agents.load("ppo", rules="syrian41").name == "syrian41.pt"
    assert agents.load("ppo", rules="classic").name == "default.pt"


def test_shipped_files_are_matched_by_their_recorded_rules_not_their_names(tmp_path, monkeypatch):
    shutil.copy(SHIPPED, tmp_path / "syrian41.pt")  # classic inside, whatever the name says
    monkeypatch.setattr(shipped, "SHIPPED_DIR", tmp_path)
    assert shipped.shipped_checkpoint("syrian41") is None
    assert shipped.shipped_checkpoint("classic") == str(tmp_path / "syrian41.pt")


def test_the_evaluator_refuses_a_spec_for_other_rules():
    with pytest.raises(evaluation.EvaluationInputError, match=REFUSED):
        evaluation.duplicate_match(SHIPPED, "rule", deals=2, rules="syrian41")


class SyrianAgent(agents.RuleAgent):
    rules = SYRIAN


def test_the_evaluator_refuses_an_agent_object_for_other_rules():
    with pytest.raises(evaluation.EvaluationInputError, match=r"agent 'rule' was trained for rules syrian41, but "
                                                              r"the game's rules are classic"):
        evaluation.duplicate_match(SyrianAgent(), "random", deals=2, rules="classic")
    evaluation.duplicate_match(SyrianAgent(), "random", deals=2, rules="syrian41")  # its own rules: plays


def test_the_evaluator_workers_check_the_rules_and_do_not_repeat_the_warning(monkeypatch):
    monkeypatch.setattr(match, "_WORKER", None)
    with warnings.catch_warnings(record=True) as caught:  # the worker's warning filter stays in here
        warnings.simplefilter("always")
        with pytest.raises(agents.RulesMismatchError, match=REFUSED):
            match._init_worker([SHIPPED, "rule"], ["a", "b"], match.MatchSettings(rules=SYRIAN), [], 1)
        match._init_worker([SHIPPED + "?rules=any", "rule"], ["a", "b"], match.MatchSettings(rules=SYRIAN), [], 1)
    assert caught == [] and match._WORKER.agents[0].rules == CLASSIC


def test_the_trainers_pool_call_loads_for_the_runs_rules():
    """The opponent pool calls agents.load(spec, rules=rules) with the run's Rules."""
    assert agents.load("ppo", rules=CLASSIC, seed=3).rules == CLASSIC
    with pytest.raises(agents.RulesMismatchError):
        agents.load(SHIPPED, rules=dataclasses.replace(CLASSIC, kaboot="plain"), seed=3)


def test_evaluate_cli_refuses_in_one_line_and_warns_once_on_override_whatever_the_workers(capfd):
    assert evaluate.main([SHIPPED, "rule", "--deals", "2", "--rules", "syrian41"]) == 2
    err = capfd.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("evaluate.py: error: ") and "was trained for rules classic" in err[0]
    assert 0 < err[0].index("give --rules classic") < err[0].index("?rules=any")  # the fix first, the override after
    assert evaluate.main([SHIPPED + "?rules=any", "rule", "--deals", "4", "--games", "1", "--rules", "syrian41",
                          "--workers", "2"]) == 0  # five units: run in two workers
    err = [line for line in capfd.readouterr().err.splitlines() if "arning" in line]  # workers write to fd 2
    assert len(err) == 1 and err[0].startswith("evaluate.py: warning: agent ") and "plays anyway" in err[0]


ENV = {"COLUMNS": "200", "LINES": "60", "TERM": "dumb", "PYTHONIOENCODING": "utf-8", "LANG": "C.UTF-8"}


def _play(*args: str) -> tuple[str, int]:
    """play.py's screen up to the first prompt, where the player quits; and its exit status."""
    return pexpect.run(f"{sys.executable} play.py --seed 1 --delay 0 " + " ".join(args), cwd=str(ROOT),
                       env={**os.environ, **ENV}, encoding="utf-8", withexitstatus=True,
                       events={r"(Your play|Your bid|Name trump) \[legal": "quit\n"}, timeout=60)


def test_play_seats_the_agent_trained_for_the_rules_else_rule_and_says_so(unshipped_rules):
    text, status = _play("--rules", "classic")
    assert status == 0 and "Partner: classic · opponents: classic, classic" in text
    assert "No shipped agent" not in text
    text, status = _play("--rules", "hearts41")
    assert status == 0 and "Partner: hearts41 · opponents: hearts41, hearts41" in text
    text, status = _play("--rules", unshipped_rules)
    assert status == 0 and "No shipped agent is trained for rules unshipped.yaml; playing 'rule' instead." in text
    assert "Partner: rule · opponents: rule, rule" in text


def test_play_refuses_a_given_agent_for_other_rules_and_warns_on_override():
    text, status = _play("--rules", "syrian41", "--partner", SHIPPED)
    assert status == 2 and "play.py: error: --partner: agent " in text and "Traceback" not in text
    text, status = _play("--rules", "syrian41", "--partner", SHIPPED + "?rules=any", "--opponents", "rule")
    assert status == 0 and "Warning: agent" in text and "plays anyway" in text.replace("\n", " ")
    assert "Partner: default" in text
