"""The fictitious-play league: membership, sampling weights, margins, state."""
from __future__ import annotations

import math

import pytest
import torch

from training.league import MARGIN_DECAY, League


def sd(x: float) -> dict[str, torch.Tensor]:
    return {"w": torch.full((2,), x)}


def weights_of(league: League) -> dict[str, float]:
    return {e.name: e.weight for e in league.entries()}


def test_without_snapshots_the_learner_stands_in_for_them():
    league = League({"current": 0.2, "snapshots": 0.6, "rule": 0.2}, max_snapshots=3)
    assert weights_of(league) == pytest.approx({"current": 0.8, "rule": 0.2})


def test_uniform_sampling_shares_the_snapshot_weight_equally_and_keeps_the_newest():
    league = League({"snapshots": 0.9, "rule": 0.1}, max_snapshots=3)
    for it in (10, 20, 30, 40):
        league.add_snapshot(it, sd(it))
    w = weights_of(league)
    assert list(w) == ["snapshot:20", "snapshot:30", "snapshot:40", "rule"]
    assert w["snapshot:20"] == pytest.approx(0.3) and w["rule"] == pytest.approx(0.1)
    assert league.entries()[0].state_dict["w"][0] == 20.0


def test_pfsp_weights_the_snapshots_the_learner_does_worst_against():
    league = League({"snapshots": 1.0}, max_snapshots=4, sampling="pfsp", pfsp_scale=2.0)
    for it in (1, 2, 3):
        league.add_snapshot(it, sd(it))
    league.record({"snapshot:1": (30.0, 10), "snapshot:2": (0.0, 10), "current": (5.0, 5)})
    w = weights_of(league)
    raw = {1: math.exp(-3.0 / 2), 2: 1.0, 3: 1.0}  # snapshot 3 not met yet: margin 0
    total = sum(raw.values())
    assert w == pytest.approx({f"snapshot:{k}": v / total for k, v in raw.items()})
    assert "current" not in league.margins


def test_margins_are_a_moving_average_and_leave_with_their_snapshot():
    league = League({"snapshots": 1.0}, max_snapshots=1, sampling="pfsp")
    league.add_snapshot(1, sd(1))
    league.record({"snapshot:1": (4.0, 2)})
    assert league.margins == {"snapshot:1": 2.0}
    league.record({"snapshot:1": (0.0, 4), "rule": (0.0, 0)})
    # the two earlier hands (decayed) and the four new ones, each hand weighted alike
    kept = MARGIN_DECAY * 2
    assert league.margins == pytest.approx({"snapshot:1": kept * 2.0 / (kept + 4)})
    assert league.margin_hands == pytest.approx({"snapshot:1": kept + 4})
    m, w = league.margins["snapshot:1"], league.margin_hands["snapshot:1"]
    league.record({"snapshot:1": (60.0, 10)})  # ten hands move it more than four did
    assert league.margins["snapshot:1"] == pytest.approx((MARGIN_DECAY * w * m + 60.0) / (MARGIN_DECAY * w + 10))
    league.add_snapshot(2, sd(2))
    assert league.margins == {} and league.margin_hands == {}


def test_scalars_are_a_bounded_summary_and_the_table_names_each_member():
    league = League({"current": 0.5, "snapshots": 0.25, "rule": 0.25}, max_snapshots=3)
    league.add_snapshot(5, sd(5))
    league.record({"snapshot:5": (-3.0, 3), "rule": (2.0, 2)})
    s = league.scalars()
    assert s == pytest.approx({"league/snapshots": 1.0, "league/weight/current": 0.5, "league/weight/rule": 0.25,
                               "league/weight/snapshots": 0.25, "league/margin/rule": 1.0,
                               "league/margin/snapshots_mean": -1.0, "league/margin/snapshots_min": -1.0})
    for it in (10, 15, 20, 25):  # more snapshots come and go: the same tags
        league.add_snapshot(it, sd(it))
        league.record({f"snapshot:{it}": (float(it), 1)})
    assert set(league.scalars()) == set(s)
    assert league.scalars()["league/margin/snapshots_min"] == pytest.approx(15.0)  # 5 and 10 left
    assert league.scalars()["league/margin/snapshots_mean"] == pytest.approx(20.0)
    assert league.table().splitlines()[2:] == ["| current | 0.500 | - |", "| snapshot:15 | 0.083 | +15.00 |",
                                               "| snapshot:20 | 0.083 | +20.00 |", "| snapshot:25 | 0.083 | +25.00 |",
                                               "| rule | 0.250 | +1.00 |"]


