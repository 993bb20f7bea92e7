"""Time to strength (#59): crossings decided on the 95% interval, wall minutes from event times, chains, the
held-out cache and the CLI, on tiny event files written here with exact times and values."""
from __future__ import annotations

import csv
import importlib.util
import os
import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from tensorboard.compat.proto import event_pb2, summary_pb2
from tensorboard.summary.writer.record_writer import RecordWriter

from training.time_to_strength import (
    CACHE_FIELDS,
    CACHE_NAME,
    Curve,
    Point,
    TimeToStrengthError,
    chain,
    crossings,
    heldout_curve,
    kept_checkpoints,
    read_logs,
    report,
)

ROOT = Path(__file__).resolve().parent.parent
T0 = 1_000_000.0  # the writer's start (wall time, seconds)
TAG = "eval/margin_vs_rule"
# (PPO decisions, minutes after the start, margin, interval): the second point's margin clears +1.0 but its
# interval does not (a noisy point); the third is the first whose interval clears +1.0.
EVALS = [
    (0, 2.0, 0.80, (0.45, 1.15)),
    (1_000_000, 3.0, 1.20, (0.85, 1.55)),
    (2_000_000, 4.0, 1.40, (1.05, 1.75)),
    (3_000_000, 5.0, 1.60, (1.25, 1.95)),
    (4_000_000, 6.0, 2.10, (1.75, 2.45)),
]


