"""Seating: which agent sits at each seat of many tables, and how they are asked for actions.

Why it exists: the evaluator's lockstep tables, the trainer's rollouts against
built-in opponents, the behaviour-cloning warm start and the web and terminal games all
seat agents at tables and ask them for actions. This module is the one way
they do it, so every player sees the same protocol wherever it plays.

What it guarantees:

- **One ``act_batch`` call per distinct agent per step.** :meth:`Seating.act`
  groups the tables it is given by the agent whose seat is to act (the same
  object seated under several indices is one group) and calls that agent's
  ``act_batch`` once, over all its tables, in table order. An agent without
  ``act_batch`` is asked ``act`` table by table.
- **Agents that decide on the batch engine's arrays skip both.** An agent with an
  ``act_batch_env(env, games)`` method, at tables whose adapter has a batch engine
  (``Tables.batch_env()``: :class:`BatchTables`'s), gets the
  :class:`~tarneeb_env.batch.BatchEnv` and the game indices instead (``rule``:
  its card play compiled on the engine's state, see :mod:`agents.rule_kernels`).
- **Views only for agents that read them.** The views passed are built on
  first access (:class:`LazyViews`), so an agent deciding from observations
  alone never pays for them; iterating over them builds those not yet built in
  one engine call (the batch engine builds a group's views together, at about
  half the cost of one by one). A view is valid during the call it is passed to.
- **Observations only for agents that read them.** An agent with
  ``reads_observation = False`` (see :class:`agents.Agent`) gets
  ``observation["observation"] = None``; the action mask is always there.
- **Wrong answers name the agent.** ``act_batch`` returning a different number
  of actions than it was given observations raises a ``RuntimeError`` naming
  the agent; :meth:`Seating.name` names the agent at a seat for the caller's
  own illegal-action errors.
- **The end of a deal.** :meth:`Seating.deal_over` tells agents that want it (a ``deal_over(seat, record)``
  method: the external engines) that a deal ended, with its record; callers that can, call it.
- **Seeding and resets.** :meth:`Seating.start` begins a chunk of play: every
  distinct agent is seeded (``seed()``) from the seed of the first index that
  holds it, then ``reset()``; a chunk's play then depends only on those seeds.
  :meth:`Seating.new_deal` resets the agents seated at one table, for callers
  whose agents are per table and keep per-deal state; agents shared by many
  tables (the evaluator's) are reset by ``start`` only.

The engine stays outside: the caller passes an adapter (:class:`Tables`) that
gives action masks, observation rows and views for table indices, so the same
seating serves a list of :class:`~tarneeb_env.game.TarneebGame` tables
(:class:`GameTables`: the evaluator's, the web and terminal tables of :mod:`agents.table`) and the batch engine
(:class:`BatchTables`). Applying the actions is the caller's (:class:`agents.table.Table` for a game), as is
whatever it plays itself (seat index ``-1``).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Optional, Protocol

import numpy as np

from tarneeb_env.tarneeb import unpack_legal_masks
from tarneeb_env.view import make_view

LEFT_TO_CALLER = -1  # a seat_agent entry for a seat the caller plays itself (e.g. the learner)


def reads_observation(agent: Any) -> bool:
    """Whether ``agent`` reads the encoded observation vector (agents that do not say are assumed to)."""
    return getattr(agent, "reads_observation", True)


class Tables(Protocol):
    """What :meth:`Seating.act` needs from an engine, for the seat to act at table ``i``."""

    def masks(self, tables: Sequence[int]) -> np.ndarray:
        """int8 (n, 70) action masks of the given tables."""

    def observations(self, tables: Sequence[int]) -> Sequence[Optional[np.ndarray]]:
        """The observation rows (float32 (694,), or None where not encoded) of the given tables, the agent's to keep."""

    def views(self, tables: Sequence[int]) -> list:
        """The :class:`~tarneeb_env.PlayerView` of the seat to act at each of the given tables."""

    def batch_env(self) -> Optional[Any]:
        """The :class:`~tarneeb_env.batch.BatchEnv` these tables are, for agents with ``act_batch_env``; else
        None."""


