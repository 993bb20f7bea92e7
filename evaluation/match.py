"""Matches and round robins: argument checks, agent loading, chunks in-process or on a process pool."""
from __future__ import annotations

import contextlib
import itertools
import logging
import multiprocessing
import os
import signal
import sys
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Optional, Union

import numpy as np

import agents as agent_lib
from tarneeb_env import make_rules

from .deals import _DEALS, _GAMES
from .results import MatchResult, RoundRobinResult, Tally
from .schedule import Chunk, ChunkPlanner, InlineRunner, PoolRunner, run_chunks
from .stats import CI_METHODS, fit_ratings, margin_ci95
from .tables import DEALS_PER_BATCH, GAMES_PER_BATCH, play_deals, play_games

AgentLike = Union[str, Any]
log = logging.getLogger(__name__)


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


def _init_worker(entries, names, rules, seed, keep_records, lanes, pool_size) -> None:
    import torch

    from agents import cores, dds

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's: it keeps the finished chunks
    torch.set_num_threads(1)  # see one_torch_thread; W processes x several threads would also oversubscribe
    dds.set_threads(max(1, cores.usable_cores() // pool_size))  # expert/search's solver: W shares of the cores
    warnings.simplefilter("ignore", agent_lib.RulesOverrideWarning)  # the parent warned once already
    loaded = [load_agent(e, rules, name) for e, name in zip(entries, names)]
    _WORKER.update(_state(loaded, names, rules, seed, keep_records, lanes))


def _state(loaded, names, rules, seed, keep_records, lanes) -> dict[str, Any]:
    return {"agents": loaded, "names": names, "rules": rules, "seed": seed, "keep_records": keep_records,
            "lanes": lanes}


@dataclass
class _Played:
    """A chunk's tally, with its play time where it ran and that process's id (for the scheduler and its log)."""

    tally: Tally
    seconds: float
    worker: int


def _play(chunk: Chunk, state: dict[str, Any]) -> _Played:
    """Play ``chunk`` of its lane ``(kind, i, j)``, timed for the scheduler."""
    began = time.perf_counter()
    kind, i, j = state["lanes"][chunk.lane]
    role_agents = (state["agents"][i], state["agents"][j])
    names = (state["names"][i], state["names"][j])
    play = play_deals if kind == _DEALS else play_games
    tally = play(role_agents, names, state["rules"], state["seed"], chunk.start, chunk.stop, state["keep_records"])
    return _Played(tally, time.perf_counter() - began, os.getpid())


def _play_in_worker(chunk: Chunk) -> _Played:
    return _play(chunk, _WORKER)


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

    The deals are played in chunks of at most ``batch`` deals in lockstep (a
    neural agent's batch is up to 2 x batch observations), sized as they are
    handed to the ``workers`` (:mod:`evaluation.schedule`): full chunks for
    cheap agents, one-deal chunks for slow ones, so the workers end together and
    the progress bar moves per chunk. Agent objects are reset at each chunk, and
    an agent that is not ``deterministic`` is re-seeded before each decision from
    the deal, table and move (:mod:`evaluation.tables`): the results do not
    depend on ``workers``, ``batch`` or the split. With ``workers > 1`` agent
    objects are pickled to spawned processes, specs are loaded there. Every agent
    must be made for ``rules`` (see ``agents.load``): one trained for other rules
    is refused, unless its spec ends in ``?rules=any``. A KeyboardInterrupt after
    a deal was finished returns each pair's finished deals from the first on,
    with ``complete`` False (before it, the interrupt propagates); so does an
    external engine's fault (:class:`agents.EngineError`), its line kept as the
    result's ``fault``. ``ci`` is the margin intervals' method: ``normal`` or
    ``bootstrap`` (see :mod:`evaluation.stats`).
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
    lanes, sizes = [], []  # per lane (kind, i, j) and (units, most per chunk): each pair's deals, then its games
    for i, j in pair_index:
        for kind, units, cap in ((_DEALS, deals, batch), (_GAMES, games, GAMES_PER_BATCH)):
            if units:
                lanes.append((kind, i, j))
                sizes.append((units, cap))
    pool_size = min(workers, sum(n for n, _ in sizes))
    planner = ChunkPlanner(sizes, pool_size)

    from tqdm import tqdm

    bar = tqdm(total=len(pair_index) * (deals + games), file=sys.stderr, disable=not progress, unit="deal")
    played: dict[Chunk, _Played] = {}

    def on_result(chunk: Chunk, result: _Played) -> None:
        played[chunk] = result
        bar.update(chunk.size)
        if len(pair_index) == 1 and progress:  # a match shows its margin so far, with its interval
            margins = np.concatenate([r.tally.margins for r in played.values()])
            if len(margins):
                ci = margin_ci95(margins)
                bar.set_postfix_str(f"margin {np.mean(margins):+.2f}"
                                    + (f" [{ci[0]:+.2f}, {ci[1]:+.2f}]" if ci else ""))

    began = time.perf_counter()
    stopped: Optional[BaseException] = None
    try:
        if pool_size == 1:
            state = _state(loaded, names, rules, int(seed), records, lanes)
            with one_torch_thread():
                run_chunks(planner, InlineRunner(lambda chunk: _play(chunk, state)), on_result)
        else:
            ctx = multiprocessing.get_context("spawn")
            initargs = (list(entries), names, rules, int(seed), records, lanes, pool_size)
            with ctx.Pool(pool_size, initializer=_init_worker, initargs=initargs) as pool:
                run_chunks(planner, PoolRunner(pool, _play_in_worker), on_result)
    except (KeyboardInterrupt, agent_lib.EngineError) as e:
        stopped = e  # Ctrl-C (or an engine's fault) in an hour-long evaluation keeps the chunks already played
    finally:
        bar.close()
    _log_workers(played, time.perf_counter() - began)
    # per lane, the chunks from its first deal on without a gap: what a shorter --deals run of the same seed plays
    kept: list[list[Tally]] = [[] for _ in lanes]
    reached = [0] * len(lanes)
    for chunk in sorted(played, key=lambda c: (c.lane, c.start)):
        if chunk.start == reached[chunk.lane]:
            kept[chunk.lane].append(played[chunk].tally)
            reached[chunk.lane] = chunk.stop
    if stopped is not None and not any(reached[k] for k, lane in enumerate(lanes) if lane[0] == _DEALS):
        raise stopped  # nothing to report
    fault = str(stopped) if isinstance(stopped, agent_lib.EngineError) else None
    complete = reached == [n for n, _ in sizes]

    matches = []
    for i, j in pair_index:
        mine = [r for lane, results in zip(lanes, kept) if lane[1:] == (i, j) for r in results]
        if not any(len(r.margins) for r in mine):
            continue  # interrupted before this pair played
        tally = Tally.sum(mine)
        matches.append(MatchResult(**vars(tally), agents=(names[i], names[j]), rules=rules, seed=int(seed), ci=ci))
    ratings = fit_ratings(names, [(m.agents[0], m.agents[1], m.margin) for m in matches])
    return RoundRobinResult(names, matches, ratings, complete, fault)


def _log_workers(played: dict[Chunk, _Played], wall: float) -> None:
    """Log each process's chunks, units and busy time against the run's wall time (how evenly work was shared)."""
    for worker in sorted({r.worker for r in played.values()}):
        mine = [(c, r) for c, r in played.items() if r.worker == worker]
        busy = sum(r.seconds for _, r in mine)
        log.info("worker %d: %d chunks, %d units, busy %.2f s of %.2f s (idle %.2f s)", worker, len(mine),
                 sum(c.size for c, _ in mine), busy, wall, wall - busy)


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
