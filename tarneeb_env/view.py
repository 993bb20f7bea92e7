"""``PlayerView``: exactly what one seat may know, for rule-based agents and tools."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from .cards import cards_of
from .game import PHASES, TarneebGame
from .rules import Rules


@dataclass(frozen=True)
class PlayerView:
    """One seat's knowledge. Seats are absolute (0-3); teams are seat % 2.

    ``bids`` holds each seat's bid (its highest bid in a team auction, its
    declaration under individual bidding; 0 = none). ``auction`` lists every
    ``(seat, action)`` of the auction, the trump call included. ``to_act`` is
    the seat on turn (-1 when the deal is over); ``legal_actions`` is empty
    unless ``to_act == seat``.
    """

    seat: int
    dealer: int
    phase: str
    hand: tuple[int, ...]
    auction: tuple[tuple[int, int], ...]
    declarer: Optional[int]
    bid: Optional[int]
    trump: Optional[int]
    bids: tuple[int, int, int, int]
    exposed_card: Optional[int]
    leader: Optional[int]
    trick: tuple[tuple[int, int], ...]
    played: tuple[tuple[int, int], ...]
    tricks_won: tuple[int, int]
    tricks_by_seat: tuple[int, int, int, int]
    scores: tuple[int, int]
    seat_scores: tuple[int, int, int, int]
    to_act: int
    legal_actions: tuple[int, ...]
    rules: Rules

    @property
    def team(self) -> int:
        return self.seat & 1


def make_view(game: TarneebGame, seat: int) -> PlayerView:
    # positional, in field order: a frozen dataclass builds twice as fast without keywords (the evaluator's hot path)
    current = game.current
    return PlayerView(
        seat,
        game.dealer,
        PHASES[game.phase],
        cards_of(game.hands[seat]),
        tuple(game.auction),
        game.declarer,
        game.bid,
        game.trump,
        tuple(game.bids),
        game.exposed_card,
        game.leader if game.leader >= 0 else None,
        tuple(game.trick),
        tuple(game.played),
        tuple(game.tricks_won),
        tuple(game.tricks_by_seat),
        tuple(game.scores),
        tuple(game.seat_scores),
        current,
        cards_of(game.legal) if current == seat else (),
        game.rules,
    )