def test_state_round_trip_is_exact():
    league = League({"snapshots": 1.0}, max_snapshots=3, sampling="pfsp")
    league.add_snapshot(1, sd(1))
    league.add_snapshot(2, sd(2))
    league.record({"snapshot:1": (1.5, 3)})
    other = League({"snapshots": 1.0}, max_snapshots=3, sampling="pfsp")
    other.load_state(league.state())
    assert weights_of(other) == weights_of(league) and other.margins == league.margins
    assert other.margin_hands == league.margin_hands == {"snapshot:1": 3.0}
    assert torch.equal(other.snapshots[1][1]["w"], sd(2)["w"])


def test_unknown_sampling_is_refused():
    with pytest.raises(ValueError, match="sampling: expected one of uniform, pfsp"):
        League({}, 1, sampling="elo")


# ------------------------------------------------------------------ the league in a training run
LEAGUE = ["env.num_games=8", "env.rollout_steps=80", "model.hidden=[16]", "ppo.minibatch_size=256",
          "pretrain.decisions=0", "budget.minutes=null", "rollout.backend=local", "rollout.lag=1",
          "selfplay.weights={current: 0.2, snapshots: 0.6, rule: 0.2}", "selfplay.snapshot_interval=2",
          "selfplay.max_snapshots=2", "selfplay.sampling=pfsp", "selfplay.pfsp_scale=2.0",
          "model.critic=privileged", "eval.interval=4", "eval.deals=4", "eval.opponents=[random]",
          "eval.ladder_deals=4", "checkpoint.interval=100"]


def _run(tmp_path, name, sets, resume=False):
    from training import cli

    run_dir = str(tmp_path / name)
    argv = ["--resume", run_dir] if resume else ["--config", "configs/smoke.yaml", "--run-dir", run_dir]
    assert cli.main(argv + [a for s in sets for a in ("--set", s)] + ["--no-progress"]) == 0
    return run_dir


def test_league_snapshots_margins_and_ratings_in_a_run_survive_resume_exactly(tmp_path):
    import glob
    import os

    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    from agents.checkpoint import load_checkpoint

    full = _run(tmp_path, "full", LEAGUE + ["budget.iterations=5"])
    part = _run(tmp_path, "part", LEAGUE + ["budget.iterations=3"])
    _run(tmp_path, "part", ["budget.iterations=5"], resume=True)
    a, b = (load_checkpoint(os.path.join(d, "latest.pt")) for d in (full, part))
    assert [s["iteration"] for s in a["pool"]["snapshots"]] == [2, 4]  # every 2 iterations, the newest 2 kept
    assert set(a["pool"]["margins"]) <= {"snapshot:2", "snapshot:4", "rule"} and "rule" in a["pool"]["margins"]
    assert a["pool"]["margins"] == b["pool"]["margins"]
    for k in a["state_dict"]:
        assert torch.equal(a["state_dict"][k], b["state_dict"][k]), k
    assert a["model"]["critic"] == "privileged" and any(k.startswith("critic_trunk") for k in a["state_dict"])
    acc = EventAccumulator(glob.glob(os.path.join(full, "events.out.tfevents.*"))[0])
    acc.Reload()
    tags = set(acc.Tags()["scalars"])
    assert {"league/weight/current", "league/weight/rule", "league/weight/snapshots", "league/margin/rule",
            "league/rating/current", "league/rating/best_snapshot", "league/rating/random"} <= tags
    assert not any("snapshot_" in t for t in tags)  # one tag per snapshot would grow without bound
    # the weights logged at the last iteration follow the pfsp rule from the margins then
    league = League({"current": 0.2, "snapshots": 0.6, "rule": 0.2}, 2, "pfsp", 2.0)
    league.load_state(a["pool"])
    logged = {t: acc.Scalars(t)[-1].value for t in tags if t.startswith("league/weight/")}
    expected = {k: v for k, v in league.scalars().items() if k.startswith("league/weight/")}
    assert logged == pytest.approx(expected, rel=1e-5)
    snapshots = [e.weight for e in league.entries() if e.name.startswith("snapshot:")]
    assert len(snapshots) == 2 and snapshots[0] != pytest.approx(snapshots[1])  # not uniform


