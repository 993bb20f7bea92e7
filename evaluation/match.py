"""Matches and round robins: argument checks, agent loading, chunks in-process or on a process pool."""
from __future__ import annotations

import contextlib
import itertools
import multiprocessing
import signal
import sys
import warnings
from collections.abc import Sequence
from typing import Any, Union

import numpy as np

import agents as agent_lib
from tarneeb_env import make_rules

from .deals import _DEALS, _GAMES
from .results import MatchResult, RoundRobinResult
from .stats import CI_METHODS, AgentStats, fit_ratings, margin_ci95
from .tables import (
    DEALS_PER_BATCH,
    GAMES_PER_BATCH,
    _ChunkResult,
    _run_deals,
    _run_games,
)

AgentLike = Union[str, Any]


class EvaluationInputError(ValueError):
    """Bad arguments, rules or agent specs, found before any deal is played."""


# Per-process state of a worker: the entries (specs or agent objects) resolved once.
_WORKER: dict[str, Any] = {}


@contextlib.contextmanager
def one_torch_thread():
    """Every table decides with one torch thread, in-process and in each worker: float sums then run in the
    same order whatever ``workers`` is, so a network agent's choices (and so the results) do not depend on it."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def _init_worker(entries, names, rules, seed, keep_records, pool_size) -> None:
    import torch

    from agents import cores, dds

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's: it keeps the finished chunks
    torch.set_num_threads(1)  # see one_torch_thread; W processes x several threads would also oversubscribe
    dds.set_threads(max(1, cores.usable_cores() // pool_size))  # expert/search's solver: W shares of the cores
    warnings.simplefilter("ignore", agent_lib.RulesOverrideWarning)  # the parent warned once already
    loaded = [load_agent(e, rules, name) for e, name in zip(entries, names)]
    _WORKER.update(_state(loaded, names, rules, seed, keep_records))


def _state(loaded, names, rules, seed, keep_records) -> dict[str, Any]:
    return {"agents": loaded, "names": names, "rules": rules, "seed": seed, "keep_records": keep_records}


def _run_task(task, state: dict[str, Any], progress=None) -> _ChunkResult:
    kind, i, j, chunk, start, stop = task
    role_agents = (state["agents"][i], state["agents"][j])
    names = (state["names"][i], state["names"][j])
    run = _run_deals if kind == _DEALS else _run_games
    return run(role_agents, names, state["rules"], state["seed"], start, stop, chunk, state["keep_records"], progress)


def _run_task_in_worker(task) -> _ChunkResult:
    return _run_task(task, _WORKER)


def agent_names(entries: Sequence[AgentLike]) -> list[str]:
    """Display names: the spec string or the agent's ``name``; repeats get ' (2)', ' (3)', ..."""
    names: list[str] = []
    for e in entries:
        base = e if isinstance(e, str) else str(getattr(e, "name", type(e).__name__))
        name, k = base, 1
        while name in names:
            k += 1
            name = f"{base} ({k})"
        names.append(name)
    return names


def load_agent(entry: AgentLike, rules=None, name: str = ""):
    """An agent object from a spec (``agents.load(spec, rules=rules)``) or the object itself, refused like a spec
    when its ``.rules`` differ from ``rules``; any failure is a ``ValueError`` of one line."""
    if not isinstance(entry, str):
        if not callable(getattr(entry, "act", None)):
            raise ValueError(f"{entry!r} is not an agent: it has no act(observation, view) method")
        return agent_lib.check_rules(entry, rules, name or agent_names([entry])[0])
    try:
        return agent_lib.load(entry, rules=rules)
    except Exception as e:
        from agents.checkpoint import CheckpointError  # here, so that importing evaluation needs no torch

        if isinstance(e, (agent_lib.AgentSpecError, agent_lib.RulesMismatchError, CheckpointError,
                          agent_lib.EngineError)):
            raise  # their one line names the spec or the file
        raise ValueError(f"cannot load agent {entry!r}: {type(e).__name__}: {e}") from None  # user code failing


