"""Self-play rollouts spread over Ray actors, behind the same ``collect`` as :class:`LocalRollout`.

Each worker is a Ray actor holding a :class:`LocalRollout` (the batch engine with
a CPU copy of the policy, ``env.num_games`` games). Per iteration the learner
puts the weights in Ray's object store once, shared by every worker; each
opponent-pool snapshot is put once in its lifetime and reaches the workers the
same way. Results come back as numpy :class:`Batch` es and
are concatenated in worker order, so an iteration plays
``workers x env.num_games x env.rollout_steps`` decisions.

Reproducible: worker ``k`` collects with seed :func:`worker_seed` ``(seed, k)``
(worker 0 uses the iteration seed itself, so one Ray worker replays the local
backend exactly), and a collection depends only on (weights, pool, seed), so a
retried task returns what the lost one would have.

Fault tolerant: actors restart on death (``max_restarts``) and Ray re-runs
their interrupted task (``max_task_retries``). A task that still fails, or
outlives ``timeout`` seconds (a hung or unreachable worker), is resubmitted on
a fresh actor, up to ``retries`` times; then the iteration fails with an error
naming the worker, instead of hanging.

Ray is an optional extra; without it, constructing :class:`RayRollout` raises
an ImportError saying how to install it.
"""
from __future__ import annotations

import math
import os
import time
from typing import Any, Optional

import numpy as np
import torch

from tarneeb_env import Rules

from .batch import Batch
from .config import Config
from .rollout import MARGIN_HANDS, MARGIN_SUM, LocalRollout, PoolEntry
from .seeds import worker_seed

INSTALL_HINT = ('rollout.backend: ray needs Ray, which is not installed; install the extra with '
                '`pip install -e ".[ray]"` (or `pip install "ray>=2.9"`)')
SUMMED = ("decisions", "learned_decisions", "hands", "rollout_cpu_seconds")


def import_ray():
    """``import ray``, or an ImportError that says how to install the extra."""
    try:
        import ray
    except ImportError as e:
        raise ImportError(INSTALL_HINT) from e
    return ray


class RolloutWorker:
    """The body of one Ray actor: a :class:`LocalRollout` on one CPU thread."""

    def __init__(self, cfg: Config, rules: Rules, threads: int = 1):
        torch.set_num_threads(threads)
        self.rollout = LocalRollout(cfg, rules)

    def collect(self, weights: dict[str, torch.Tensor], pool: list[PoolEntry], seed: int) -> Batch:
        ray = import_ray()
        pool = [PoolEntry(e.name, e.weight, ray.get(e.state_dict) if isinstance(e.state_dict, ray.ObjectRef)
                          else e.state_dict) for e in pool]
        return self.rollout.collect(weights, pool, seed)

    def pid(self) -> int:
        return os.getpid()


def merge_results(results: list[Batch], seconds: float) -> Batch:
    """Concatenate worker results in order; counts add up, other statistics are averaged.

    Counts (``decisions``, ``learned_decisions``, ``hands``) are summed, ``agent_seconds``
    averaged over workers, ``rollout_seconds`` is the learner's wall time, and every other
    statistic is a rate averaged weighted by each worker's hands (NaN workers left out): exact
    for ``mean_hand_reward``, a close approximation for rates with other denominators.
    """
    stats: dict[str, float] = {}
    league = sorted({k for r in results for k in r.stats if k.startswith((MARGIN_SUM, MARGIN_HANDS))})
    for k in league:  # per pool entry: a worker that met an entry in no finished hand has no key for it
        stats[k] = float(sum(r.stats.get(k, 0.0) for r in results))
    for k in results[0].stats:
        if k in league:
            continue
        if k in SUMMED:
            stats[k] = float(sum(r.stats[k] for r in results))
        elif k == "agent_seconds":
            stats[k] = float(np.mean([r.stats[k] for r in results]))
        elif k != "rollout_seconds":
            pairs = [(r.stats[k], r.stats["hands"]) for r in results
                     if r.stats["hands"] and not math.isnan(r.stats[k])]
            total = sum(h for _, h in pairs)
            stats[k] = sum(v * h for v, h in pairs) / total if total else float("nan")
    stats["rollout_seconds"] = seconds
    stats["workers"] = float(len(results))
    return Batch.concat(results, stats)


