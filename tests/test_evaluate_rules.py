"""evaluate.py without --rules plays under the rules the first checkpoint records, and says so in the report's
header; a checkpoint trained for other rules than --rules is refused naming --rules PRESET first; the round robin's
table folds long names and gives game win rates their intervals."""
from __future__ import annotations

import json
from pathlib import Path

from evaluation import cli

ROOT = Path(__file__).resolve().parent.parent
SYRIAN = str(ROOT / "checkpoints" / "syrian41.pt")
CLASSIC = str(ROOT / "checkpoints" / "classic.pt")


def _words(text: str) -> str:
    return " ".join(text.split())


def test_without_rules_the_first_checkpoint_s_rules_are_played_and_named(tmp_path, capsys):
    out = tmp_path / "r.json"
    assert cli.main([SYRIAN, "rule", "--deals", "4", "--out", str(out)]) == 0
    header = _words(capsys.readouterr().out)
    assert f"rules syrian41 (from {SYRIAN}; --rules to choose)" in _words(header.replace("\n", " "))
    assert json.loads(out.read_text())["rules_name"] == "syrian41"


def test_without_a_checkpoint_the_rules_are_classic(tmp_path, capsys):
    out = tmp_path / "r.json"
    assert cli.main(["random", "rule", "--deals", "2", "--out", str(out)]) == 0
    assert "rules classic, seed 0 (outside the selection and heldout deal sets)" in _words(capsys.readouterr().out)
    assert json.loads(out.read_text())["rules_name"] == "classic"


def test_rules_given_are_played_without_a_note(tmp_path, capsys):
    assert cli.main(["random", "rule", "--deals", "2", "--rules", "hearts41"]) == 0
    text = _words(capsys.readouterr().out)
    assert "rules hearts41, seed 0" in text and "--rules to choose" not in text


def test_a_checkpoint_of_other_rules_is_refused_naming_rules_first(capsys):
    assert cli.main([SYRIAN, "rule", "--deals", "2", "--rules", "classic"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (f"evaluate.py: error: {SYRIAN} was trained for rules syrian41, but the game is played under "
                   "--rules classic (they differ in first_lead, auction, trump): give --rules syrian41 to play under "
                   "its rules, or append ?rules=any to the spec to play it under classic anyway")


def test_a_second_checkpoint_of_other_rules_is_refused_naming_where_the_rules_came_from(capsys):
    assert cli.main([SYRIAN, CLASSIC, "--deals", "2"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"evaluate.py: error: {CLASSIC} was trained for rules classic, but the game is played "
                          f"under rules syrian41 (from the first checkpoint) ")
    assert "give --rules classic to play under its rules" in err


def test_a_misspelled_preset_gets_the_closest_one(capsys):
    assert cli.main(["random", "rule", "--rules", "syrain41"]) == 2
    err = capsys.readouterr().err
    assert "--rules: unknown rules preset 'syrain41' (did you mean 'syrian41'?)" in err


def test_round_robin_columns_fold_long_names_and_games_have_wilson_intervals(tmp_path):
    """At 80 columns three long names fit only folded: every character of each stays in the table (rich would cut
    them with an ellipsis), and each game percentage has its Wilson interval."""
    import io

    from rich.console import Console

    import evaluation
    from evaluation.report import _print_round_robin
    from evaluation.stats import wilson_ci95

    long_names = [f"runs/a_rather_long_run_name_{k}/latest.pt" for k in range(2)]

    import agents

    entries = []
    for name in long_names:
        a = agents.load("random", seed=1)
        a.name = name
        entries.append(a)
    entries.append("rule")
    rr = evaluation.round_robin(entries, deals=4, seed=0, games=2)
    out = io.StringIO()
    _print_round_robin(Console(file=out, width=80), rr)
    text = out.getvalue()
    assert "…" not in text
    for name in long_names:  # folded: its start and its end both show
        assert name[:15] in text and name[-12:] in text
    wide = io.StringIO()
    _print_round_robin(Console(file=wide, width=250), rr)
    m = rr.pairs[0]
    lo, hi = wilson_ci95(m.a_won, m.games_played)
    assert f"{100.0 * m.a_won / m.games_played:.0f}% [{100 * lo:.0f}, {100 * hi:.0f}] of games" in wide.getvalue()
    assert "games won: Wilson score interval, 95%" in " ".join(text.split())