def write_events(path: Path, start: float | None, scalars) -> None:
    """An event file: the writer's start marker at ``start`` (None: none), then (wall, step, tag, value) scalars."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as f:
        w = RecordWriter(f)
        if start is not None:
            w.write(event_pb2.Event(wall_time=start, file_version="brain.Event:2").SerializeToString())
        for wall, step, tag, value in scalars:
            summary = summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=tag, simple_value=value)])
            w.write(event_pb2.Event(wall_time=wall, step=step, summary=summary).SerializeToString())
        w.flush()


def eval_scalars(evals, t0=T0):
    out = []
    for step, minutes, margin, (lo, hi) in evals:
        wall = t0 + 60 * minutes
        out += [(wall, step, TAG, margin), (wall, step, TAG + "_ci_lo", lo), (wall, step, TAG + "_ci_hi", hi)]
    return out


@pytest.fixture
def run(tmp_path):
    d = tmp_path / "run"
    cpu = [(T0 + 60 * minutes, step, "charts/cpu_seconds", 90.0 * minutes) for step, minutes, *_ in EVALS[1:]]
    write_events(d / "events.out.tfevents.1.host.1.0", T0,
                 eval_scalars(EVALS) + cpu + [(T0 + 6.5 * 60, 4_032_768, "charts/SPS", 20000.0),
                                              (T0 + 6.5 * 60, 4_032_768, "charts/cpu_seconds", 600.0),
                                              (T0 + 30, 6_000_000, "pretrain/accuracy", 0.9)])
    (d / "config.yaml").write_text("eval:\n  seed: 12345\n  deals: 1000\n")
    return d


def test_interval_crossing_waits_for_the_interval_and_point_crossing_does_not(run):
    curve = read_logs(str(run))
    assert [p.decisions for p in curve.points] == [e[0] for e in EVALS]
    assert [p.margin for p in curve.points] == pytest.approx([e[2] for e in EVALS])
    decided = crossings(curve.points, rule="interval")
    assert {k: p and p.decisions for k, p in decided.items()} == {1.0: 2_000_000, 1.5: 4_000_000, 2.0: None}
    first = crossings(curve.points, rule="point")
    assert {k: p and p.decisions for k, p in first.items()} == {1.0: 1_000_000, 1.5: 3_000_000, 2.0: 4_000_000}
    assert decided[1.0].minutes == pytest.approx(4.0) and first[1.0].minutes == pytest.approx(3.0)
    # the run's end: its last PPO step (the warm start's pretrain/* steps count teacher decisions, not PPO ones)
    assert curve.decisions == 4_032_768 and curve.minutes == pytest.approx(6.5)
    # CPU minutes where the run logged charts/cpu_seconds (not at the warm start's evaluation, step 0)
    assert [p.cpu_minutes for p in curve.points] == [None, 4.5, 6.0, 7.5, 9.0] and curve.cpu_minutes == 10.0
    assert "seed 12345, 1000 deals each (not held out)" in curve.source


def test_a_level_exactly_at_the_interval_end_counts_and_the_rule_is_checked():
    points = [Point(10, 1.0, 1.4, 0.99, 1.8), Point(20, 2.0, 1.35, 1.0, 1.7)]
    assert crossings(points, [1.0], "interval")[1.0].decisions == 20
    with pytest.raises(ValueError, match="crossing rule 'mean'"):
        crossings(points, [1.0], "mean")


def test_resumed_session_skips_the_gap_and_replaces_a_repeated_step(tmp_path):
    d = tmp_path / "resumed"
    write_events(d / "events.out.tfevents.1.host.1.0", T0, eval_scalars(EVALS[:3]))
    # a second session an hour after the first stopped (at 4 minutes): it repeats step 2M, then goes on
    t1 = T0 + 3600
    later = [(2_000_000, 1.0, 1.30, (0.95, 1.65)), (3_000_000, 2.0, 1.90, (1.55, 2.25))]
    write_events(d / "events.out.tfevents.2.host.1.0", t1, eval_scalars(later, t1))
    curve = read_logs(str(d))
    assert [(p.decisions, round(p.minutes, 6), p.margin) for p in curve.points] == [
        (0, 2.0, pytest.approx(0.8)), (1_000_000, 3.0, pytest.approx(1.2)),
        (2_000_000, 5.0, pytest.approx(1.3)), (3_000_000, 6.0, pytest.approx(1.9))]
    # the first session's 2M evaluation (interval from +1.05) was replaced by the second's (from +0.95)
    assert crossings(curve.points, [1.0, 1.5], "interval") == {1.0: curve.points[3], 1.5: curve.points[3]}
    assert curve.minutes == pytest.approx(6.0)


def test_thinned_logs_start_at_their_first_event(tmp_path):
    """Logs rewritten by thinning carry a start marker later than their events: the first event is the start."""
    d = tmp_path / "thinned"
    write_events(d / "events.out.tfevents.9.host.1.0", T0 + 10_000, eval_scalars(EVALS))
    assert [round(p.minutes, 6) for p in read_logs(str(d)).points] == [0.0, 1.0, 2.0, 3.0, 4.0]


def test_torch_summary_writer_logs_read_the_same(tmp_path):
    """The trainer's writer (torch's SummaryWriter stores tensors, not simple values) reads back exactly."""
    from torch.utils.tensorboard import SummaryWriter

    w = SummaryWriter(str(tmp_path / "torch"))
    for wall, step, tag, value in eval_scalars(EVALS):
        w.add_scalar(tag, value, step, walltime=wall)
    w.close()
    curve = read_logs(str(tmp_path / "torch"))
    assert [p.lo for p in curve.points] == pytest.approx([e[3][0] for e in EVALS])
    assert crossings(curve.points, [1.0], "interval")[1.0].decisions == 2_000_000
    assert curve.points[-1].minutes == pytest.approx(4.0)  # its start marker is now, later than the events


def test_logs_without_the_evaluation_or_its_interval_are_refused(tmp_path):
    with pytest.raises(TimeToStrengthError, match="no TensorBoard event files"):
        read_logs(str(tmp_path))
    d = tmp_path / "other"
    write_events(d / "events.out.tfevents.1.h.1.0", T0, [(T0 + 60, 0, "eval/margin_vs_random", 20.0)])
    with pytest.raises(TimeToStrengthError, match=r"no eval/margin_vs_rule in its logs \(evaluated against: random\)"):
        read_logs(str(d))
    d = tmp_path / "bare"
    write_events(d / "events.out.tfevents.1.h.1.0", T0, [(T0 + 60, 0, TAG, 1.0)])
    with pytest.raises(TimeToStrengthError, match="without its 95% interval"):
        read_logs(str(d))


def test_chain_counts_sibling_decisions_and_wall_minutes_once():
    M = 1_000_000
    a = Curve("a", "s", [Point(50 * M, 10.0, 1.2, 0.9, 1.5, 10.0, 15.0), Point(100 * M, 20.0, 1.6, 1.3, 1.9, 20.0,
                                                                               30.0)], 100 * M, 20.0, cpu_minutes=31.0)
    b1 = Curve("b1", "s", [Point(40 * M, 5.0, 1.9, 1.55, 2.25, 5.0, 8.0),
                           Point(80 * M, 10.0, 2.4, 2.05, 2.75, 10.0, 16.0)], 80 * M, 10.0, cpu_minutes=16.0)
    b2 = Curve("b2", "s", [Point(80 * M, 12.0, 9.9, 9.0, 9.9, 12.0)], 80 * M, 12.0, cpu_minutes=20.0)  # points unused
    c = chain([[a], [b1, b2]])
    assert [(p.decisions // M, p.minutes, p.run_minutes, p.cpu_minutes) for p in c.points] == [
        (50, 10.0, 10.0, 15.0), (100, 20.0, 20.0, 30.0), (180, 25.0, 30.0, 47.0), (260, 30.0, 40.0, 63.0)]
    assert (c.decisions // M, c.minutes, c.run_minutes, c.cpu_minutes) == (260, 32.0, 42.0, 67.0)
    assert {k: p and p.decisions // M for k, p in crossings(c.points).items()} == {1.0: 100, 1.5: 180, 2.0: 260}
    text = report(c)
    assert "the run: 260.0M PPO decisions, 32.0 wall minutes (42.0 run minutes), CPU minutes 67.0" in text
    assert "    +1.5  interval         180.0M      25.0      30.0      47.0  +1.90 [+1.55, +2.25]" in text
    # a link without CPU minutes (a run made before they were recorded) leaves the chain's later ones unknown
    d = chain([[replace(a, cpu_minutes=None)], [b1]])
    assert [p.cpu_minutes for p in d.points] == [15.0, 30.0, None, None] and d.cpu_minutes is None


def test_kept_checkpoints_are_spread_evenly_with_the_last_kept(tmp_path):
    for it in range(50, 550, 50):
        (tmp_path / f"iter_{it:06d}.pt").touch()
    names = lambda paths: [os.path.basename(p)[5:11] for p in paths]  # noqa: E731
    assert len(kept_checkpoints(str(tmp_path))) == 10
    assert names(kept_checkpoints(str(tmp_path), 4)) == ["000050", "000200", "000350", "000500"]
    assert names(kept_checkpoints(str(tmp_path), 1)) == ["000500"]


def test_heldout_cache_rows_are_not_played_again(tmp_path):
    """A cached row stands for its checkpoint: the (empty, unloadable) files are never opened."""
    for it in (50, 100):
        (tmp_path / f"iter_{it:06d}.pt").touch()
    with open(tmp_path / CACHE_NAME, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=CACHE_FIELDS)
        w.writeheader()
        for it, dec, minutes, m in ((50, 1_638_400, 2.5, 0.9), (100, 3_276_800, 5.0, 1.45)):
            w.writerow({"checkpoint": f"iter_{it:06d}.pt", "iteration": it, "decisions": dec, "minutes": minutes,
                        "opponent": "rule", "seed": 1000001, "deals": 1000, "margin": m, "ci_lo": m - 0.35,
                        "ci_hi": m + 0.35})
    curve = heldout_curve(str(tmp_path))
    assert [(p.decisions, p.minutes) for p in curve.points] == [(1_638_400, 2.5), (3_276_800, 5.0)]
    assert crossings(curve.points, [1.0], "interval")[1.0].decisions == 3_276_800
    assert "held-out seed 1000001, 1000 deals each" in curve.source
    with pytest.raises(TimeToStrengthError, match="no kept checkpoints"):
        heldout_curve(str(tmp_path / "nothing"))


@pytest.mark.skipif(not (ROOT / "checkpoints" / "default.pt").is_file(), reason="needs the shipped default.pt")
def test_heldout_plays_a_checkpoint_once_and_caches_it(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    shutil.copy(ROOT / "checkpoints" / "default.pt", run / "iter_000050.pt")  # play-only files keep counters
    first = heldout_curve(str(run), deals=8)
    rows = list(csv.DictReader(open(run / CACHE_NAME)))
    assert [(r["checkpoint"], r["seed"], r["deals"], r["decisions"]) for r in rows] == [
        ("iter_000050.pt", "1000001", "8", "112001024")]
    (run / "iter_000050.pt").write_bytes(b"")  # unreadable now: a second call must use the cache
    again = heldout_curve(str(run), deals=8)
    assert again.points[0].margin == pytest.approx(first.points[0].margin, abs=1e-4)
    assert first.points[0].lo < first.points[0].margin < first.points[0].hi
    assert first.points[0].cpu_minutes is None  # a file made before CPU time was recorded


def _cli():
    spec = importlib.util.spec_from_file_location("time_to_strength_cli", ROOT / "benchmarks" / "time_to_strength.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.main


def test_cli_prints_both_rules_and_refuses_bad_input(run, tmp_path, capsys):
    main = _cli()
    out_csv = tmp_path / "curves.csv"
    assert main([str(run), "--csv", str(out_csv)]) == 0
    text = capsys.readouterr().out
    assert "    +1.0  interval           2.0M       4.0       4.0       6.0  +1.40 [+1.05, +1.75]" in text
    assert "    +1.0     point           1.0M       3.0       3.0       4.5  +1.20 [+0.85, +1.55]" in text
    assert "    +2.0  interval    not reached" in text
    assert len(list(csv.DictReader(open(out_csv)))) == 5
    assert main([str(run), "--levels", "1.25", "0.5"]) == 0  # a level's second decimal is printed, not rounded away
    text = capsys.readouterr().out
    assert "   +1.25  interval" in text and "    +0.5  interval" in text
    other = tmp_path / "other"
    shutil.copytree(run, other)
    assert main([str(other), "--csv", str(out_csv)]) == 0  # "run" kept, "other" added
    assert main([str(other), "--csv", str(out_csv)]) == 0  # "other" replaced
    rows = list(csv.DictReader(open(out_csv)))
    assert [r["run"] for r in rows] == ["run"] * 5 + ["other"] * 5
    assert rows[7] == {"run": "other", "kind": "in-training", "decisions": "2000000", "minutes": "4.0",
                       "run_minutes": "4.0", "cpu_minutes": "6.0", "margin": "1.399999976158142",
                       "ci_lo": "1.0499999523162842", "ci_hi": "1.75"}  # float32 in the event file, as it was
    capsys.readouterr()
    assert main([str(tmp_path / "missing")]) == 2
    assert capsys.readouterr().err == f"time_to_strength.py: {tmp_path / 'missing'}: no such run folder\n"
    assert main([str(run), "--heldout"]) == 2
    assert "no kept checkpoints (iter_*.pt" in capsys.readouterr().err


def test_a_training_run_records_its_cpu_time_and_reads_back(tmp_path):
    """train.py logs charts/cpu_seconds with every iteration and keeps counters["cpu_seconds"] in the checkpoint."""
    import train
    from agents.checkpoint import load_checkpoint

    run_dir = tmp_path / "tiny"
    sets = ["env.num_games=8", "env.rollout_steps=80", "model.hidden=[16]", "ppo.minibatch_size=256",
            "pretrain.decisions=640", "pretrain.steps=80", "pretrain.minibatch_size=128", "budget.iterations=2",
            "budget.minutes=null", "eval.interval=1", "eval.deals=4", "eval.opponents=[rule]",
            "eval.ladder_deals=0", "rollout.backend=local", "checkpoint.interval=1"]
    argv = ["--config", "configs/smoke.yaml", "--run-dir", str(run_dir), "--no-progress"]
    assert train.main(argv + [a for s in sets for a in ("--set", s)]) == 0
    curve = read_logs(str(run_dir))
    assert [p.decisions for p in curve.points] == [0, 640, 1280]  # the warm start's evaluation, then each iteration
    cpu = [p.cpu_minutes for p in curve.points]
    assert cpu[0] is None and 0 < cpu[1] < cpu[2]
    saved = load_checkpoint(str(run_dir / "latest.pt"))["counters"]["cpu_seconds"]
    assert curve.cpu_minutes == pytest.approx(saved / 60, rel=1e-5)  # float32 in the event file
    # the learner's CPU time from the run's start: at least the iterations' own work, at most all the time there was
    assert 0 < saved <= os.cpu_count() * load_checkpoint(str(run_dir / "latest.pt"))["counters"]["seconds"] + 1
    # the held-out mode reads the same clocks from the kept checkpoints
    held = heldout_curve(str(run_dir), deals=4)
    assert [p.decisions for p in held.points] == [640, 1280]
    assert held.points[-1].cpu_minutes == pytest.approx(saved / 60, abs=1e-3)  # kept to 3 decimals in the cache
    assert held.points[0].cpu_minutes < held.points[1].cpu_minutes


def test_confirm_asks_the_next_evaluations_to_agree():
    # a lucky evaluation at 20 (interval from 1.02) between two that do not clear +1.0, then two in a row that do
    points = [Point(10, 1.0, 0.9, 0.6, 1.2), Point(20, 2.0, 1.4, 1.02, 1.8), Point(30, 3.0, 1.1, 0.8, 1.4),
              Point(40, 4.0, 1.5, 1.1, 1.9), Point(50, 5.0, 1.6, 1.2, 2.0)]
    decisions = lambda found: {k: p and p.decisions for k, p in found.items()}  # noqa: E731
    assert decisions(crossings(points, [1.0, 1.5])) == {1.0: 20, 1.5: None}
    assert decisions(crossings(points, [1.0, 1.5], confirm=2)) == {1.0: 40, 1.5: None}
    assert decisions(crossings(points, [1.0], confirm=3)) == {1.0: None}
    assert decisions(crossings(points, [1.5], "point", confirm=2)) == {1.5: 40}
    with pytest.raises(ValueError, match="confirm 0: give at least 1"):
        crossings(points, confirm=0)
    assert "; each followed by 1 more that do" in report(Curve("r", "s", points, 50, 5.0), confirm=2)
