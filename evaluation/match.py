"""Matches and round robins, in three steps: :func:`plan` each pair's lanes (its deals, then its games), :func:`run`
their chunks in this process or on a pool of workers, :func:`aggregate` each pair's chunks into its result.

One :class:`MatchSettings` carries what is the same for every pair (deals, seed, rules, workers, ...);
:func:`round_robin` and :func:`duplicate_match` take its fields as keywords.
"""
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
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Optional, Union

import numpy as np

import agents as agent_lib
from tarneeb_env import make_rules
from tarneeb_env.rules import RulesSpec

from .results import MatchResult, RoundRobinResult, Tally
from .schedule import Chunk, ChunkPlanner, InlineRunner, PoolRunner, run_chunks
from .stats import CI_METHODS, fit_ratings, margin_ci95
from .tables import DEALS_PER_BATCH, GAMES_PER_BATCH, play_deals, play_games

AgentLike = Union[str, Any]
log = logging.getLogger(__name__)


class EvaluationInputError(ValueError):
    """Bad arguments, rules or agent specs, found before any deal is played."""


@dataclass(frozen=True)
class MatchSettings:
    """How every pair of a match or round robin plays: ``deals`` duplicate deals (and ``games`` whole games) of
    ``seed`` under ``rules``, on ``workers`` processes in chunks of at most ``batch`` deals; ``records`` keeps the
    hand records, ``progress`` shows a bar, ``ci`` is the margin intervals' method (``normal`` or ``bootstrap``).

    Checked when made (a bad value raises :class:`EvaluationInputError` of one line); ``rules`` (a preset name,
    a .yaml path, a dict or a Rules) is then a Rules, and ``seed`` a Python int."""

    deals: int = 2000
    seed: int = 0
    rules: RulesSpec = "classic"
    workers: int = 1
    games: int = 0
    records: bool = False
    progress: bool = False
    batch: int = DEALS_PER_BATCH
    ci: str = "normal"

    def __post_init__(self) -> None:
        for name, low in (("deals", 1), ("games", 0), ("workers", 1), ("batch", 1), ("seed", 0)):
            value = getattr(self, name)
            if not isinstance(value, (int, np.integer)) or value < low:
                raise EvaluationInputError(f"{name}: expected an int >= {low}, got {value!r}")
        if self.ci not in CI_METHODS:
            raise EvaluationInputError(f"ci: expected one of {', '.join(CI_METHODS)}, got {self.ci!r}")
        try:
            rules = make_rules(self.rules)
        except ValueError as e:
            raise EvaluationInputError(str(e)) from None
        object.__setattr__(self, "rules", rules)  # frozen: set once, here
        object.__setattr__(self, "seed", int(self.seed))


def duplicate_match(agent_a: AgentLike, agent_b: AgentLike, **options: Any) -> MatchResult:
    """A vs B on ``deals`` duplicate deals (and ``games`` whole games); ``options`` are :class:`MatchSettings`'
    fields. See :func:`round_robin`."""
    return round_robin([agent_a, agent_b], **options).pairs[0]


def round_robin(entries: Sequence[AgentLike], **options: Any) -> RoundRobinResult:
    """Every pair of ``entries`` (agent objects or specs) on the same ``deals`` duplicate deals; ``options`` are
    :class:`MatchSettings`' fields (``deals``, ``seed``, ``rules``, ``workers``, ``games``, ``records``,
    ``progress``, ``batch``, ``ci``).

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
        settings = MatchSettings(**options)
        names = agent_names(entries)
        loaded = [load_agent(e, settings.rules, name) for e, name in zip(entries, names)]
    except ValueError as e:
        raise EvaluationInputError(str(e)) from None
    lanes = plan(len(entries), settings)
    played, stopped = run(lanes, list(entries), names, loaded, settings)
    return aggregate(lanes, played, stopped, names, settings)


# ---- planning: what each pair plays


@dataclass(frozen=True)
class Lane:
    """One pair's duplicate deals (or whole games): ``units`` of them, at most ``cap`` to a chunk."""

    pair: tuple[int, int]
    games: bool
    units: int
    cap: int


