"""``PlayerView``: exactly what one seat may know, for rule-based agents and tools.

Both engines build it with :func:`build_view` from the same raw values, so a view
means the same whichever engine made it. Alongside the public history it carries
what every card player reconstructs from it, the cards played and the suits each
seat has shown out of, kept up to date by the engine as cards fall (DouZero's
``InfoSet``), so agents need no state of their own between calls.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from .cards import cards_of
from .rules_core import PHASES
from .rules import Rules


@dataclass(frozen=True)
class PlayerView:
    """One seat's knowledge. Seats are absolute (0-3); teams are seat % 2.

    ``bids`` holds each seat's bid (its highest bid in a team auction, its
    declaration under individual bidding; 0 = none). ``auction`` lists every
    ``(seat, action)`` of the auction, the trump call included. ``to_act`` is
    the seat on turn (-1 when the deal is over); ``legal_actions`` is empty
    unless ``to_act == seat``. ``played_mask`` has bit ``c`` set for each card
    played this deal; ``voids[s]`` has bit ``u`` set once seat ``s`` has failed
    to follow suit ``u`` (so holds none of it).
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
    played_mask: int
    voids: tuple[int, int, int, int]

    @property
    def team(self) -> int:
        return self.seat & 1


def build_view(
    seat, dealer, phase, hand, auction, declarer, bid, trump, bids, exposed_card, leader, played, tricks_won,
    tricks_by_seat, scores, seat_scores, to_act, legal, rules, played_mask, voids,
) -> PlayerView:
    """The view from an engine's raw values: ``hand`` and ``legal`` as bit masks, ``phase`` as its number,
    ``leader`` -1 for none, ``played`` a tuple of ``(seat, card)``; the rest as the fields.

    Positional, in field order: a frozen dataclass builds twice as fast without keywords (the evaluator's
    hot path).
    """
    n = len(played)
    return PlayerView(
        seat, dealer, PHASES[phase], cards_of(hand), auction, declarer, bid, trump, bids, exposed_card,
        leader if leader >= 0 else None, played[n - n % 4 :], played, tricks_won, tricks_by_seat, scores,
        seat_scores, to_act, cards_of(legal) if to_act == seat else (), rules, played_mask, voids,
    )


def make_view(game, seat: int) -> PlayerView:
    """``seat``'s view of a :class:`~tarneeb_env.game.TarneebGame`."""
    return build_view(
        seat, game.dealer, game.phase, game.hands[seat], tuple(game.auction), game.declarer, game.bid, game.trump,
        tuple(game.bids), game.exposed_card, game.leader, tuple(game.played), tuple(game.tricks_won),
        tuple(game.tricks_by_seat), tuple(game.scores), tuple(game.seat_scores), game.current, game.legal,
        game.rules, game.played_mask, tuple(game.voids),
    )