def round_robin(
    entries: Sequence[AgentLike],
    deals: int = 2000,
    seed: int = 0,
    rules: Any = "classic",
    workers: int = 1,
    games: int = 0,
    records: bool = False,
    progress: bool = False,
    batch: int = DEALS_PER_BATCH,
    ci: str = "normal",
) -> RoundRobinResult:
    """Every pair of ``entries`` (agent objects or specs) on the same ``deals`` duplicate deals.

    ``batch`` deals run in lockstep per chunk (a neural agent's batch is up to
    2 x batch observations). Agent objects are re-seeded and reset at each
    chunk; with ``workers > 1`` they are pickled to spawned processes, specs are
    loaded there. Every agent must be made for ``rules`` (see ``agents.load``): one
    trained for other rules is refused, unless its spec ends in ``?rules=any``.
    A KeyboardInterrupt after the first chunk returns what was finished, with
    ``complete`` False (before it, the interrupt propagates); so does an external engine's fault
    (:class:`agents.EngineError`), its line kept as the result's ``fault``. ``ci`` is the
    margin intervals' method: ``normal`` or ``bootstrap`` (see :mod:`evaluation.stats`).
    """
    try:
        if len(entries) < 2:
            raise ValueError(f"need at least two agents, got {len(entries)}")
        counts = (("deals", deals, 1), ("games", games, 0), ("workers", workers, 1), ("batch", batch, 1))
        for name, value, low in counts:
            if not isinstance(value, (int, np.integer)) or value < low:
                raise ValueError(f"{name}: expected an int >= {low}, got {value!r}")
        if not isinstance(seed, (int, np.integer)) or seed < 0:
            raise ValueError(f"seed: expected an int >= 0, got {seed!r}")
        if ci not in CI_METHODS:
            raise ValueError(f"ci: expected one of {', '.join(CI_METHODS)}, got {ci!r}")
        rules = make_rules(rules)
        names = agent_names(entries)
        loaded = [load_agent(e, rules, name) for e, name in zip(entries, names)]
    except ValueError as e:
        raise EvaluationInputError(str(e)) from None
    pair_index = list(itertools.combinations(range(len(entries)), 2))
    tasks = []
    for i, j in pair_index:
        for chunk, start in enumerate(range(0, deals, batch)):
            tasks.append((_DEALS, i, j, chunk, start, min(start + batch, deals)))
        for chunk, start in enumerate(range(0, games, GAMES_PER_BATCH)):
            tasks.append((_GAMES, i, j, chunk, start, min(start + GAMES_PER_BATCH, games)))

    from tqdm import tqdm

    bar = tqdm(total=len(pair_index) * (deals + games), file=sys.stderr, disable=not progress, unit="deal")
    results: list[_ChunkResult] = []
    fault = None
    try:
        if workers == 1 or len(tasks) == 1:
            state = _state(loaded, names, rules, int(seed), records)
            with one_torch_thread():
                for task in tasks:
                    moved = _ChunkBar(bar, task[5] - task[4])  # in-process, a shown bar moves within the chunk too
                    result = _run_task(task, state, moved if progress else None)  # no bar: no per-step tally
                    _finished(result, results, moved, len(pair_index) == 1)
        else:
            ctx = multiprocessing.get_context("spawn")
            pool_size = min(workers, len(tasks))
            initargs = (list(entries), names, rules, int(seed), records, pool_size)
            with ctx.Pool(pool_size, initializer=_init_worker, initargs=initargs) as pool:
                for task, result in zip(tasks, pool.imap(_run_task_in_worker, tasks)):
                    _finished(result, results, _ChunkBar(bar, task[5] - task[4]), len(pair_index) == 1)
    except (KeyboardInterrupt, agent_lib.EngineError) as e:
        fault = str(e) if isinstance(e, agent_lib.EngineError) else None
        # Ctrl-C (or an engine's fault) in an hour-long evaluation keeps the chunks already played: they are a
        # prefix of the tasks, so each pair's finished deals are exactly what a shorter --deals run of the same seed plays
        if not any(t[0] == _DEALS for t in tasks[: len(results)]):
            raise
    finally:
        bar.close()
    complete = len(results) == len(tasks)

    matches = []
    for i, j in pair_index:
        mine = [r for t, r in zip(tasks, results) if (t[1], t[2]) == (i, j)]
        if not any(len(r.margins) for r in mine):
            continue  # interrupted before this pair played
        stats = (AgentStats(), AgentStats())
        for r in mine:
            stats[0].add(r.stats[0])
            stats[1].add(r.stats[1])
        matches.append(
            MatchResult(
                agents=(names[i], names[j]),
                rules=rules,
                seed=int(seed),
                margins=np.concatenate([r.margins for r in mine]),
                stats=stats,
                games_played=sum(r.games_played for r in mine),
                a_won=sum(r.a_won for r in mine),
                b_won=sum(r.b_won for r in mine),
                records=[rec for r in mine for rec in r.records] if records else None,
                ci=ci,
            )
        )
    ratings = fit_ratings(names, [(m.agents[0], m.agents[1], m.margin) for m in matches])
    return RoundRobinResult(names, matches, ratings, complete, fault)


class _ChunkBar:
    """One chunk's share of the progress bar (its ``size`` deals or games): called with the fraction done, it
    moves the bar by the whole deals reached since the last call. Within a chunk that is deals' worth of cards
    played (its lockstep tables end together), so the bar moves while an hour-long chunk plays."""

    def __init__(self, bar, size: int):
        self.bar, self.size, self.shown = bar, size, 0

    def __call__(self, fraction: float) -> None:
        reached = min(self.size, int(fraction * self.size))
        if reached > self.shown:
            self.bar.update(reached - self.shown)
            self.shown = reached


def _finished(result: _ChunkResult, results: list[_ChunkResult], moved: _ChunkBar, one_pair: bool) -> None:
    """Keep a chunk's result and move the bar to its end; in a match the bar shows the margin so far, with its
    interval."""
    results.append(result)
    moved(1.0)
    if one_pair:
        margins = np.concatenate([r.margins for r in results])
        ci = margin_ci95(margins)
        moved.bar.set_postfix_str(f"margin {np.mean(margins):+.2f}" + (f" [{ci[0]:+.2f}, {ci[1]:+.2f}]" if ci else ""))


def duplicate_match(
    agent_a: AgentLike,
    agent_b: AgentLike,
    deals: int = 2000,
    seed: int = 0,
    rules: Any = "classic",
    workers: int = 1,
    games: int = 0,
    records: bool = False,
    progress: bool = False,
    batch: int = DEALS_PER_BATCH,
    ci: str = "normal",
) -> MatchResult:
    """A vs B on ``deals`` duplicate deals (and ``games`` whole games); see :func:`round_robin`."""
    return round_robin(
        [agent_a, agent_b], deals, seed, rules, workers, games, records, progress, batch, ci
    ).pairs[0]
