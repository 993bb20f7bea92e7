"""Named deal sets (choose on selection, report on held-out) and the margin intervals that say what they are."""
import glob
import json
import math
import os

import numpy as np
import pytest

from evaluation import duplicate_match
from evaluation.cli import main
from evaluation.deals import DEAL_SETS, HELDOUT, SELECTION, deal_set_of, deal_set_seed
from evaluation.stats import BOOTSTRAP_RESAMPLES, margin_ci95, summarize_margins
from training.config import ConfigError, EvalConfig, load_config

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONFIGS = sorted(glob.glob(os.path.join(ROOT, "configs", "*.yaml")))


def test_the_sets_are_the_documented_seed_ranges_and_do_not_overlap():
    assert list(SELECTION.seeds) == [1, 2, 3]
    assert HELDOUT.seeds[0] == 1_000_001 and len(HELDOUT.seeds) == 100
    assert not set(SELECTION.seeds) & set(HELDOUT.seeds)
    assert [deal_set_of(s) for s in (0, 1, 3, 4, 12345, 1_000_001, 1_000_100, 1_000_101)] == [
        None, "selection", "selection", None, None, "heldout", "heldout", None]


@pytest.mark.parametrize("path", CONFIGS, ids=os.path.basename)
def test_no_training_config_evaluates_or_trains_on_held_out_seeds(path):
    """The in-training evaluation (its matches and ladder) chooses snapshots and links, and training deals are
    seen by the learner: neither may come from the held-out range."""
    cfg = load_config(path)
    assert cfg.eval.seed not in HELDOUT.seeds, (path, cfg.eval.seed)
    assert cfg.env.seed not in HELDOUT.seeds, (path, cfg.env.seed)


def test_the_configs_are_found_and_the_default_evaluation_seed_is_not_held_out():
    assert len(CONFIGS) >= 5
    assert EvalConfig().seed not in HELDOUT.seeds


def test_a_run_refuses_to_evaluate_on_held_out_seeds():
    with pytest.raises(ConfigError, match="eval.seed: 1000050 is in the held-out deal set heldout"):
        load_config(os.path.join(ROOT, "configs", "smoke.yaml"), ["eval.seed=1000050"])


def test_a_deal_set_resolves_to_its_first_seed_or_a_seed_inside_it():
    assert deal_set_seed("heldout") == 1_000_001 and deal_set_seed("selection") == 1
    assert deal_set_seed("heldout", 1_000_007) == 1_000_007
    with pytest.raises(ValueError, match=r"seed 5 is not in deal set heldout \(seeds 1000001-1000100"):
        deal_set_seed("heldout", 5)
    with pytest.raises(ValueError, match="unknown deal set 'test'"):
        deal_set_seed("test")


def _cli_json(tmp_path, capsys, *args):
    out = tmp_path / "r.json"
    assert main(["rule", "random", "--deals", "4", "--out", str(out), *args]) == 0
    capsys.readouterr()
    return json.loads(out.read_text())


def test_cli_deal_set_plays_the_sets_seed_and_says_which_set(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "300")
    named = _cli_json(tmp_path, capsys, "--deal-set", "heldout")
    by_seed = _cli_json(tmp_path, capsys, "--seed", "1000001")
    assert named["seed"] == by_seed["seed"] == 1_000_001 and named["deal_set"] == by_seed["deal_set"] == "heldout"
    assert named["margin"]["mean"] == by_seed["margin"]["mean"]
    assert _cli_json(tmp_path, capsys, "--seed", "2")["deal_set"] == "selection"
    assert _cli_json(tmp_path, capsys)["deal_set"] is None  # the default seed 0 is in no named set
    main(["rule", "random", "--deals", "2", "--deal-set", "selection", "--seed", "3"])
    assert "seed 3, deal set selection" in capsys.readouterr().out


def test_cli_seed_outside_the_deal_set_is_one_line_and_exit_2(capsys):
    assert main(["rule", "random", "--deals", "2", "--deal-set", "selection", "--seed", "1000001"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "seed 1000001 is not in deal set selection (seeds 1-3" in err[0]


def test_every_reported_margin_carries_its_deal_count_method_and_p(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "300")  # rich wraps at the terminal's width: one line per row here
    data = _cli_json(tmp_path, capsys, "--ci", "bootstrap")
    m = data["margin"]
    assert m["deals"] == 4 and "BCa bootstrap" in m["method"] and "bootstrap" in m["p_method"]
    assert 0.0 <= m["p_first_stronger"] <= 1.0
    main(["rule", "random", "--deals", "3"])
    out = capsys.readouterr().out
    assert "normal interval, 3 deals" in out and "P(rule stronger than random)" in out
    assert "margin interval over 3 deals: normal approximation" in out


def test_normal_p_is_phi_of_the_mean_over_its_standard_error():
    margins = np.array([3.0, -1.0, 2.0, 0.0, 4.0, -2.0, 1.0])
    s = summarize_margins(margins, "normal")
    z = margins.mean() / (margins.std(ddof=1) / math.sqrt(len(margins)))
    assert s.p_positive == pytest.approx(0.5 * (1 + math.erf(z / math.sqrt(2))), rel=1e-12)
    assert s.ci95 == margin_ci95(margins)
    flipped = summarize_margins(-margins, "normal")
    assert flipped.p_positive == pytest.approx(1 - s.p_positive, rel=1e-12)


def test_bootstrap_is_seeded_and_agrees_with_the_normal_approximation_on_a_large_normal_sample():
    margins = np.random.default_rng(0).normal(0.3, 5.0, 4000)
    a, b = summarize_margins(margins, "bootstrap", seed=7), summarize_margins(margins, "bootstrap", seed=7)
    assert a == b
    assert summarize_margins(margins, "bootstrap", seed=8).ci95 != a.ci95
    normal = summarize_margins(margins, "normal")
    half = (normal.ci95[1] - normal.ci95[0]) / 2
    assert a.ci95 == pytest.approx(normal.ci95, abs=0.1 * half)
    assert a.p_positive == pytest.approx(normal.p_positive, abs=5 / math.sqrt(BOOTSTRAP_RESAMPLES))


def test_bootstrap_interval_follows_a_skewed_sample_where_the_normal_one_is_symmetric():
    """Margins of mostly small gains and rare large losses (set contracts): the BCa interval reaches further
    down than up from the mean; the normal one cannot."""
    rng = np.random.default_rng(1)
    margins = np.where(rng.random(150) < 0.08, -16.0, 0.0) + rng.normal(1.5, 1.0, 150)
    ci, mean = summarize_margins(margins, "bootstrap").ci95, margins.mean()
    assert mean - ci[0] > 1.1 * (ci[1] - mean)


def test_degenerate_and_tiny_samples():
    s = summarize_margins(np.full(5, 2.0), "bootstrap")
    assert s.ci95 == [2.0, 2.0] and s.p_positive == 1.0
    assert summarize_margins(np.zeros(3), "normal").p_positive == 0.5
    assert summarize_margins(np.array([1.0]), "bootstrap").ci95 is None
    with pytest.raises(ValueError, match="ci: expected one of normal, bootstrap"):
        summarize_margins(np.zeros(3), "t")


def test_library_match_takes_the_interval_method():
    m = duplicate_match("rule", "random", deals=6, seed=1, ci="bootstrap")
    assert m.ci == "bootstrap" and m.deal_set == "selection" and m.to_dict()["deal_set"] == "selection"
    assert m.ci95 == summarize_margins(m.margins, "bootstrap", seed=1).ci95
    assert set(DEAL_SETS) == {"selection", "heldout"}