def plan(agents: int, settings: MatchSettings) -> list[Lane]:
    """Every pair's lanes, pair by pair: its deals, then its games (when there are any)."""
    lanes = []
    for pair in itertools.combinations(range(agents), 2):
        lanes.append(Lane(pair, False, settings.deals, settings.batch))
        if settings.games:
            lanes.append(Lane(pair, True, settings.games, GAMES_PER_BATCH))
    return lanes


# ---- running: the lanes' chunks, in this process or on a pool of workers


@dataclass
class _Played:
    """A chunk's tally, with its play time where it ran and that process's id (for the scheduler and its log)."""

    tally: Tally
    seconds: float
    worker: int


@dataclass
class _Players:
    """What a process plays chunks with: the loaded agents, their names, the settings and the lanes."""

    agents: list[Any]
    names: list[str]
    settings: MatchSettings
    lanes: list[Lane]

    def play(self, chunk: Chunk) -> _Played:
        """Play ``chunk`` of its lane's pair, timed for the scheduler."""
        began = time.perf_counter()
        lane, s = self.lanes[chunk.lane], self.settings
        i, j = lane.pair
        play = play_games if lane.games else play_deals
        tally = play((self.agents[i], self.agents[j]), (self.names[i], self.names[j]), s.rules, s.seed,
                     chunk.start, chunk.stop, s.records)
        return _Played(tally, time.perf_counter() - began, os.getpid())


_WORKER: Optional[_Players] = None  # a pool worker's players, loaded once by _init_worker


