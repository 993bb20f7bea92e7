"""Duplicate evaluation: is agent A better than agent B, and by how much?

Every deal is played twice with the same cards and the same dealer: table 0
seats A at 0&2 and B at 1&3, table 1 the other way round. A's net at a table is
A's team score change minus B's over the deal (redeals after a throw-in
included); the deal's margin is the mean of the two tables, so the luck of the
cards cancels and only the difference in play counts.

Reproducibility. Deal ``i`` comes from ``SeedSequence(seed, spawn_key=(0, i))``
alone (dealer ``i % 4``); both tables reset their game generator from the same
derived seed and the engine uses it only for deals, so redeals are identical
too. Deals are played in fixed chunks of ``batch`` deals; at the start of each
chunk every agent is re-seeded from ``(seed, chunk, role)``. Results therefore
depend on the agents, rules, seed, deals and batch, never on ``workers``.

Speed. A chunk's tables run in lockstep in one process on the pure engine
(``TarneebGame`` + ``ObservationWriter``; the writer is left out when no agent
of the pair reads observations, see ``Agent.reads_observation``). Each step the
pending decisions are grouped by agent object and each agent gets one
``act_batch(observations, views)`` call, so a neural agent runs one forward
pass per step; views are built only for agents that read them.

``reset()``: one agent object serves all the tables of a chunk at once, so it
cannot be told "a new deal starts" per table. ``reset()`` is called once per
agent at the start of every chunk; agents must derive per-deal knowledge from
the observation or view they are given.

Statistics. The margin's 95% interval is the normal approximation over the
per-deal margins (mean +- 1.96 sd/sqrt(n)). ``--games G`` plays G whole games
to the target score in pairs (the two games of a pair get the same deal
sequence, A on the even seats in the first and the odd seats in the second);
A's game win rate has a Wilson 95% interval. With more than two agents every
pair plays the same deals (round robin) and each agent gets a rating: the
least-squares fit of rating[X] - rating[Y] to each pair's mean margin with
ratings summing to zero, in points per deal.

CLI: ``python evaluate.py A B [C ...] [--deals N] [--rules PRESET|file.yaml]
[--seed S] [--workers W] [--games G] [--out results.json] [--records hands.jsonl]``.
"""
from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import math
import multiprocessing
import os
import sys
from dataclasses import dataclass, field, fields
from collections.abc import Sequence
from typing import Any, Optional, Union

import numpy as np

import agents as agent_lib
from tarneeb_env import NUM_ACTIONS, IllegalActionError, Rules, make_rules
from tarneeb_env.cards import cards_of
from tarneeb_env.game import TarneebGame, deal_cards
from tarneeb_env.observation import ObservationWriter
from tarneeb_env.view import make_view

DEALS_PER_BATCH = 128  # duplicate deals (2 tables each) run in lockstep per chunk
GAMES_PER_BATCH = 32
MAX_DEALS_PER_TABLE = 50  # a duplicate table still throwing in after this many deals stops, scoring 0
MAX_DEALS_PER_GAME = 200  # a game not decided after this many deals is a draw
RATING_METHOD = "least squares: rating[X] - rating[Y] ~ mean margin of X vs Y (points per deal), ratings sum to 0"
MARGIN_CI_METHOD = "normal approximation over per-deal margins: mean +- 1.96 * sd / sqrt(n)"
GAMES_CI_METHOD = "Wilson score interval, 95%"
_DEALS, _GAMES, _AGENT_SEEDS = 0, 1, 2  # SeedSequence spawn-key purposes
_Z95 = 1.959963984540054

AgentLike = Union[str, Any]


# ------------------------------------------------------------------ the deal set
@dataclass(frozen=True)
class DuplicateDeal:
    """One deal of the set: the cards, the dealer, and the seed both tables' games reset with."""

    index: int
    dealer: int
    hands: tuple[tuple[int, ...], ...]
    exposed_card: int  # the dealer's last card (used when rules.trump == "last_card")
    game_seed: int


def duplicate_deal(seed: int, index: int) -> DuplicateDeal:
    """Deal ``index`` of the deal set named by ``seed`` (independent of everything else)."""
    deal_ss, game_ss = np.random.SeedSequence(seed, spawn_key=(_DEALS, index)).spawn(2)
    dealer = index % 4
    hands, last = deal_cards(np.random.default_rng(deal_ss), dealer)
    return DuplicateDeal(index, dealer, tuple(cards_of(h) for h in hands), last, int(game_ss.generate_state(1)[0]))


