"""The pipelined actor-learner (rollout.lag 1) and the rollout process (rollout.backend: process).

Pipelined iteration 0 equals the unpipelined one; iteration k >= 1 learns from
the rollout a local LocalRollout plays with the weights and pool iteration k - 1
started from (seeded for iteration k); a resumed pipelined run equals an
uninterrupted one; a dead rollout process is restarted or reported, never
waited on; no process outlives its rollout. Each rollout process takes seconds
to start (torch and numba imports), so the tests start few.
"""
from __future__ import annotations

import os
import signal
import time

import numpy as np
import pytest
import torch

from agents.checkpoint import load_checkpoint
from training import Trainer
from training import cli as train
from training.batch import DATA
from training.config import ConfigError, load_config
from training.league import League
from training.process_rollout import ProcessRollout, RolloutProcessError
from training.rollout import LocalRollout, PoolEntry
from training.seeds import iteration_seed

SMOKE = "configs/smoke.yaml"
TINY = ["env.num_games=6", "env.rollout_steps=70", "model.hidden=[16]", "ppo.minibatch_size=128",
        "selfplay.snapshot_interval=1", "selfplay.max_snapshots=2", "eval.interval=0", "budget.minutes=null",
        "selfplay.weights={current: 0.4, snapshots: 0.3, rule: 0.3}", "pretrain.decisions=0", "rollout.timeout=300"]


def config(*extra):
    return load_config(SMOKE, TINY + list(extra))


def weights_of(model):
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


def assert_same_weights(a, b):
    assert a.keys() == b.keys()
    for k in a:
        assert torch.equal(a[k], b[k]), k


def assert_same_data(a, b):
    for f in DATA:
        np.testing.assert_array_equal(getattr(a, f), getattr(b, f), err_msg=f)


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_pipelined_run_equals_local_on_the_first_iteration_then_follows_the_lag(tmp_path):
    local = Trainer(config("rollout.backend=local", "rollout.lag=0"), str(tmp_path / "a"), progress=False)
    pipe = Trainer(config("rollout.backend=process", "rollout.lag=1"), str(tmp_path / "b"), progress=False)
    try:
        w0 = weights_of(pipe.model)
        assert_same_weights(w0, weights_of(local.model))
        s = pipe.iteration()
        local.iteration()
        assert s["charts/policy_lag"] == 0.0
        assert_same_weights(weights_of(pipe.model), weights_of(local.model))  # iteration 0: identical
        # in flight: iteration 1's rollout, played with the weights and pool iteration 0 started from
        assert (pipe.inflight.iteration, pipe.inflight.behaviour) == (1, 0)
        assert_same_weights(pipe.inflight.weights, w0)
        assert [e.name for e in pipe.inflight.pool] == ["current", "rule"]  # no snapshot yet at iteration 0
        w1, pool1 = weights_of(pipe.model), pipe.pool.entries()
        s = pipe.iteration()
        assert s["charts/policy_lag"] == 1.0
        for key in ("charts/rollout_seconds", "charts/update_seconds", "charts/learner_wait_seconds"):
            assert s[key] >= 0.0, key
        assert s["charts/worker_cpu_seconds"] > 0.0  # the rollout process's CPU time, added to the run's
        job = pipe.inflight
        assert (job.iteration, job.behaviour) == (2, 1)
        assert_same_weights(job.weights, w1)
        assert [e.name for e in job.pool] == [e.name for e in pool1] == ["current", "snapshot:1", "rule"]
        # the process plays exactly what a LocalRollout plays from those inputs
        expected = LocalRollout(pipe.cfg, pipe.rules).collect(w1, pool1, iteration_seed(pipe.cfg.env.seed, 2))
        assert_same_data(pipe.rollout.gather(job.handle), expected)
        assert local.iteration()["charts/worker_cpu_seconds"] == 0.0  # in the learner's process: counted there
        assert any(not torch.equal(pipe.model.state_dict()[k], local.model.state_dict()[k])
                   for k in local.model.state_dict())  # iteration 1 learned from lagged data
    finally:
        pipe.close()


