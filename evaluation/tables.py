"""Lockstep play: a chunk's duplicate tables (or whole games) played together, each an :class:`agents.table.Table`
(the table runner: stepping, the end-of-table rule, the caps), all seated by one :class:`agents.seating.Seating`.

Why the draws are keyed by the deal: a chunk is any run of deals, and a seed's results must not depend on how
the scheduler split them (:mod:`evaluation.schedule`) or on the number of workers. A ``deterministic`` agent
(see :class:`agents.Agent`) is asked for all its tables in one ``act_batch`` call per step, as a network's
forward pass wants; any other agent is asked table by table, re-seeded before each decision from
``(seed, deal, table, move, role)`` (:func:`evaluation.deals._agent_seed`), so its draws at a table are the
same whichever deals shared the chunk.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Optional

import numpy as np

from agents.seating import GameTables, Seating
from agents.table import MAX_DEALS_PER_GAME, Table
from tarneeb_env import IllegalActionError, Rules

from .deals import _DEALS, _GAMES, _agent_seed, duplicate_deal
from .results import Tally
from .stats import AgentStats, _tally

DEALS_PER_BATCH = 128  # the most duplicate deals (2 tables each) a chunk runs in lockstep
GAMES_PER_BATCH = 32


def play_lockstep(tables: list[Table], seating: Seating, seed: Optional[int] = None,
                  keys: Optional[Sequence[tuple[int, int, int]]] = None) -> None:
    """Play every table to its end; ``tables[i]`` is row i of ``seating``. A deterministic agent gets one
    ``act_batch`` call per step for all its tables; with a ``seed``, any other is re-seeded from it, the table's
    ``keys[i]`` (kind, deal or game pair, table) and move before each decision and asked for that table alone
    (see the module docstring). Without one (a web table the computer plays alone) every agent is asked as it
    is."""
    if seed is not None and (keys is None or len(keys) != len(tables)):
        raise ValueError("play_lockstep: a seed needs one key (kind, deal or game pair, table) per table")
    engine = GameTables([t.game for t in tables], [t.writer for t in tables])
    seat_agent = seating.seat_agent.tolist()
    keyed = [seed is not None and not getattr(a, "deterministic", False) for a in seating.agents]
    active = [i for i, t in enumerate(tables) if not t.over]
    while active:
        seats = [tables[i].game.current for i in active]
        if any(keyed):
            actions = _keyed_actions(tables, keys, seating, seed, active, seats, seat_agent, keyed, engine)
        else:
            actions = seating.act(active, seats, engine)
        for i, seat, action in zip(active, seats, actions):
            t = tables[i]
            try:
                result = t.apply(action)
            except IllegalActionError as e:
                raise IllegalActionError(f"agent {seating.name(i, seat)!r}: {e}") from None
            if result is not None and not t.over:
                t.next_deal()
        active = [i for i in active if not tables[i].over]


def _keyed_actions(tables, keys, seating: Seating, seed: int, active, seats, seat_agent, keyed, engine) -> list:
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
            seating.agents[role].seed(_agent_seed(seed, *keys[i], tables[i].moves, role))
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
    roles = [_EVEN, _ODD] * (stop - start)  # deal i's two tables: A on the even seats, then on the odd ones
    seating = _seating(role_agents, names, roles, seed, _DEALS, start)
    observe = seating.reads_observation
    tables = []
    for i in range(start, stop):
        d = duplicate_deal(seed, i)
        for _ in (_EVEN, _ODD):
            tables.append(Table(rules, np.random.default_rng(d.game_seed), d.dealer, seating, len(tables),
                                one_deal=True, observe=observe, deal=[list(h) for h in d.hands],
                                exposed_card=d.exposed_card, own_agents=False))
    play_lockstep(tables, seating, seed, [(_DEALS, start + k // 2, k % 2) for k in range(len(tables))])
    stats = {0: AgentStats(), 1: AgentStats()}
    records = [] if keep_records else None
    for k, (t, seat_role) in enumerate(zip(tables, roles)):
        for redeal, rec in enumerate(t.records):
            _tally(stats, rec, seat_role, rules.auction)
            if keep_records:
                records.append({"pair": list(names), "deal_index": start + k // 2, "table": k % 2, "redeal": redeal,
                                "seats": _seat_names(seat_role, names), **rec.to_dict()})
    net = np.array([t.net if seat_role == _EVEN else -t.net for t, seat_role in zip(tables, roles)])
    margins = (net[0::2] + net[1::2]) / 2.0
    return Tally(margins, (stats[0], stats[1]), records=records)


def play_games(role_agents, names, rules: Rules, seed: int, start: int, stop: int, keep_records: bool) -> Tally:
    """Whole games ``start`` to ``stop`` of ``seed``, in pairs with the same deals and the roles swapped."""
    roles = [_ODD if g % 2 else _EVEN for g in range(start, stop)]  # a pair's two games: A even, then odd
    seating = _seating(role_agents, names, roles, seed, _GAMES, start)
    observe = seating.reads_observation
    tables = [Table(rules, np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(_GAMES, g // 2))),
                    g // 2 % 4, seating, g - start, cap=MAX_DEALS_PER_GAME, observe=observe, own_agents=False)
              for g in range(start, stop)]
    play_lockstep(tables, seating, seed, [(_GAMES, g // 2, g % 2) for g in range(start, stop)])
    a_won = b_won = 0
    records = [] if keep_records else None
    for g, t, seat_role in zip(range(start, stop), tables, roles):
        winner = t.game.winner
        if winner is not None:
            a_role_team = 0 if seat_role == _EVEN else 1
            a_won += winner == a_role_team
            b_won += winner != a_role_team
        if keep_records:
            for k, rec in enumerate(t.records):
                records.append({"pair": list(names), "game_index": g, "hand_index": k,
                                "seats": _seat_names(seat_role, names), **rec.to_dict()})
    empty = (AgentStats(), AgentStats())
    return Tally(np.zeros(0), empty, stop - start, a_won, b_won, records)