def _agent_seed(seed: int, kind: int, chunk: int, role: int) -> int:
    return int(np.random.SeedSequence(seed, spawn_key=(_AGENT_SEEDS, kind, chunk, role)).generate_state(1)[0])


# -------------------------------------------------------------------- statistics
@dataclass
class AgentStats:
    """Counters over the played hands at an agent's tables (duplicate deals only)."""

    hands: int = 0
    points: int = 0
    contracts: int = 0
    bid_sum: int = 0
    made: int = 0
    sets_inflicted: int = 0
    kaboots: int = 0
    declarer_hands: int = 0
    declarer_tricks: int = 0
    defender_hands: int = 0
    defender_tricks: int = 0
    thrown_in: int = 0

    def add(self, other: "AgentStats") -> None:
        for f in fields(self):
            setattr(self, f.name, getattr(self, f.name) + getattr(other, f.name))

    def to_dict(self) -> dict[str, Any]:
        def ratio(a: int, b: int, scale: float = 1.0) -> Optional[float]:
            return scale * a / b if b else None

        return {
            "hands": self.hands,
            "avg_points": ratio(self.points, self.hands),
            "contracts_won": self.contracts,
            "avg_bid": ratio(self.bid_sum, self.contracts),
            "contracts_made_pct": ratio(self.made, self.contracts, 100.0),
            "sets_inflicted": self.sets_inflicted,
            "kaboots": self.kaboots,
            "avg_tricks_declarer": ratio(self.declarer_tricks, self.declarer_hands),
            "avg_tricks_defender": ratio(self.defender_tricks, self.defender_hands),
            "thrown_in": self.thrown_in,
        }


STAT_DOCS = {
    "hands": "played hands at the agent's tables",
    "avg_points": "agent's team score change per played hand",
    "contracts_won": "team auction: auctions the agent's team won; individual bidding: the agent's bids",
    "avg_bid": "mean bid of those contracts",
    "contracts_made_pct": "% of those contracts made",
    "sets_inflicted": "opponents' contracts that failed",
    "kaboots": "hands in which the agent's team took all 13 tricks",
    "avg_tricks_declarer": "team auction: the agent's team's tricks when it declared",
    "avg_tricks_defender": "team auction: the agent's team's tricks when it defended",
    "thrown_in": "thrown-in deals at the agent's tables (shared with its opponent)",
}


def _tally(stats: dict[int, AgentStats], record: dict, seat_role: Sequence[int], auction: str) -> None:
    """Add one hand record to the per-role counters."""
    if record["thrown_in"]:
        for role in set(seat_role):
            stats[role].thrown_in += 1
        return
    team_role = (seat_role[0], seat_role[1])
    delta, tricks = record["score_delta"], record["tricks_won"]
    for team, role in enumerate(team_role):
        s = stats[role]
        s.hands += 1
        s.points += delta[team]
        s.kaboots += tricks[team] == 13
    if auction == "team":
        team = record["declarer"] & 1
        bid = record["bid"]
        made = tricks[team] >= bid
        decl, defn = stats[team_role[team]], stats[team_role[1 - team]]
        decl.contracts += 1
        decl.bid_sum += bid
        decl.made += made
        decl.declarer_hands += 1
        decl.declarer_tricks += tricks[team]
        defn.defender_hands += 1
        defn.defender_tricks += tricks[1 - team]
        defn.sets_inflicted += not made
    elif auction == "individual":
        for seat in range(4):
            bid = record["bids"][seat]
            made = record["tricks_by_seat"][seat] >= bid
            s = stats[seat_role[seat]]
            s.contracts += 1
            s.bid_sum += bid
            s.made += made
            stats[seat_role[seat ^ 1]].sets_inflicted += not made


def margin_ci95(margins: np.ndarray) -> Optional[list[float]]:
    """Normal-approximation 95% interval of the mean margin (None with fewer than 2 deals)."""
    n = len(margins)
    if n < 2:
        return None
    half = _Z95 * float(np.std(margins, ddof=1)) / math.sqrt(n)
    mean = float(np.mean(margins))
    return [mean - half, mean + half]


