"""The Ray rollout backend: same data as the local backend, reproducible, survives lost workers.

Tests marked ``ray`` need the extra (``pip install -e ".[ray]"``) and share one local
Ray instance per module, since starting Ray takes seconds.
"""
from __future__ import annotations

import math
import sys

import numpy as np
import pytest
import torch

from agents.model import ActorCritic
from tarneeb_env import OBS_SIZE
from training.batch import Batch
from training.config import Config, load_config
from training.league import League
from training.ray_rollout import RayRollout, import_ray, merge_results, worker_seed
from training.rollout import LocalRollout

FIELDS = ("obs", "mask", "actions", "logp", "values", "advantages", "returns")
TINY = ["env.num_games=6", "env.rollout_steps=70", "model.hidden=[16]",
        "selfplay.weights={current: 0.4, snapshots: 0.3, rule: 0.3}"]
SEED = 1234


@pytest.fixture(scope="module")
def setup():
    cfg = load_config("configs/smoke.yaml", TINY)
    torch.manual_seed(0)
    weights = ActorCritic(cfg.model.hidden).state_dict()
    pool = League(cfg.selfplay.weights, max_snapshots=2)
    torch.manual_seed(1)
    pool.add_snapshot(1, ActorCritic(cfg.model.hidden).state_dict())
    return cfg, weights, pool.entries()


@pytest.fixture(scope="module")
def ray_rollout(ray_session, setup):
    cfg = setup[0]
    ro = RayRollout(cfg, cfg.make_rules(), workers=2, timeout=120)
    yield ro
    ro.close()


@pytest.fixture(scope="module")
def baseline(ray_rollout, setup):
    _, weights, pool = setup
    return ray_rollout.collect(weights, pool, SEED)


def assert_same(a: Batch, b: Batch) -> None:
    for f in FIELDS:
        np.testing.assert_array_equal(getattr(a, f), getattr(b, f), err_msg=f)


@pytest.mark.ray
def test_two_workers_return_local_data_in_worker_order(baseline, setup):
    cfg, weights, pool = setup
    local = LocalRollout(cfg, cfg.make_rules())
    parts = [local.collect(weights, pool, worker_seed(SEED, k)) for k in range(2)]
    for f in FIELDS:
        assert getattr(baseline, f).dtype == getattr(parts[0], f).dtype
    assert_same(baseline, merge_results(parts, 0.0))
    assert baseline.obs.shape == (sum(len(p.actions) for p in parts), OBS_SIZE)
    assert baseline.stats["decisions"] == 2 * 6 * 70
    assert baseline.stats["workers"] == 2.0
    assert set(parts[0].stats) <= set(baseline.stats)


@pytest.mark.ray
def test_same_seed_same_data_and_snapshots_put_once(ray_rollout, baseline, setup):
    _, weights, pool = setup
    refs = dict(ray_rollout._snapshot_refs)
    assert list(refs) == ["snapshot:1"]
    assert_same(ray_rollout.collect(weights, pool, SEED), baseline)
    assert ray_rollout._snapshot_refs == refs
    other = ray_rollout.collect(weights, pool, SEED + 1)
    assert not np.array_equal(other.actions[:50], baseline.actions[:50])


@pytest.mark.ray
def test_worker_killed_mid_collect_is_restarted(ray_session, ray_rollout, baseline, setup):
    _, weights, pool = setup
    pid = ray_session.get(ray_rollout.actors[0].pid.remote())
    handle = ray_rollout.submit(weights, pool, SEED)
    ray_session.kill(ray_rollout.actors[0], no_restart=False)
    assert_same(ray_rollout.gather(handle), baseline)
    assert ray_session.get(ray_rollout.actors[0].pid.remote()) != pid  # the same actor, restarted


@pytest.mark.ray
def test_worker_lost_for_good_is_replaced(ray_session, ray_rollout, baseline, setup):
    _, weights, pool = setup
    replaced = ray_rollout.replaced
    handle = ray_rollout.submit(weights, pool, SEED)
    ray_session.kill(ray_rollout.actors[1], no_restart=True)
    assert_same(ray_rollout.gather(handle), baseline)
    assert ray_rollout.replaced == replaced + 1


@pytest.mark.ray
def test_timed_out_worker_fails_the_iteration_instead_of_hanging(ray_rollout, setup, monkeypatch):
    _, weights, pool = setup
    monkeypatch.setattr(ray_rollout, "timeout", 1e-4)
    monkeypatch.setattr(ray_rollout, "retries", 1)
    replaced = ray_rollout.replaced
    with pytest.raises(RuntimeError, match=r"rollout worker 0 failed 2 times; last error: GetTimeoutError"):
        ray_rollout.collect(weights, pool, SEED)
    assert ray_rollout.replaced == replaced + 1


def test_missing_ray_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # makes `import ray` raise ImportError
    with pytest.raises(ImportError, match=r'pip install -e "\.\[ray\]"'):
        import_ray()
    with pytest.raises(ImportError, match=r"rollout\.backend: ray needs Ray"):
        RayRollout(Config.model_construct(), None)  # a placeholder: no budget, so not a valid config


def test_worker_seeds_depend_on_seed_and_index_only():
    assert worker_seed(77, 0) == 77  # one worker replays the local backend
    seeds = [worker_seed(77, k) for k in range(4)]
    assert len(set(seeds)) == 4 and seeds == [worker_seed(77, k) for k in range(4)]
    assert worker_seed(78, 1) != seeds[1]


def test_merge_adds_counts_and_weights_rates_by_hands():
    def part(n, hands, reward, bid):
        arr = np.full(n, n, dtype=np.float32)
        return Batch(np.zeros((n, OBS_SIZE), np.float32), np.zeros((n, 70), bool), arr.astype(np.int64),
                             arr, arr, arr, arr,
                             {"decisions": 10.0 * n, "learned_decisions": float(n), "hands": hands,
                              "mean_hand_reward": reward, "avg_bid": bid, "contracts_made": bid,
                              "declared_share": bid, "pass_rate": bid, "agent_seconds": float(n),
                              "rollout_cpu_seconds": float(n)})
    m = merge_results([part(2, 1.0, 4.0, 8.0), part(3, 3.0, 0.0, math.nan)], seconds=1.5)
    assert m.actions.tolist() == [2, 2, 3, 3, 3]
    assert m.stats["decisions"] == 50.0 and m.stats["learned_decisions"] == 5.0 and m.stats["hands"] == 4.0
    assert m.stats["mean_hand_reward"] == 1.0  # (4*1 + 0*3) / 4
    assert m.stats["avg_bid"] == 8.0  # the NaN worker has no contracts
    assert m.stats["agent_seconds"] == 2.5 and m.stats["rollout_seconds"] == 1.5
    assert m.stats["rollout_cpu_seconds"] == 5.0  # the workers' CPU time adds up


def test_ray_config_file_selects_the_ray_backend():
    cfg = load_config("tests/configs/ray.yaml")
    assert cfg.rollout.backend == "ray" and cfg.rollout.workers >= 2