class RayRollout:
    """``workers`` Ray actors each running a :class:`LocalRollout`; a drop-in for it in the learner.

    ``address``: empty -> ``RAY_ADDRESS`` if set, else a new local Ray instance; ``auto`` or
    ``host:port`` -> an existing cluster. An already initialised Ray (e.g. in tests) is reused.
    ``num_cpus`` only sizes a new local instance.
    """

    def __init__(self, cfg: Config, rules: Rules, workers: int = 2, address: str = "",
                 timeout: float = 600.0, retries: int = 3, num_cpus: Optional[int] = None):
        if workers < 1:
            raise ValueError(f"rollout.workers: must be >= 1, got {workers}")
        if timeout <= 0:
            raise ValueError(f"rollout.timeout: must be > 0 seconds, got {timeout}")
        ray = self.ray = import_ray()
        if not ray.is_initialized():
            existing = address or os.environ.get("RAY_ADDRESS")
            ray.init(address=existing or None, num_cpus=None if existing else num_cpus, include_dashboard=False)
        self.cfg, self.rules = cfg, rules
        self.timeout, self.retries = timeout, retries
        self._actor_cls = ray.remote(num_cpus=1, max_restarts=retries, max_task_retries=retries)(RolloutWorker)
        self.actors = [self._new_actor() for _ in range(workers)]
        self._snapshot_refs: dict[str, Any] = {}
        self.replaced = 0  # actors replaced after a failed or timed-out task, over the run

    def _new_actor(self):
        return self._actor_cls.remote(self.cfg, self.rules)

    def _pool_arg(self, pool: list[PoolEntry]) -> list[PoolEntry]:
        """Pool entries with each snapshot's weights as an object-store reference, put once per snapshot."""
        live = {e.name for e in pool if e.kind == "snapshot"}
        self._snapshot_refs = {k: r for k, r in self._snapshot_refs.items() if k in live}
        out = []
        for e in pool:
            if e.kind == "snapshot":
                if e.name not in self._snapshot_refs:
                    self._snapshot_refs[e.name] = self.ray.put(e.state_dict)
                e = PoolEntry(e.name, e.weight, self._snapshot_refs[e.name])
            out.append(e)
        return out

    def submit(self, weights: dict[str, torch.Tensor], pool: list[PoolEntry], seed: int) -> dict[str, Any]:
        """Start one iteration's collection on every worker; :meth:`gather` waits for it."""
        cpu = {k: v.detach().cpu() for k, v in weights.items()}
        args = (self.ray.put(cpu), self._pool_arg(pool))
        seeds = [worker_seed(seed, k) for k in range(len(self.actors))]
        refs = [a.collect.remote(*args, s) for a, s in zip(self.actors, seeds)]
        return {"args": args, "seeds": seeds, "refs": refs, "start": time.perf_counter()}

    def gather(self, handle: dict[str, Any]) -> Batch:
        """Wait for every worker in order, resubmitting a failed or timed-out task on a fresh actor."""
        ray = self.ray
        results = []
        for k, ref in enumerate(handle["refs"]):
            for attempt in range(self.retries + 1):
                try:
                    results.append(ray.get(ref, timeout=self.timeout))
                    break
                except (ray.exceptions.RayActorError, ray.exceptions.GetTimeoutError) as e:
                    if attempt == self.retries:
                        raise RuntimeError(f"rollout worker {k} failed {self.retries + 1} times; "
                                           f"last error: {type(e).__name__}: {e}") from e
                    ray.kill(self.actors[k], no_restart=True)
                    self.actors[k] = self._new_actor()
                    self.replaced += 1
                    ref = self.actors[k].collect.remote(*handle["args"], handle["seeds"][k])
        return merge_results(results, time.perf_counter() - handle["start"])

    def collect(self, weights: dict[str, torch.Tensor], pool: list[PoolEntry], seed: int) -> Batch:
        """Same contract as :meth:`LocalRollout.collect`, over all workers."""
        return self.gather(self.submit(weights, pool, seed))

    def close(self) -> None:
        """Stop the workers (the Ray instance stays up for whoever started it)."""
        for a in self.actors:
            self.ray.kill(a, no_restart=True)
        self.actors = []