def wilson_ci95(wins: int, n: int) -> Optional[list[float]]:
    """Wilson 95% interval of a win rate (None when no games were played)."""
    if n == 0:
        return None
    from scipy.stats import binomtest

    ci = binomtest(wins, n).proportion_ci(0.95, method="wilson")
    return [float(ci.low), float(ci.high)]


# ------------------------------------------------------------------ match results
@dataclass
class MatchResult:
    """Result of A vs B: per-deal margins (A's point of view), game counts and per-agent counters."""

    agents: tuple[str, str]
    rules: Rules
    seed: int
    margins: np.ndarray
    stats: tuple[AgentStats, AgentStats]
    games_played: int = 0
    a_won: int = 0
    b_won: int = 0
    records: Optional[list[dict]] = None

    @property
    def deals(self) -> int:
        return len(self.margins)

    @property
    def margin(self) -> float:
        return float(np.mean(self.margins))

    @property
    def ci95(self) -> Optional[list[float]]:
        return margin_ci95(self.margins)

    @property
    def games_ci95(self) -> Optional[list[float]]:
        return wilson_ci95(self.a_won, self.games_played)

    def to_dict(self) -> dict[str, Any]:
        a, b = self.agents
        return {
            "agents": [a, b],
            "rules": self.rules.to_dict(),
            "rules_name": self.rules.name,
            "seed": self.seed,
            "deals": self.deals,
            "margin": {
                "mean": self.margin,
                "ci95": self.ci95,
                "sd": float(np.std(self.margins, ddof=1)) if self.deals > 1 else None,
                "method": MARGIN_CI_METHOD,
            },
            "games": {
                "played": self.games_played,
                "a_won": self.a_won,
                "b_won": self.b_won,
                "draws": self.games_played - self.a_won - self.b_won,
                "win_rate": self.a_won / self.games_played if self.games_played else None,
                "ci95": self.games_ci95,
                "method": GAMES_CI_METHOD,
            },
            "stats": {a: self.stats[0].to_dict(), b: self.stats[1].to_dict()},
        }


@dataclass
class RoundRobinResult:
    """Every pair on the same deals, plus a rating per agent fitted to the pairwise margins."""

    agents: list[str]
    pairs: list[MatchResult]
    ratings: dict[str, float] = field(default_factory=dict)

    def agent_stats(self) -> dict[str, AgentStats]:
        """Counters summed over all of each agent's pairs."""
        total = {name: AgentStats() for name in self.agents}
        for m in self.pairs:
            for name, s in zip(m.agents, m.stats):
                total[name].add(s)
        return total

    def to_dict(self) -> dict[str, Any]:
        first = self.pairs[0]
        return {
            "agents": list(self.agents),
            "rules": first.rules.to_dict(),
            "rules_name": first.rules.name,
            "seed": first.seed,
            "deals": first.deals,
            "pairs": [m.to_dict() for m in self.pairs],
            "ratings": dict(self.ratings),
            "rating_method": RATING_METHOD,
            "stats": {name: s.to_dict() for name, s in self.agent_stats().items()},
        }


def fit_ratings(names: Sequence[str], pairs: Sequence[tuple[str, str, float]]) -> dict[str, float]:
    """Least-squares ratings: rating[a] - rating[b] ~ margin for each (a, b, margin), sum of ratings 0."""
    index = {n: i for i, n in enumerate(names)}
    rows, rhs = [], []
    for a, b, m in pairs:
        row = np.zeros(len(names))
        row[index[a]], row[index[b]] = 1.0, -1.0
        rows.append(row)
        rhs.append(m)
    rows.append(np.ones(len(names)))
    rhs.append(0.0)
    solution = np.linalg.lstsq(np.array(rows), np.array(rhs), rcond=None)[0]
    return {n: float(solution[i]) for n, i in index.items()}