class GameTables:
    """:class:`Tables` over a list of :class:`~tarneeb_env.game.TarneebGame` (observation writers optional)."""

    __slots__ = ("games", "writers")

    def __init__(self, games: Sequence[Any], writers: Sequence[Any]):
        self.games = games
        self.writers = writers  # writers[i] is None when no agent at table i reads observations

    def masks(self, tables: Sequence[int]) -> np.ndarray:
        games = self.games
        return unpack_legal_masks([games[i].legal for i in tables])

    def observations(self, tables: Sequence[int]) -> list:
        games, writers = self.games, self.writers
        return [None if writers[i] is None else writers[i].buf[games[i].current].copy() for i in tables]

    def views(self, tables: Sequence[int]) -> list:
        games = self.games
        return [make_view(games[i], games[i].current) for i in tables]

    def batch_env(self) -> None:
        return None


class BatchTables:
    """:class:`Tables` over a :class:`~tarneeb_env.batch.BatchEnv` and the obs/mask arrays of its last step."""

    __slots__ = ("env", "obs", "mask")

    def __init__(self, env: Any, obs: Optional[np.ndarray] = None, mask: Optional[np.ndarray] = None):
        self.env = env
        self.obs = obs
        self.mask = mask

    def update(self, obs: np.ndarray, mask: np.ndarray) -> None:
        """Point at the arrays ``reset()``/``step()`` just returned."""
        self.obs = obs
        self.mask = mask

    def masks(self, tables: Sequence[int]) -> np.ndarray:
        return self.mask[np.asarray(tables, dtype=np.int64)]

    def observations(self, tables: Sequence[int]) -> np.ndarray:
        return self.obs[np.asarray(tables, dtype=np.int64)]

    def views(self, tables: Sequence[int]) -> list:
        return self.env.views(tables)

    def batch_env(self) -> Any:
        return self.env


def seated(players: dict[int, Any]) -> "Seating":
    """One table with ``players[seat]`` at the seats given; the others are the caller's (a human's)."""
    seats = sorted(players)
    return Seating([players[s] for s in seats], [[seats.index(s) if s in players else LEFT_TO_CALLER
                                                  for s in range(4)]])


class LazyViews(Sequence):
    """The views of a group's tables, built on first access (agents reading only observations never pay).

    Iteration and slices build the views they reach that are not built yet in one ``views`` call (the batch
    engine's batched path); an index builds that one view, for agents that read only some of them.
    Valid during the ``act_batch`` call it is passed to: a view first read later would show a later state.
    """

    __slots__ = ("_tables", "_build", "_views")

    def __init__(self, tables: Sequence[int], views: Callable[[Sequence[int]], list]):
        self._tables = tables
        self._build = views
        self._views: list = [None] * len(tables)

    def __len__(self) -> int:
        return len(self._tables)

    def _fill(self, positions: range) -> list:
        views = self._views
        missing = [k for k in positions if views[k] is None]
        if missing:
            tables = self._tables
            for k, v in zip(missing, self._build([tables[k] for k in missing])):
                views[k] = v
        return views

    def __iter__(self):
        return iter(self._fill(range(len(self._views))))

    def __getitem__(self, i):
        if isinstance(i, slice):
            positions = range(*i.indices(len(self)))
            views = self._fill(positions)
            return [views[k] for k in positions]
        view = self._views[i]
        if view is None:
            view = self._views[i] = self._build([self._tables[i]])[0]
        return view


def _name(agent: Any) -> str:
    return getattr(agent, "name", None) or type(agent).__name__