def _init_worker(entries, names: list[str], settings: MatchSettings, lanes: list[Lane], pool_size: int) -> None:
    import torch

    from agents import cores, dds

    global _WORKER
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's: it keeps the finished chunks
    torch.set_num_threads(1)  # see one_torch_thread; W processes x several threads would also oversubscribe
    dds.set_threads(max(1, cores.usable_cores() // pool_size))  # expert/search's solver: W shares of the cores
    warnings.simplefilter("ignore", agent_lib.RulesOverrideWarning)  # the parent warned once already
    loaded = [load_agent(e, settings.rules, name) for e, name in zip(entries, names)]
    _WORKER = _Players(loaded, names, settings, lanes)


def _play_in_worker(chunk: Chunk) -> _Played:
    return _WORKER.play(chunk)


def run(lanes: list[Lane], entries: list[AgentLike], names: list[str], loaded: list[Any],
        settings: MatchSettings) -> tuple[dict[Chunk, Tally], Optional[BaseException]]:
    """Every lane's chunks played, in this process (``loaded``) or on a pool of spawned workers (which load
    ``entries`` themselves). Ctrl-C or an external engine's fault ends the run early: the chunks played so far
    come back with that exception."""
    pool_size = min(settings.workers, sum(lane.units for lane in lanes))
    planner = ChunkPlanner([(lane.units, lane.cap) for lane in lanes], pool_size)
    played: dict[Chunk, _Played] = {}
    bar, on_result = _progress(lanes, played, settings.progress)
    began = time.perf_counter()
    stopped: Optional[BaseException] = None
    try:
        if pool_size == 1:
            players = _Players(loaded, names, settings, lanes)
            with one_torch_thread():
                run_chunks(planner, InlineRunner(players.play), on_result)
        else:
            ctx = multiprocessing.get_context("spawn")
            initargs = (entries, names, settings, lanes, pool_size)
            with ctx.Pool(pool_size, initializer=_init_worker, initargs=initargs) as pool:
                run_chunks(planner, PoolRunner(pool, _play_in_worker), on_result)
    except (KeyboardInterrupt, agent_lib.EngineError) as e:
        stopped = e  # Ctrl-C (or an engine's fault) in an hour-long evaluation keeps the chunks already played
    finally:
        bar.close()
    _log_workers(played, time.perf_counter() - began)
    return {chunk: p.tally for chunk, p in played.items()}, stopped


def _progress(lanes: list[Lane], played: dict[Chunk, _Played], show: bool) -> tuple[Any, Callable]:
    """The progress bar (units played; a match's margin so far, with its interval) and the callback that keeps
    ``played`` and moves the bar as each chunk comes back."""
    from tqdm import tqdm

    bar = tqdm(total=sum(lane.units for lane in lanes), file=sys.stderr, disable=not show, unit="deal")
    one_pair = len({lane.pair for lane in lanes}) == 1

    def on_result(chunk: Chunk, result: _Played) -> None:
        played[chunk] = result
        bar.update(chunk.size)
        if one_pair and show:
            margins = np.concatenate([p.tally.margins for p in played.values()])
            if len(margins):
                ci = margin_ci95(margins)
                bar.set_postfix_str(f"margin {np.mean(margins):+.2f}"
                                    + (f" [{ci[0]:+.2f}, {ci[1]:+.2f}]" if ci else ""))

    return bar, on_result


def _log_workers(played: dict[Chunk, _Played], wall: float) -> None:
    """Log each process's chunks, units and busy time against the run's wall time (how evenly work was shared)."""
    for worker in sorted({p.worker for p in played.values()}):
        mine = [(c, p) for c, p in played.items() if p.worker == worker]
        busy = sum(p.seconds for _, p in mine)
        log.info("worker %d: %d chunks, %d units, busy %.2f s of %.2f s (idle %.2f s)", worker, len(mine),
                 sum(c.size for c, _ in mine), busy, wall, wall - busy)


# ---- aggregating: each pair's chunks into its result, and the ratings


def aggregate(lanes: list[Lane], played: dict[Chunk, Tally], stopped: Optional[BaseException], names: list[str],
              settings: MatchSettings) -> RoundRobinResult:
    """Each pair's result over its lanes' chunks from the first unit on without a gap (what a shorter run of the
    same seed plays; a pair with no deal finished is left out), and ratings fitted to the pairs' margins. A run
    that ``stopped`` before any deal was finished raises that exception again: there is nothing to report."""
    kept, reached = _from_the_first_unit(lanes, played)
    if stopped is not None and not any(reached[k] for k, lane in enumerate(lanes) if not lane.games):
        raise stopped
    matches = []
    for pair in dict.fromkeys(lane.pair for lane in lanes):
        mine = [tally for lane, tallies in zip(lanes, kept) if lane.pair == pair for tally in tallies]
        if any(len(tally.margins) for tally in mine):
            agents = (names[pair[0]], names[pair[1]])
            matches.append(MatchResult.sum(mine, agents=agents, rules=settings.rules, seed=settings.seed,
                                           ci=settings.ci))
    ratings = fit_ratings(names, [(m.agents[0], m.agents[1], m.margin) for m in matches])
    complete = reached == [lane.units for lane in lanes]
    fault = str(stopped) if isinstance(stopped, agent_lib.EngineError) else None
    return RoundRobinResult(names, matches, ratings, complete, fault)


def _from_the_first_unit(lanes: list[Lane], played: dict[Chunk, Tally]) -> tuple[list[list[Tally]], list[int]]:
    """Per lane, the tallies of its chunks from its first unit on without a gap, in order, and the unit reached."""
    kept: list[list[Tally]] = [[] for _ in lanes]
    reached = [0] * len(lanes)
    for chunk in sorted(played, key=lambda c: (c.lane, c.start)):
        if chunk.start == reached[chunk.lane]:
            kept[chunk.lane].append(played[chunk])
            reached[chunk.lane] = chunk.stop
    return kept, reached


# ---- the agents


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