# ---------------------------------------------------------------- the lockstep run
class _Table:
    """One game in a lockstep batch; ``seat_role[s]`` is the role (0 = A, 1 = B) at seat s."""

    __slots__ = ("game", "writer", "seat_role", "whole_game", "delta", "records", "done", "tag")

    def __init__(self, rules: Rules, rng_seed, seat_role, whole_game: bool, tag: dict, observe: bool):
        self.writer = ObservationWriter() if observe else None
        self.game = TarneebGame(rules, np.random.default_rng(rng_seed), self.writer)
        self.seat_role = seat_role
        self.whole_game = whole_game
        self.delta = [0, 0]
        self.records: list[dict] = []
        self.done = False
        self.tag = tag

    def finish_deal(self, result) -> None:
        self.records.append(result.record)
        self.delta[0] += result.score_delta[0]
        self.delta[1] += result.score_delta[1]
        game = self.game
        if self.whole_game:
            over = result.game_over or game.deals >= MAX_DEALS_PER_GAME
        else:
            over = not result.thrown_in or game.deals >= MAX_DEALS_PER_TABLE
        if over:
            self.done = True
        else:
            game.next_deal()


def _act_batch(agent, observations: list, views: Sequence) -> list:
    batch = getattr(agent, "act_batch", None)
    if batch is not None:
        return list(batch(observations, views))
    return [agent.act(o, v) for o, v in zip(observations, views)]


def legal_masks(legals: Sequence[int]) -> np.ndarray:
    """int8 (n, 70) masks of n 70-bit legal-action ints in one numpy call (row i = ``legal_mask(legals[i])``)."""
    raw = np.frombuffer(b"".join(x.to_bytes(9, "little") for x in legals), dtype=np.uint8).reshape(len(legals), 9)
    return np.unpackbits(raw, axis=1, count=NUM_ACTIONS, bitorder="little").view(np.int8)


class _LazyViews(Sequence):
    """The PlayerViews of a group, each built on first access (agents reading only observations never pay).

    Valid during the ``act_batch`` call it is passed to: a view first read later would show a later state.
    """

    def __init__(self, tables: list[_Table]):
        self._tables = tables
        self._views: list = [None] * len(tables)

    def __len__(self) -> int:
        return len(self._tables)

    def __iter__(self):
        for i in range(len(self._tables)):
            yield self[i]

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        view = self._views[i]
        if view is None:
            game = self._tables[i].game
            view = self._views[i] = make_view(game, game.current)
        return view


def play_lockstep(tables: list[_Table], role_agents: Sequence[Any], role_names: Sequence[str]) -> None:
    """Play every table to its end, one ``act_batch`` call per distinct agent object per step."""
    # roles played by the same object share one group (and one act_batch call)
    group_of = [next(r for r in range(len(role_agents)) if role_agents[r] is a) for a in role_agents]
    active = [t for t in tables if not t.done]
    while active:
        groups: dict[int, list[_Table]] = {}
        for t in active:
            key = group_of[t.seat_role[t.game.current]]
            group = groups.get(key)
            if group is None:
                groups[key] = [t]
            else:
                group.append(t)
        for role, group_tables in groups.items():
            masks = legal_masks([t.game.legal for t in group_tables])
            observations = [
                {"observation": None if t.writer is None else t.writer.buf[t.game.current].copy(),
                 "action_mask": masks[k]}
                for k, t in enumerate(group_tables)
            ]
            actions = _act_batch(role_agents[role], observations, _LazyViews(group_tables))
            if len(actions) != len(group_tables):
                raise RuntimeError(
                    f"agent {role_names[role]!r}: act_batch returned {len(actions)} actions for "
                    f"{len(group_tables)} observations"
                )
            for t, action in zip(group_tables, actions):
                try:
                    result = t.game.apply(action)
                except IllegalActionError as e:
                    raise IllegalActionError(f"agent {role_names[role]!r}: {e}") from None
                if result is not None:
                    t.finish_deal(result)
        active = [t for t in active if not t.done]


def _prepare_agents(role_agents: Sequence[Any], seed: int, kind: int, chunk: int) -> None:
    """Seed each distinct agent object from (seed, kind, chunk, role) and reset it: the start of a chunk."""
    seen = set()
    for role, agent in enumerate(role_agents):
        if id(agent) in seen:
            continue
        seen.add(id(agent))
        if callable(getattr(agent, "seed", None)):
            agent.seed(_agent_seed(seed, kind, chunk, role))
        if callable(getattr(agent, "reset", None)):
            agent.reset()


