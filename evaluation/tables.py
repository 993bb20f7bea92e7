"""The lockstep runner: a chunk's duplicate tables (or whole games) played together, seated by
:class:`agents.seating.Seating` (one ``act_batch`` call per agent per step)."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Optional

import numpy as np

from agents.seating import GameTables, Seating
from tarneeb_env import IllegalActionError, Rules
from tarneeb_env.cards import NUM_CARDS
from tarneeb_env.game import TarneebGame
from tarneeb_env.observation import ObservationWriter
from tarneeb_env.record import HandRecord

from .deals import _DEALS, _GAMES, _agent_seed, duplicate_deal
from .stats import AgentStats, _tally

DEALS_PER_BATCH = 128  # duplicate deals (2 tables each) run in lockstep per chunk
GAMES_PER_BATCH = 32
MAX_DEALS_PER_TABLE = 50  # a duplicate table still throwing in after this many deals stops, scoring 0
MAX_DEALS_PER_GAME = 200  # a game not decided after this many deals is a draw


class _Table:
    """One game in a lockstep batch; ``seat_role[s]`` is the role (0 = A, 1 = B) at seat s."""

    __slots__ = ("game", "writer", "seat_role", "whole_game", "delta", "records", "done", "tag")

    def __init__(self, rules: Rules, rng_seed, seat_role, whole_game: bool, tag: dict, observe: bool):
        self.writer = ObservationWriter() if observe else None
        self.game = TarneebGame(rules, np.random.default_rng(rng_seed), self.writer)
        self.seat_role = seat_role
        self.whole_game = whole_game
        self.delta = [0, 0]
        self.records: list[HandRecord] = []
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

    def progress(self) -> float:
        """How far the table is, 0 to 1: a duplicate table by the cards played of its deal (a thrown-in deal
        played none), a whole game only once it ends (a game's deals have no known number)."""
        if self.done:
            return 1.0
        return 0.0 if self.whole_game else len(self.game.played) / NUM_CARDS


def play_lockstep(tables: list[_Table], seating: Seating, progress: Optional[Callable[[float], None]] = None) -> None:
    """Play every table to its end; ``seating`` seats table i's roles (one ``act_batch`` per agent per step).
    ``progress``, if given, is called after each step with the tables' mean :meth:`_Table.progress`: a
    progress bar moves within a chunk, where an hour-long match with a slow agent spends most of its time."""
    engine = GameTables([t.game for t in tables], [t.writer for t in tables])
    active = [i for i, t in enumerate(tables) if not t.done]
    while active:
        seats = [tables[i].game.current for i in active]
        for i, seat, action in zip(active, seats, seating.act(active, seats, engine)):
            t = tables[i]
            try:
                result = t.game.apply(action)
            except IllegalActionError as e:
                raise IllegalActionError(f"agent {seating.name(i, seat)!r}: {e}") from None
            if result is not None:
                seating.deal_over(i, result.record)
                t.finish_deal(result)
        active = [i for i in active if not tables[i].done]
        if progress is not None:
            progress(sum(t.progress() for t in tables) / len(tables))


def _seating(role_agents: Sequence[Any], names: Sequence[str], seat_roles: list, seed: int, kind: int,
             chunk: int) -> Seating:
    """The chunk's roles at its tables, each distinct agent seeded from (seed, kind, chunk, role) and reset."""
    seating = Seating(role_agents, seat_roles, names)
    seating.start([_agent_seed(seed, kind, chunk, role) for role in range(len(role_agents))])
    return seating


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


def _run_deals(role_agents, names, rules: Rules, seed: int, start: int, stop: int, chunk: int, keep_records: bool,
               progress: Optional[Callable[[float], None]] = None):
    seating = _seating(role_agents, names, [_EVEN, _ODD] * (stop - start), seed, _DEALS, chunk)
    observe = seating.reads_observation
    tables = []
    for i in range(start, stop):
        d = duplicate_deal(seed, i)
        for table, seat_role in enumerate((_EVEN, _ODD)):
            t = _Table(rules, d.game_seed, seat_role, False, {"deal_index": i, "table": table}, observe)
            t.game.new_game(d.dealer)
            t.game.start_deal([list(h) for h in d.hands], d.exposed_card)
            tables.append(t)
    play_lockstep(tables, seating, progress)
    stats = {0: AgentStats(), 1: AgentStats()}
    records = [] if keep_records else None
    for t in tables:
        for k, rec in enumerate(t.records):
            _tally(stats, rec, t.seat_role, rules.auction)
            if keep_records:
                seats = _seat_names(t.seat_role, names)
                records.append({"pair": list(names), **t.tag, "redeal": k, "seats": seats, **rec.to_dict()})
    net = np.array([t.delta[0] - t.delta[1] if t.seat_role == _EVEN else t.delta[1] - t.delta[0] for t in tables])
    margins = (net[0::2] + net[1::2]) / 2.0
    return _ChunkResult(margins, (stats[0], stats[1]), records=records)


def _run_games(role_agents, names, rules: Rules, seed: int, start: int, stop: int, chunk: int, keep_records: bool,
               progress: Optional[Callable[[float], None]] = None):
    seating = _seating(role_agents, names, [_ODD if g % 2 else _EVEN for g in range(start, stop)], seed, _GAMES,
                       chunk)
    observe = seating.reads_observation
    tables = []
    for g in range(start, stop):
        pair = g // 2
        seat_role = _EVEN if g % 2 == 0 else _ODD
        t = _Table(rules, np.random.SeedSequence(seed, spawn_key=(_GAMES, pair)), seat_role, True, {"game_index": g},
                   observe)
        t.game.new_game(pair % 4)
        t.game.start_deal()
        tables.append(t)
    play_lockstep(tables, seating, progress)
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
                records.append({"pair": list(names), **t.tag, "hand_index": k, "seats": seats, **rec.to_dict()})
    empty = (AgentStats(), AgentStats())
    return _ChunkResult(np.zeros(0), empty, stop - start, a_won, b_won, records)