def _run(run_dir, sets, resume=False):
    argv = ["--resume", run_dir] if resume else ["--config", SMOKE, "--run-dir", run_dir]
    argv += [a for s in sets for a in ("--set", s)] + ["--no-progress"]
    assert train.main(argv) == 0
    return load_checkpoint(os.path.join(run_dir, "latest.pt"))


def test_resumed_pipelined_run_equals_uninterrupted_and_one_process_runs(tmp_path, monkeypatch):
    pipelined = TINY + ["rollout.backend=process", "rollout.lag=1"]
    full = _run(str(tmp_path / "full"), pipelined + ["budget.iterations=3"])
    # the lag, not the backend, decides the run: the same lag in one process computes the same weights
    one_process = _run(str(tmp_path / "local"), TINY + ["rollout.backend=local", "rollout.lag=1",
                                                        "budget.iterations=3"])
    assert_same_weights(full["state_dict"], one_process["state_dict"])
    # interrupted (Ctrl-C) in the middle of iteration 1's update, with iteration 2's rollout in flight
    from training import trainer as trainer_mod

    update, calls, pids = trainer_mod.ppo_update, [], []

    def interrupted(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            pids.append(trainers[0].rollout.pid)
            raise KeyboardInterrupt
        return update(*args, **kwargs)

    trainers = []
    setup = train.setup
    monkeypatch.setattr(train, "setup", lambda args: trainers.append(setup(args)) or trainers[-1])
    monkeypatch.setattr(trainer_mod, "ppo_update", interrupted)
    part = str(tmp_path / "part")
    argv = ["--config", SMOKE, "--run-dir", part, "--no-progress"] + [a for s in pipelined for a in ("--set", s)]
    assert train.main(argv + ["--set", "budget.iterations=3"]) == 130
    assert pids[0] is not None and gone(pids[0])  # the interrupted run left no rollout process
    saved = load_checkpoint(os.path.join(part, "latest.pt"))
    assert saved["counters"]["iteration"] == 1
    assert (saved["inflight"]["iteration"], saved["inflight"]["behaviour"]) == (1, 0)  # saved with the checkpoint
    monkeypatch.setattr(trainer_mod, "ppo_update", update)
    resumed = _run(part, [], resume=True)
    clocks = {k: full["counters"][k] for k in ("seconds", "cpu_seconds")}
    assert full["counters"] == {**resumed["counters"], **clocks}
    assert_same_weights(full["state_dict"], resumed["state_dict"])
    assert_same_weights(full["inflight"]["weights"], resumed["inflight"]["weights"])
    for k, v in full["optimizer"]["state"][0].items():
        assert torch.equal(v, resumed["optimizer"]["state"][0][k])


@pytest.fixture(scope="module")
def inputs():
    cfg = config()
    torch.manual_seed(0)
    from agents.model import ActorCritic

    weights = ActorCritic(cfg.model.hidden).state_dict()
    pool = League(cfg.selfplay.weights, max_snapshots=2)
    torch.manual_seed(1)
    pool.add_snapshot(1, ActorCritic(cfg.model.hidden).state_dict())
    return cfg, weights, pool.entries()


def test_rollout_process_errors_deaths_and_timeouts_are_reported_and_never_hang(inputs):
    cfg, weights, pool = inputs
    expected = LocalRollout(cfg, cfg.make_rules()).collect(weights, pool, 7)
    ro = ProcessRollout(cfg, cfg.make_rules(), timeout=300, retries=1)
    try:
        assert_same_data(ro.collect(weights, pool, 7), expected)
        # an exception in the child comes back with its traceback; the child lives on
        with pytest.raises(RolloutProcessError, match=r"rollout process raised:(.|\n)*no_such_agent"):
            ro.collect(weights, pool + [PoolEntry("no_such_agent", 1.0)], 7)
        # killed mid-collect: restarted, and the collection resubmitted (same inputs, same data)
        first = ro.pid
        handle = ro.submit(weights, pool, 7)
        os.kill(first, signal.SIGKILL)
        assert_same_data(ro.gather(handle), expected)
        assert ro.restarts == 1 and ro.pid != first and gone(first)
        # killed with no retry left: a clear error, promptly
        ro.retries = 0
        second = ro.pid
        handle = ro.submit(weights, pool, 7)
        os.kill(second, signal.SIGKILL)
        t0 = time.monotonic()
        with pytest.raises(RolloutProcessError, match=r"rollout process died \(exit code -9\) 1 time"):
            ro.gather(handle)
        assert time.monotonic() - t0 < 30 and gone(second) and ro.pid is None
        # a collection that outlives rollout.timeout stops the child and fails
        ro.timeout = 1e-3
        handle = ro.submit(weights, pool, 7)
        third = ro.pid
        with pytest.raises(RolloutProcessError, match=r"no result after rollout.timeout = 0.001 s"):
            ro.gather(handle)
        assert gone(third)
    finally:
        ro.close()


def test_no_rollout_process_outlives_the_trainer(tmp_path, monkeypatch):
    trainer = Trainer(config("rollout.backend=process", "budget.iterations=3"), str(tmp_path / "r"), progress=False)
    pids = []

    def failing_update(*args, **kwargs):
        pids.append(trainer.rollout.pid)  # the next rollout is in flight now
        raise RuntimeError("update failed")

    monkeypatch.setattr("training.trainer.ppo_update", failing_update)
    with pytest.raises(RuntimeError, match="update failed"):
        trainer.run()
    assert pids and pids[0] is not None and gone(pids[0])
    assert trainer.rollout.pid is None


def test_auto_backend_uses_the_process_only_with_two_free_cpus_and_enough_shared_memory(monkeypatch):
    from training import trainer as trainer_mod

    cfg = config()
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0})
    assert trainer_mod.default_backend(cfg) == "local"
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1})
    assert trainer_mod.default_backend(cfg) == "process"
    assert load_config(SMOKE).rollout.backend == "auto" and load_config(SMOKE).rollout.lag == 1
    # /dev/shm capped (Docker's default 64 MB) below what the default config's rows need
    full = os.statvfs("/dev/shm")
    capped = os.statvfs_result((full.f_bsize, 4096, 0, 0, 16384, 0, 0, 0, 0, 255))  # 64 MB free
    monkeypatch.setattr(os, "statvfs", lambda path: capped)
    big = load_config("configs/default.yaml")
    assert trainer_mod.default_backend(big) == "local"
    with pytest.raises(RolloutProcessError, match=r"needs 90 MB of shared memory .* /dev/shm has 64 MB free; "
                                                  r"enlarge it \(docker run --shm-size=...\) or set rollout.backend: local"):
        ProcessRollout(big, big.make_rules()).submit({}, [], 0)