def test_a_run_can_start_from_the_shipped_policy_with_a_fresh_privileged_critic(tmp_path):
    from agents.checkpoint import load_checkpoint
    from training import Trainer
    from training.config import ConfigError, load_config

    shipped = load_checkpoint("checkpoints/default.pt")["state_dict"]
    sets = ["pretrain.init=checkpoints/default.pt", "pretrain.decisions=0", "model.hidden=[256, 256]",
            "rollout.backend=local", "model.critic=privileged"]
    trainer = Trainer(load_config("configs/smoke.yaml", sets), str(tmp_path / "a"), progress=False)
    mine = trainer.model.state_dict()
    for k in shipped:
        if k.startswith(("trunk.", "policy.")):
            assert torch.equal(mine[k], shipped[k]), k
    assert not torch.equal(mine["value.weight"], shipped["value.weight"])  # the shared critic's head is not reused
    with pytest.raises(ConfigError, match=r"pretrain.init: checkpoints/default.pt is a .*set model.hidden to match"):
        Trainer(load_config("configs/smoke.yaml", sets[:-1] + ["model.hidden=[16]"]), str(tmp_path / "b"),
                progress=False)


def test_a_run_starts_from_an_agent_of_other_rules_only_when_asked(tmp_path):
    """Transfer (a preset's run from the classic agent) is explicit: ``?rules=any`` loads it with a warning."""
    from agents.checkpoint import load_checkpoint
    from agents.rules_check import RulesOverrideWarning
    from training import Trainer
    from training.config import ConfigError, load_config

    sets = ["rules=trump_by_card", "pretrain.decisions=0", "model.hidden=[256, 256]", "rollout.backend=local"]
    with pytest.raises(ConfigError, match=r"^pretrain.init: agent 'checkpoints/default.pt' was trained for rules "
                                          r"classic, but the game's rules are trump_by_card"):
        Trainer(load_config("configs/smoke.yaml", sets + ["pretrain.init=checkpoints/default.pt"]),
                str(tmp_path / "a"), progress=False)
    with pytest.warns(RulesOverrideWarning, match="trained for rules classic"):
        trainer = Trainer(load_config("configs/smoke.yaml", sets + ["pretrain.init=checkpoints/default.pt?rules=any"]),
                          str(tmp_path / "b"), progress=False)
    shipped = load_checkpoint("checkpoints/default.pt")["state_dict"]
    assert trainer.rules.name == "trump_by_card"
    assert all(torch.equal(v, shipped[k]) for k, v in trainer.model.state_dict().items())


# ------------------------------------------------------------------ stages: the budget in parts, one league
STAGES = ("stages=[{decisions: 480, lr: 1.0e-3, selfplay: {weights: {rule: 1.0}}}, "
          "{decisions: 960, selfplay: {weights: {current: 0.5, snapshots: 0.5}, sampling: uniform}}]")


def test_stages_inherit_the_selfplay_section_and_make_the_budget():
    from training.config import ConfigError, load_config

    cfg = load_config("configs/smoke.yaml", LEAGUE + [STAGES, "budget.decisions=null", "budget.iterations=null"])
    first, second = cfg.stages
    assert cfg.budget.decisions == 480 + 960
    assert first.selfplay.weights == {"rule": 1.0} and first.selfplay.sampling == "pfsp"  # the rest inherited
    assert first.selfplay.snapshot_interval == 2 and first.lr == 1e-3
    assert second.selfplay.sampling == "uniform" and second.lr is None and second.selfplay.max_snapshots == 2
    with pytest.raises(ConfigError, match=r"stages\[0\]\.decisions: required"):
        load_config("configs/smoke.yaml", ["stages=[{lr: 1.0e-3}]"])
    with pytest.raises(ConfigError, match=r"stages\[0\]\.decisions: expected an int, got None"):  # not "or null"
        load_config("configs/smoke.yaml", ["stages=[{decisions: null}]"])
    with pytest.raises(ConfigError, match=r"^--set stages=.*: unknown key stages\[1\]\.selfplay\.weight \(did you mean 'weights'\?\);"):
        load_config("configs/smoke.yaml", ["stages=[{decisions: 1}, {decisions: 1, selfplay: {weight: {}}}]"])
    with pytest.raises(ConfigError, match=r"stages\[0\]\.selfplay\.weights: at least one weight must be positive"):
        load_config("configs/smoke.yaml", ["stages=[{decisions: 1, selfplay: {weights: {rule: 0}}}]"])
    with pytest.raises(ConfigError, match=r"stages: expected a list of mappings"):
        load_config("configs/smoke.yaml", ["stages=7"])