def _any_reads_observation(role_agents: Sequence[Any]) -> bool:
    """Whether the tables need observation writers (see ``Agent.reads_observation``)."""
    return any(getattr(a, "reads_observation", True) for a in role_agents)


@dataclass
class _ChunkResult:
    margins: np.ndarray
    stats: tuple[AgentStats, AgentStats]
    games_played: int = 0
    a_won: int = 0
    b_won: int = 0
    records: Optional[list[dict]] = None


def _seat_names(seat_role, names) -> list[str]:
    return [names[r] for r in seat_role]


_EVEN = (0, 1, 0, 1)  # A on seats 0 & 2
_ODD = (1, 0, 1, 0)  # A on seats 1 & 3


def _run_deals(role_agents, names, rules: Rules, seed: int, start: int, stop: int, chunk: int, keep_records: bool):
    _prepare_agents(role_agents, seed, _DEALS, chunk)
    observe = _any_reads_observation(role_agents)
    tables = []
    for i in range(start, stop):
        d = duplicate_deal(seed, i)
        for table, seat_role in enumerate((_EVEN, _ODD)):
            t = _Table(rules, d.game_seed, seat_role, False, {"deal_index": i, "table": table}, observe)
            t.game.new_game(d.dealer)
            t.game.start_deal([list(h) for h in d.hands], d.exposed_card)
            tables.append(t)
    play_lockstep(tables, role_agents, names)
    stats = {0: AgentStats(), 1: AgentStats()}
    records = [] if keep_records else None
    for t in tables:
        for k, rec in enumerate(t.records):
            _tally(stats, rec, t.seat_role, rules.auction)
            if keep_records:
                seats = _seat_names(t.seat_role, names)
                records.append({"pair": list(names), **t.tag, "redeal": k, "seats": seats, **rec})
    net = np.array([t.delta[0] - t.delta[1] if t.seat_role == _EVEN else t.delta[1] - t.delta[0] for t in tables])
    margins = (net[0::2] + net[1::2]) / 2.0
    return _ChunkResult(margins, (stats[0], stats[1]), records=records)


def _run_games(role_agents, names, rules: Rules, seed: int, start: int, stop: int, chunk: int, keep_records: bool):
    _prepare_agents(role_agents, seed, _GAMES, chunk)
    observe = _any_reads_observation(role_agents)
    tables = []
    for g in range(start, stop):
        pair = g // 2
        seat_role = _EVEN if g % 2 == 0 else _ODD
        t = _Table(rules, np.random.SeedSequence(seed, spawn_key=(_GAMES, pair)), seat_role, True, {"game_index": g},
                   observe)
        t.game.new_game(pair % 4)
        t.game.start_deal()
        tables.append(t)
    play_lockstep(tables, role_agents, names)
    a_won = b_won = 0
    records = [] if keep_records else None
    for t in tables:
        winner = t.game.winner
        if winner is not None:
            a_role_team = 0 if t.seat_role == _EVEN else 1
            a_won += winner == a_role_team
            b_won += winner != a_role_team
        if keep_records:
            for k, rec in enumerate(t.records):
                seats = _seat_names(t.seat_role, names)
                records.append({"pair": list(names), **t.tag, "hand_index": k, "seats": seats, **rec})
    empty = (AgentStats(), AgentStats())
    return _ChunkResult(np.zeros(0), empty, stop - start, a_won, b_won, records)


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


def _init_worker(entries, names, rules, seed, keep_records) -> None:
    import torch

    torch.set_num_threads(1)  # see one_torch_thread; W processes x several threads would also oversubscribe
    _WORKER.update(_state([load_agent(e) for e in entries], names, rules, seed, keep_records))


def _state(loaded, names, rules, seed, keep_records) -> dict[str, Any]:
    return {"agents": loaded, "names": names, "rules": rules, "seed": seed, "keep_records": keep_records}


def _run_task(task, state: dict[str, Any]) -> _ChunkResult:
    kind, i, j, chunk, start, stop = task
    role_agents = (state["agents"][i], state["agents"][j])
    names = (state["names"][i], state["names"][j])
    run = _run_deals if kind == _DEALS else _run_games
    return run(role_agents, names, state["rules"], state["seed"], start, stop, chunk, state["keep_records"])


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