class Seating:
    """``agents`` seated at tables: ``seat_agent[t][s]`` is the index into ``agents`` of seat ``s`` at table ``t``.

    The same object may appear at several indices: it is one agent (one group, one ``act_batch`` call, seeded
    once). ``-1`` (:data:`LEFT_TO_CALLER`) marks a seat the caller plays itself; :meth:`act` must not be asked
    for it. ``names[k]`` names ``agents[k]`` in errors (default: the agent's ``name``).
    """

    def __init__(self, agents: Sequence[Any], seat_agent: Any, names: Optional[Sequence[str]] = None):
        self.agents = list(agents)
        self.names = list(names) if names is not None else [_name(a) for a in self.agents]
        if len(self.names) != len(self.agents):
            raise ValueError(f"names: {len(self.names)} names for {len(self.agents)} agents")
        self.seat_agent = np.asarray(seat_agent, dtype=np.int64).reshape(-1, 4)
        if self.seat_agent.size and not (-1 <= self.seat_agent.min() and self.seat_agent.max() < len(self.agents)):
            raise ValueError(f"seat_agent: indices must be -1 or in [0, {len(self.agents)})")
        # group[k]: the first index holding the same object as agents[k]
        first: dict[int, int] = {}
        self._group = [first.setdefault(id(a), k) for k, a in enumerate(self.agents)]
        self._reads = [reads_observation(a) for a in self.agents]
        # per table and seat, the group of the seated agent (a Python list: the step loop indexes it per table)
        group = np.array(self._group + [LEFT_TO_CALLER], dtype=np.int64)
        self._seat_group = group[self.seat_agent].tolist()
        # the group of every seat at every table when that is one agent (a learner's vector env): act skips grouping
        only = np.unique(group[self.seat_agent])
        self._only = int(only[0]) if len(only) == 1 and only[0] != LEFT_TO_CALLER else None
        self._told = [callable(getattr(a, "deal_over", None)) for a in self.agents]

    @property
    def reads_observation(self) -> bool:
        """Whether any seated agent reads observations (tables without such an agent may skip the writer)."""
        return any(self._reads)

    def name(self, table: int, seat: int) -> str:
        """The name of the agent at ``seat`` of ``table`` (for the caller's illegal-action errors)."""
        return self.names[self._group[int(self.seat_agent[table, seat])]]

    def _distinct(self, indices) -> list[int]:
        seen, out = set(), []
        for k in indices:
            g = self._group[k]
            if g not in seen:
                seen.add(g)
                out.append(g)
        return out

    def start(self, seeds: Sequence[Optional[int]]) -> None:
        """Begin a chunk: seed every distinct agent with ``seeds[k]`` of its first index ``k``, then reset it."""
        if len(seeds) != len(self.agents):
            raise ValueError(f"seeds: {len(seeds)} seeds for {len(self.agents)} agents")
        for k in self._distinct(range(len(self.agents))):
            agent = self.agents[k]
            if callable(getattr(agent, "seed", None)):
                agent.seed(None if seeds[k] is None else int(seeds[k]))
            if callable(getattr(agent, "reset", None)):
                agent.reset()

    def new_deal(self, table: int) -> None:
        """A new deal starts at ``table``: reset each distinct agent seated there."""
        for k in self._distinct(k for k in self.seat_agent[table].tolist() if k >= 0):
            agent = self.agents[k]
            if callable(getattr(agent, "reset", None)):
                agent.reset()

    def deal_over(self, table: int, record: dict) -> None:
        """A deal ended at ``table``: each seated agent with a ``deal_over(seat, record)`` method hears it, once
        per seat it held (an external engine passes the public record on; see :mod:`agents.engine`)."""
        if not any(self._told):
            return
        for seat, k in enumerate(self.seat_agent[table].tolist()):
            if k >= 0 and self._told[k]:
                self.agents[k].deal_over(seat, record)

    def act(self, tables: Sequence[int], seats: Sequence[int], engine: Tables) -> list:
        """Actions for ``tables`` (``seats[j]`` to act at ``tables[j]``), in that order: one call per agent."""
        seat_group = self._seat_group
        groups: dict[int, list[int]] = {}
        if self._only is not None:
            groups[self._only] = list(range(len(tables)))
        else:
            for j, (i, s) in enumerate(zip(tables, seats)):
                g = seat_group[i][s]
                members = groups.get(g)
                if members is None:
                    groups[g] = [j]
                else:
                    members.append(j)
        if LEFT_TO_CALLER in groups:
            j = groups[LEFT_TO_CALLER][0]
            raise ValueError(f"table {tables[j]}: seat {seats[j]} is the caller's to play, not an agent's")
        masks = engine.masks(tables)  # one call for all groups: most engines build masks in bulk
        batch_env = engine.batch_env()
        out: list = [None] * len(tables)
        for g, members in groups.items():
            idx = [tables[j] for j in members]
            agent = self.agents[g]
            on_env = getattr(agent, "act_batch_env", None)
            if on_env is not None and batch_env is not None:
                actions = list(on_env(batch_env, idx))
            else:
                if self._reads[g]:
                    rows = engine.observations(idx)
                    observations = [{"observation": rows[k], "action_mask": masks[j]}
                                    for k, j in enumerate(members)]
                else:
                    observations = [{"observation": None, "action_mask": m} for m in masks[members]]
                batch = getattr(agent, "act_batch", None)
                views = LazyViews(idx, engine.views)
                if batch is not None:
                    actions = list(batch(observations, views))
                else:
                    actions = [agent.act(o, v) for o, v in zip(observations, views)]
            if len(actions) != len(members):
                raise RuntimeError(f"agent {self.names[g]!r}: act_batch returned {len(actions)} actions for "
                                   f"{len(members)} observations")
            for j, a in zip(members, actions):
                out[j] = a
        return out