def test_resume_may_add_stages_after_the_one_begun_and_then_runs_as_the_longer_list_from_nothing(tmp_path):
    import os

    from agents.checkpoint import load_checkpoint
    from training import cli
    from training.config import ConfigError

    sets = LEAGUE + ["budget.iterations=null", "eval.interval=0", "rollout.lag=0", "ppo.lr=3.0e-4",
                     "ppo.lr_schedule=linear"]
    full = _run(tmp_path, "full", sets + [STAGES])
    part = _run(tmp_path, "part", sets + ["stages=[{decisions: 480, lr: 1.0e-3, selfplay: {weights: {rule: 1.0}}}]"])
    with pytest.raises(ConfigError, match=r"^--set stages: stage 0 has begun \(it starts at 0 PPO decisions, the run "
                                          r"is at 640\) and must stay as it is; only the stages after it may change"):
        cli.setup(cli.parse_args(["--resume", part, "--set", STAGES.replace("480", "500")]))
    plain = _run(tmp_path, "plain", sets + ["budget.decisions=640"])
    with pytest.raises(ConfigError, match=r"^--set stages: the run has no stages and has begun \(640 PPO decisions\)"):
        cli.setup(cli.parse_args(["--resume", plain, "--set", STAGES]))
    _run(tmp_path, "part", [STAGES], resume=True)  # the budget was the one stage's: now it is the two stages' sum
    a, b = (load_checkpoint(os.path.join(d, "latest.pt")) for d in (full, part))
    assert b["config"]["budget"]["decisions"] == 480 + 960
    assert a["counters"]["decisions"] == b["counters"]["decisions"] == 1920
    for k in a["state_dict"]:
        assert torch.equal(a["state_dict"][k], b["state_dict"][k]), k


@pytest.mark.parametrize("lag", [0, 1])
def test_stages_switch_league_and_learning_rate_on_schedule_and_resume_exactly(tmp_path, lag):
    import glob
    import os

    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    from agents.checkpoint import load_checkpoint

    sets = LEAGUE + [STAGES, "budget.iterations=null", "eval.interval=0", f"rollout.lag={lag}",  # 640 a step
                     "ppo.lr=3.0e-4", "ppo.lr_schedule=linear"]
    full = _run(tmp_path, "full", sets)
    part = _run(tmp_path, "part", sets + ["budget.decisions=640"])
    _run(tmp_path, "part", ["budget.decisions=1440"], resume=True)
    a, b = (load_checkpoint(os.path.join(d, "latest.pt")) for d in (full, part))
    assert a["counters"]["decisions"] == b["counters"]["decisions"] == 1920  # 3 iterations of 640: >= 1,440
    for k in a["state_dict"]:
        assert torch.equal(a["state_dict"][k], b["state_dict"][k]), k
    assert a["pool"]["margins"] == b["pool"]["margins"]
    if lag:  # with lag 1 each rollout plays the pool of the iteration before: the schedule below is lag 0's
        return
    acc = EventAccumulator(glob.glob(os.path.join(full, "events.out.tfevents.*"))[0])
    acc.Reload()
    at = {t: {e.step: e.value for e in acc.Scalars(t)} for t in acc.Tags()["scalars"]}
    # iteration 1 (0 decisions before it): stage 0, rule alone, lr 1e-3 undecayed; iteration 2 (640 before it,
    # stage 0 ended at 480): stage 1, 160 of its 960 done; iteration 3: 800 done
    assert at["charts/stage"] == {640: 0.0, 1280: 1.0, 1920: 1.0}
    assert at["charts/learning_rate"] == pytest.approx({640: 1e-3, 1280: 3e-4 * (1 - 160 / 960),
                                                               1920: 3e-4 * (1 - 800 / 960)})
    assert at["league/weight/rule"][640] == pytest.approx(1.0) and 1280 not in at["league/weight/rule"]
    # logged after each iteration: snapshot 2 joined at the end of iteration 2, which played current alone
    assert at["league/weight/current"][1280] == at["league/weight/snapshots"][1920] == pytest.approx(0.5)
    assert set(a["pool"]["margins"]) == {"rule", "snapshot:2"}  # rule in iteration 1, snapshot 2 in iteration 3