def load_agent(entry: AgentLike):
    """An agent object from a spec (``agents.load``) or the object itself; any failure is a ``ValueError``."""
    if not isinstance(entry, str):
        if not callable(getattr(entry, "act", None)):
            raise ValueError(f"{entry!r} is not an agent: it has no act(observation, view) method")
        return entry
    try:
        return agent_lib.load(entry)
    except agent_lib.AgentSpecError:
        raise
    except Exception as e:  # user code or a checkpoint failing to load
        raise ValueError(f"cannot load agent {entry!r}: {type(e).__name__}: {e}") from None


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
) -> RoundRobinResult:
    """Every pair of ``entries`` (agent objects or specs) on the same ``deals`` duplicate deals.

    ``batch`` deals run in lockstep per chunk (a neural agent's batch is up to
    2 x batch observations). Agent objects are re-seeded and reset at each
    chunk; with ``workers > 1`` they are pickled to spawned processes, specs are
    loaded there.
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
        rules = make_rules(rules)
        loaded = [load_agent(e) for e in entries]
    except ValueError as e:
        raise EvaluationInputError(str(e)) from None
    names = agent_names(entries)
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
    if workers == 1 or len(tasks) == 1:
        state = _state(loaded, names, rules, int(seed), records)
        with one_torch_thread():
            for task in tasks:
                results.append(_run_task(task, state))
                bar.update(task[5] - task[4])
    else:
        ctx = multiprocessing.get_context("spawn")
        initargs = (list(entries), names, rules, int(seed), records)
        with ctx.Pool(min(workers, len(tasks)), initializer=_init_worker, initargs=initargs) as pool:
            for task, result in zip(tasks, pool.imap(_run_task_in_worker, tasks)):
                results.append(result)
                bar.update(task[5] - task[4])
    bar.close()

    matches = []
    for i, j in pair_index:
        mine = [r for t, r in zip(tasks, results) if (t[1], t[2]) == (i, j)]
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
            )
        )
    ratings = fit_ratings(names, [(m.agents[0], m.agents[1], m.margin) for m in matches])
    return RoundRobinResult(names, matches, ratings)


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
) -> MatchResult:
    """A vs B on ``deals`` duplicate deals (and ``games`` whole games); see :func:`round_robin`."""
    return round_robin(
        [agent_a, agent_b], deals, seed, rules, workers, games, records, progress, batch
    ).pairs[0]


# ----------------------------------------------------------------------- output
def _fmt(x: Optional[float], digits: int = 2) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def _fmt_ci(ci: Optional[list[float]], digits: int = 2, scale: float = 1.0) -> str:
    return "-" if ci is None else f"[{ci[0] * scale:.{digits}f}, {ci[1] * scale:.{digits}f}]"


def _stats_table(title: str, stats: dict[str, dict]):
    from rich.table import Table

    table = Table(title=title)
    table.add_column("statistic")
    for name in stats:
        table.add_column(name, justify="right")
    for key in STAT_DOCS:
        cells = []
        for s in stats.values():
            v = s[key]
            cells.append(_fmt(v) if isinstance(v, float) else ("-" if v is None else str(v)))
        table.add_row(key, *cells)
    return table


def _print_match(console, m: MatchResult) -> None:
    from rich.table import Table

    a, b = m.agents
    table = Table(title=f"{a} vs {b}: {m.deals} duplicate deals, rules {m.rules.name}, seed {m.seed}")
    table.add_column("measure")
    table.add_column("value", justify="right")
    table.add_column("95% interval", justify="right")
    table.add_row(f"margin of {a} (points per deal)", _fmt(m.margin), _fmt_ci(m.ci95))
    if m.games_played:
        rate = 100.0 * m.a_won / m.games_played
        draws = m.games_played - m.a_won - m.b_won
        table.add_row(
            f"{a} game wins ({m.a_won}-{m.b_won}, {draws} drawn of {m.games_played})",
            f"{rate:.1f}%",
            _fmt_ci(m.games_ci95, 1, 100.0),
        )
    console.print(table)
    console.print(f"margin interval: {MARGIN_CI_METHOD}" + (f"; games: {GAMES_CI_METHOD}" if m.games_played else ""))
    console.print(_stats_table("per-agent statistics (duplicate deals)", m.to_dict()["stats"]))


def _print_round_robin(console, rr: RoundRobinResult) -> None:
    from rich.table import Table

    first = rr.pairs[0]
    title = f"round robin: margin of row vs column, {first.deals} duplicate deals, rules {first.rules.name}"
    cross = Table(title=title)
    cross.add_column("")
    for name in rr.agents:
        cross.add_column(name, justify="right")
    by_pair = {m.agents: m for m in rr.pairs}
    for row in rr.agents:
        cells = []
        for col in rr.agents:
            if row == col:
                cells.append("")
                continue
            m, sign = (by_pair[(row, col)], 1) if (row, col) in by_pair else (by_pair[(col, row)], -1)
            ci = m.ci95
            half = "" if ci is None else f" ±{(ci[1] - ci[0]) / 2:.2f}"
            text = f"{sign * m.margin:+.2f}{half}"
            if m.games_played:
                wins = m.a_won if sign == 1 else m.b_won
                text += f"\n{100.0 * wins / m.games_played:.0f}% of games"
            cells.append(text)
        cross.add_row(row, *cells)
    console.print(cross)
    ratings = Table(title="ratings")
    ratings.add_column("agent")
    ratings.add_column("rating (points per deal)", justify="right")
    for name, r in sorted(rr.ratings.items(), key=lambda kv: -kv[1]):
        ratings.add_row(name, f"{r:+.2f}")
    console.print(ratings)
    console.print(f"ratings: {RATING_METHOD}; margin intervals: {MARGIN_CI_METHOD}")
    console.print(_stats_table("per-agent statistics (all pairs)", rr.to_dict()["stats"]))


# -------------------------------------------------------------------------- CLI
def _int_at_least(low: int):
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be at least {low}, got {value}")
        return value

    return parse


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="evaluate.py",
        description="Duplicate evaluation: each deal is played twice with the same cards and dealer, the agents "
        "swapping seats; the margin is A's net score per deal. With more than two agents: a round robin.",
    )
    p.add_argument("agents", nargs="+", metavar="AGENT",
                   help="agent spec: built-in name, checkpoint .pt, file.py:Name or module:Name (two or more)")
    p.add_argument("--deals", type=_int_at_least(1), default=2000, help="duplicate deals per pair (default 2000)")
    p.add_argument("--rules", default="classic", help="preset name or rules .yaml file (default classic)")
    p.add_argument("--seed", type=_int_at_least(0), default=0, help="names the deal set (default 0)")
    p.add_argument("--workers", type=_int_at_least(1), default=1, help="parallel processes (default 1)")
    p.add_argument("--games", type=_int_at_least(0), default=0, help="also play this many whole games per pair")
    p.add_argument("--out", help="write the results as JSON here")
    p.add_argument("--records", help="write every hand record as JSONL here")
    return p


def _check_writable(path: Optional[str], flag: str) -> None:
    if path is None:
        return
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise EvaluationInputError(f"{flag}: folder {folder} does not exist")
    if os.path.isdir(path):
        raise EvaluationInputError(f"{flag}: {path} is a folder")


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if len(args.agents) < 2:
        parser.error("give at least two agents")
    import torch

    torch.set_num_threads(1)  # batched inference of a small MLP; more threads only oversubscribe shared cores
    try:
        _check_writable(args.out, "--out")
        _check_writable(args.records, "--records")
        rr = round_robin(args.agents, args.deals, args.seed, args.rules, args.workers, args.games,
                         records=bool(args.records), progress=True)
    except EvaluationInputError as e:
        print(f"evaluate.py: error: {e}", file=sys.stderr)
        return 2
    except IllegalActionError as e:  # an agent broke the rules: its name, the action and the legal ones
        print(f"evaluate.py: error: {e}", file=sys.stderr)
        return 1

    from rich.console import Console

    console = Console()
    if len(args.agents) == 2:
        _print_match(console, rr.pairs[0])
        payload = rr.pairs[0].to_dict()
    else:
        _print_round_robin(console, rr)
        payload = rr.to_dict()
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump(payload, f, indent=2)
    if args.records:
        with open(args.records, "w", encoding="utf-8") as f:
            for m in rr.pairs:
                for rec in m.records:
                    f.write(json.dumps(rec) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
