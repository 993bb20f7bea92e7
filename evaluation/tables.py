"""The lockstep runner: a chunk's duplicate tables (or whole games) played together, one
``act_batch`` call per agent per step."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Optional

import numpy as np

from tarneeb_env import NUM_ACTIONS, IllegalActionError, Rules
from tarneeb_env.game import TarneebGame
from tarneeb_env.observation import ObservationWriter
from tarneeb_env.view import make_view

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
