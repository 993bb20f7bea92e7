"""The lockstep runner: a chunk's duplicate tables (or whole games) played together, seated by
:class:`agents.seating.Seating`.

Why the draws are keyed by the deal: a chunk is any run of deals, and a seed's results must not depend on how
the scheduler split them (:mod:`evaluation.schedule`) or on the number of workers. A ``deterministic`` agent
(see :class:`agents.Agent`) is asked for all its tables in one ``act_batch`` call per step, as a network's
forward pass wants; any other agent is asked table by table, re-seeded before each decision from
``(seed, deal, table, move, role)`` (:func:`evaluation.deals._agent_seed`), so its draws at a table are the
same whichever deals shared the chunk.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from agents.seating import GameTables, Seating
from tarneeb_env import IllegalActionError, Rules
from tarneeb_env.game import TarneebGame
from tarneeb_env.observation import ObservationWriter
from tarneeb_env.record import HandRecord

from .deals import _DEALS, _GAMES, _agent_seed, duplicate_deal
from .results import Tally
from .stats import AgentStats, _tally

DEALS_PER_BATCH = 128  # the most duplicate deals (2 tables each) a chunk runs in lockstep
GAMES_PER_BATCH = 32
MAX_DEALS_PER_TABLE = 50  # a duplicate table still throwing in after this many deals stops, scoring 0
MAX_DEALS_PER_GAME = 200  # a game not decided after this many deals is a draw


class _Table:
    """One game in a lockstep batch; ``seat_role[s]`` is the role (0 = A, 1 = B) at seat s. ``key`` (kind, deal
    or game pair, table) and ``moves`` (actions applied so far) key the agents' draws at it."""

    __slots__ = ("game", "writer", "seat_role", "whole_game", "delta", "records", "done", "tag", "key", "moves")

    def __init__(self, rules: Rules, rng_seed, seat_role, whole_game: bool, tag: dict, observe: bool,
                 key: tuple[int, int, int]):
        self.writer = ObservationWriter() if observe else None
        self.game = TarneebGame(rules, np.random.default_rng(rng_seed), self.writer)
        self.seat_role = seat_role
        self.whole_game = whole_game
        self.delta = [0, 0]
        self.records: list[HandRecord] = []
        self.done = False
        self.tag = tag
        self.key = key
        self.moves = 0

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


def play_lockstep(tables: list[_Table], seating: Seating, seed: int) -> None:
    """Play every table to its end; ``seating`` seats table i's roles. A deterministic agent gets one
    ``act_batch`` call per step for all its tables; any other is re-seeded from ``seed`` and the table's key and
    move before each decision and asked for that table alone (see the module docstring)."""
    engine = GameTables([t.game for t in tables], [t.writer for t in tables])
    seat_agent = seating.seat_agent.tolist()
    keyed = [not getattr(a, "deterministic", False) for a in seating.agents]
    active = [i for i, t in enumerate(tables) if not t.done]
    while active:
        seats = [tables[i].game.current for i in active]
        if any(keyed):
            actions = _keyed_actions(tables, seating, seed, active, seats, seat_agent, keyed, engine)
        else:
            actions = seating.act(active, seats, engine)
        for i, seat, action in zip(active, seats, actions):
            t = tables[i]
            try:
                result = t.game.apply(action)
            except IllegalActionError as e:
                raise IllegalActionError(f"agent {seating.name(i, seat)!r}: {e}") from None
            t.moves += 1
            if result is not None:
                seating.deal_over(i, result.record)
                t.finish_deal(result)
        active = [i for i in active if not tables[i].done]


def _keyed_actions(tables, seating: Seating, seed: int, active, seats, seat_agent, keyed, engine) -> list:
    """This step's actions: one call for the tables where a deterministic agent is to act, then one re-seeded
    call per table where another agent is."""
    out: list = [None] * len(active)
    batched = [j for j, (i, s) in enumerate(zip(active, seats)) if not keyed[seat_agent[i][s]]]
    if batched:
        for j, a in zip(batched, seating.act([active[j] for j in batched], [seats[j] for j in batched], engine)):
            out[j] = a
    for j, (i, s) in enumerate(zip(active, seats)):
        role = seat_agent[i][s]
        if keyed[role]:
            t = tables[i]
            seating.agents[role].seed(_agent_seed(seed, *t.key, t.moves, role))
            out[j] = seating.act([i], [s], engine)[0]
    return out


def _seating(role_agents: Sequence[Any], names: Sequence[str], seat_roles: list, seed: int, kind: int,
             start: int) -> Seating:
    """The chunk's roles at its tables, each distinct agent seeded from its first deal or game and reset (a
    deterministic agent draws nothing from it; any other is re-seeded before each decision)."""
    seating = Seating(role_agents, seat_roles, names)
    seating.start([_agent_seed(seed, kind, start, role) for role in range(len(role_agents))])
    return seating


def _seat_names(seat_role, names) -> list[str]:
    return [names[r] for r in seat_role]


_EVEN = (0, 1, 0, 1)  # A on seats 0 & 2
_ODD = (1, 0, 1, 0)  # A on seats 1 & 3


def play_deals(role_agents, names, rules: Rules, seed: int, start: int, stop: int, keep_records: bool) -> Tally:
    """Duplicate deals ``start`` to ``stop`` of ``seed``, each at two tables with the roles swapped."""
    seating = _seating(role_agents, names, [_EVEN, _ODD] * (stop - start), seed, _DEALS, start)
    observe = seating.reads_observation
    tables = []
    for i in range(start, stop):
        d = duplicate_deal(seed, i)
        for table, seat_role in enumerate((_EVEN, _ODD)):
            t = _Table(rules, d.game_seed, seat_role, False, {"deal_index": i, "table": table}, observe,
                       (_DEALS, i, table))
            t.game.new_game(d.dealer)
            t.game.start_deal([list(h) for h in d.hands], d.exposed_card)
            tables.append(t)
    play_lockstep(tables, seating, seed)
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
    return Tally(margins, (stats[0], stats[1]), records=records)


def play_games(role_agents, names, rules: Rules, seed: int, start: int, stop: int, keep_records: bool) -> Tally:
    """Whole games ``start`` to ``stop`` of ``seed``, in pairs with the same deals and the roles swapped."""
    seating = _seating(role_agents, names, [_ODD if g % 2 else _EVEN for g in range(start, stop)], seed, _GAMES,
                       start)
    observe = seating.reads_observation
    tables = []
    for g in range(start, stop):
        pair = g // 2
        seat_role = _EVEN if g % 2 == 0 else _ODD
        t = _Table(rules, np.random.SeedSequence(seed, spawn_key=(_GAMES, pair)), seat_role, True, {"game_index": g},
                   observe, (_GAMES, pair, g % 2))
        t.game.new_game(pair % 4)
        t.game.start_deal()
        tables.append(t)
    play_lockstep(tables, seating, seed)
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
    return Tally(np.zeros(0), empty, stop - start, a_won, b_won, records)
