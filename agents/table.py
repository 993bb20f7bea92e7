"""The table runner: one game at a table, played by seated agents (and at the web and terminal tables a person
at seat 0) from its first deal to the table's end.

Why it exists: the evaluator's lockstep tables (:mod:`evaluation.tables`), the web session
(:mod:`playing.web.session`) and the terminal game (:mod:`playing.terminal`) all run their games on this class, so
a table is dealt, stepped and ended the same way wherever it is played. What it owns:

- **Seating.** A table is row ``index`` of a :class:`~agents.seating.Seating`: the agents there hear of each
  deal's end (``deal_over``) and, when the agents are the table's own (``own_agents``: the web and terminal
  tables, one seating each), are reset at the start of every deal; agents shared by many tables (the
  evaluator's) are reset by ``Seating.start`` only.
- **Stepping.** :meth:`Table.apply` applies one action and does a deal's bookkeeping when it ends (the record,
  the score change, the end-of-table rule); :meth:`Table.next_deal` starts the next one. The caller decides
  when: the evaluator at once, the web when the person asks, the terminal after printing the result.
- **The end of a table** (:func:`table_over`): a duplicate table (``one_deal``) ends with its first deal that
  is played (throw-ins are redealt from the game's generator, the same at both tables of a duplicate deal);
  a game ends when a team reaches the target score; either stops at its cap of deals.
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from tarneeb_env.game import HandResult, TarneebGame
from tarneeb_env.observation import ObservationWriter
from tarneeb_env.record import HandRecord
from tarneeb_env.rules import Rules

from .seating import GameTables, Seating

# The caps. Only throw-ins (all four seats passing) make a table run long; each cap stops such a table so that
# a run always ends, and is far above what agents that ever bid reach.
MAX_DEALS_PER_TABLE = 50
"""A duplicate table still throwing in after this many deals stops, scoring 0: the deal's margin needs a played
hand, and two agents that always pass would otherwise redeal forever."""
MAX_DEALS_PER_GAME = 200
"""An evaluator's whole game not decided after this many deals is a draw: a lockstep batch waits for its
slowest table, so this bounds a chunk's time (the env's default ``max_hands`` is the same 200)."""
MAX_DEALS_PER_PLAYED_GAME = 1000
"""A person's game (web, terminal) stops after this many deals without a winner: a person is never cut off in a
real game, and a table of agents that always pass still ends."""


def table_over(result: HandResult, deals: int, one_deal: bool, cap: int) -> bool:
    """Whether a table ends with the deal that gave ``result``, its ``deals``-th: a duplicate table
    (``one_deal``) with a played hand, a game when a team reached the target score, either at ``cap``."""
    if deals >= cap:
        return True
    return not result.thrown_in if one_deal else result.game_over


class Table:
    """One game at a table: the engine, its observation writer (``observe``: only when a seated agent reads
    observations), its row ``index`` in ``seating``, and what its deals came to.

    ``rng`` draws the table's deals after the first (``deal``/``exposed_card``: the first deal's cards, else
    drawn too); ``cap`` defaults to :data:`MAX_DEALS_PER_TABLE` for a duplicate table, else
    :data:`MAX_DEALS_PER_PLAYED_GAME`. ``hint`` is an agent that sits nowhere but speaks for seat 0 (the Hint):
    it is reset at the start of every deal. ``records`` holds the finished deals' records, ``delta`` the
    teams' score changes over them, ``moves`` the actions applied; ``waiting`` is true from the end of a deal
    to :meth:`next_deal`, ``over`` once the table has ended.
    """

    __slots__ = ("game", "writer", "seating", "index", "one_deal", "cap", "hint", "own_agents", "records",
                 "delta", "moves", "waiting", "over")

    def __init__(self, rules: Rules, rng: np.random.Generator, dealer: int, seating: Seating, index: int = 0, *,
                 one_deal: bool = False, cap: Optional[int] = None, observe: bool = True, deal=None,
                 exposed_card: Optional[int] = None, hint: Any = None, own_agents: bool = True):
        self.writer = ObservationWriter() if observe else None
        self.game = TarneebGame(rules, rng, self.writer)
        self.seating = seating
        self.index = index
        self.one_deal = one_deal
        self.cap = cap if cap is not None else MAX_DEALS_PER_TABLE if one_deal else MAX_DEALS_PER_PLAYED_GAME
        self.hint = hint
        self.own_agents = own_agents
        self.records: list[HandRecord] = []
        self.delta = [0, 0]
        self.moves = 0
        self.waiting = False
        self.over = False
        self.game.new_game(dealer)
        self._start(deal, exposed_card)

    def _start(self, deal=None, exposed_card=None) -> None:
        if self.own_agents:
            self.seating.new_deal(self.index)
        if self.hint is not None:
            self.hint.reset()
        self.game.start_deal(deal, exposed_card)

    @property
    def net(self) -> int:
        """Team 0's score change minus team 1's over all the table's deals."""
        return self.delta[0] - self.delta[1]

    def agent_action(self) -> Any:
        """The seated agent's action for the seat on turn, not applied; for a table alone in its seating
        (``index`` 0: the web and terminal tables). The caller checks it before :meth:`apply`."""
        return self.seating.act([self.index], [self.game.current], GameTables([self.game], [self.writer]))[0]

    def apply(self, action: int) -> Optional[HandResult]:
        """Apply the seat on turn's ``action`` (an illegal one raises ``IllegalActionError``, changing nothing);
        at the end of a deal keep its record and score change, tell the seated agents and decide whether the
        table is over. Returns the deal's result, or None while it goes on."""
        result = self.game.apply(action)
        self.moves += 1
        if result is not None:
            self.records.append(result.record)
            self.delta[0] += result.score_delta[0]
            self.delta[1] += result.score_delta[1]
            self.seating.deal_over(self.index, result.record)
            self.waiting = True
            self.over = table_over(result, self.game.deals, self.one_deal, self.cap)
        return result

    def next_deal(self) -> None:
        """Start the deal after a finished one (not after the last: the table is over)."""
        if not self.waiting or self.over:
            raise RuntimeError("next_deal: the current deal is still being played, or the table is over")
        self.waiting = False
        self._start()