def test_resume_keeps_the_lag_of_the_run(tmp_path):
    run_dir = str(tmp_path / "r")
    _run(run_dir, TINY + ["rollout.backend=local", "rollout.lag=0", "budget.iterations=1"])
    args = train.parse_args(["--resume", run_dir, "--set", "rollout.lag=1"])
    with pytest.raises(ConfigError, match=r"rollout.lag: this run was trained with lag 0, not 1; resume it with "
                                        r"--set rollout.lag=0"):
        train.setup(args)


def test_privileged_critic_rows_cross_the_process_with_the_hidden_hands(tmp_path):
    local = Trainer(config("rollout.backend=local", "rollout.lag=1", "model.critic=privileged"), str(tmp_path / "a"),
                    progress=False)
    pipe = Trainer(config("rollout.backend=process", "rollout.lag=1", "model.critic=privileged"), str(tmp_path / "b"),
                   progress=False)
    try:
        for _ in range(3):
            local.iteration()
            pipe.iteration()
        assert_same_weights(weights_of(pipe.model), weights_of(local.model))
        job = pipe.inflight
        batch = pipe.rollout.gather(job.handle)
        expected = LocalRollout(pipe.cfg, pipe.rules).collect(job.weights, job.pool,
                                                              iteration_seed(pipe.cfg.env.seed, job.iteration))
        assert_same_data(batch, expected)
        np.testing.assert_array_equal(batch.priv, expected.priv)
        assert batch.priv.shape == (len(batch), 156) and batch.priv.sum(1).max() == 39  # 3 x 13 at a first bid
    finally:
        pipe.close()
        local.close()
