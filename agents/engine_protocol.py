"""The engine protocol's shared vocabulary, and one seat's knowledge rebuilt from its messages.

Both sides of ``docs/engine-protocol.md`` import this module: the host (:mod:`agents.engine`) writes the
messages with :func:`action_event` and :func:`public_rules`, the engine side (:mod:`agents.engine_main`) reads
them back into a :class:`SeatReplay`. Names of cards and actions are ``action_str(a, symbols=False)``'s: ``QH``,
``10S``, ``pass``, ``bid 8``, ``trump hearts``.
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from tarneeb_env import Rules
from tarneeb_env.cards import BID_BASE, NUM_ACTIONS, NUM_CARDS, PASS, SUITS, TRUMP_BASE, action_str, cards_of, mask_of
from tarneeb_env.game import IllegalActionError, TarneebGame
from tarneeb_env.observation import ObservationWriter
from tarneeb_env.rules_core import PLAY as PLAY_PHASE
from tarneeb_env.view import PlayerView, make_view

PROTOCOL_VERSION = 1  # bump when a message changes meaning; engines announce the version they speak

# host -> engine message types
DEAL, BID, PASS_EVENT, TRUMP, PLAY, ACT, END, QUIT = "deal", "bid", "pass", "trump", "play", "act", "end", "quit"
# engine -> host message types
HELLO, ACTION, ERROR = "hello", "action", "error"
CUSTOM = "custom"  # in an engine's ``presets``: it also plays rules that are no preset (any field values)


class ProtocolError(ValueError):
    """A message that breaks the protocol (the engine side's one-line complaint about the host)."""


_NAMES = tuple(action_str(a, symbols=False) for a in range(NUM_ACTIONS))


def name_of(action: int) -> str:
    """The readable name of an action id: ``QH``, ``10S``, ``pass``, ``bid 8``, ``trump hearts``."""
    return _NAMES[action]


def public_rules(rules: Rules) -> dict[str, Any]:
    """The rules as the ``deal`` message carries them: the preset's name (``custom`` for none) and every field."""
    return {"preset": rules.name, **rules.to_dict()}


def rules_from_message(data: Any) -> Rules:
    """The :class:`Rules` of a ``deal`` message's ``rules`` (its fields; ``preset`` is only a label)."""
    if not isinstance(data, dict):
        raise ProtocolError(f"rules must be an object of rule fields, got {data!r}")
    fields = {k: v for k, v in data.items() if k != "preset"}
    try:
        return Rules(**fields)
    except (TypeError, ValueError) as e:
        raise ProtocolError(f"rules: {e}") from None


def action_event(seat: int, action: int) -> dict[str, Any]:
    """The message telling a seat that ``seat`` took ``action`` (without its ``deal`` id): a bid, a pass, the
    trump call or a card."""
    if action < NUM_CARDS:
        return {"type": PLAY, "seat": seat, "action": action, "card": action, "name": name_of(action)}
    if action == PASS:
        return {"type": PASS_EVENT, "seat": seat, "action": action, "name": "pass"}
    if action < TRUMP_BASE:
        return {"type": BID, "seat": seat, "action": action, "tricks": action - BID_BASE, "name": name_of(action)}
    return {"type": TRUMP, "seat": seat, "action": action, "suit": action - TRUMP_BASE,
            "name": f"trump {SUITS[action - TRUMP_BASE]}"}


class SeatReplay:
    """One seat's knowledge of a deal, replayed through the rules engine from the protocol's messages.

    The engine side needs the same :class:`PlayerView` and observation row as an in-process seat, so that the
    same agent takes the same action. It gets them from :class:`~tarneeb_env.game.TarneebGame` itself: the
    cards this seat cannot see are parked in the other hands (the exposed card with the dealer), and each card
    another seat plays is moved into that seat's hand just before it is played. Nothing read back depends on
    where the parked cards lie: the view and the observation row of this seat hold only its own hand and public
    facts (the hidden-card leak test's guarantee), and a played card leaves whichever hand held it.
    """

    def __init__(self, rules: Rules, seat: int, dealer: int, hand: list[int], exposed_card: Optional[int],
                 scores=(0, 0), seat_scores=(0, 0, 0, 0)):
        if not (isinstance(seat, int) and 0 <= seat < 4 and isinstance(dealer, int) and 0 <= dealer < 4):
            raise ProtocolError(f"seat and dealer must be 0..3, got seat {seat!r}, dealer {dealer!r}")
        if len(set(hand)) != 13 or not all(isinstance(c, int) and 0 <= c < NUM_CARDS for c in hand):
            raise ProtocolError(f"hand must be 13 distinct card ids 0..51, got {hand!r}")
        self.seat = seat
        mine = mask_of(hand)
        unseen = [c for c in range(NUM_CARDS) if not mine >> c & 1 and c != exposed_card]
        deal: list[list[int]] = [[] for _ in range(4)]
        deal[seat] = list(hand)
        if exposed_card is not None and dealer != seat:
            deal[dealer].append(exposed_card)
        for s in range(4):
            if s != seat:
                need = 13 - len(deal[s])
                deal[s] += unseen[:need]
                unseen = unseen[need:]
        self.writer = ObservationWriter()
        self.game = TarneebGame(rules, np.random.default_rng(0), self.writer)
        self.game.new_game(dealer, scores, seat_scores)
        try:
            self.game.start_deal(deal, exposed_card)
        except ValueError as e:
            raise ProtocolError(f"deal: {e}") from None

    def apply(self, seat: int, action: int) -> None:
        """``seat`` took ``action``; a ProtocolError when it was not that seat's turn or cannot be taken."""
        game = self.game
        if seat != game.current:
            raise ProtocolError(f"seat {seat} acted, but seat {game.current} is to act")
        if seat != self.seat and 0 <= action < NUM_CARDS and game.phase == PLAY_PHASE:  # another seat's card: move it there
            holder = next((s for s in range(4) if game.hands[s] >> action & 1), None)
            if holder is None or holder == self.seat:
                raise ProtocolError(f"seat {seat} played {name_of(action)}, which is "
                                    f"{'in this hand' if holder == self.seat else 'already played'}")
            game.hands[holder] &= ~(1 << action)
            game.hands[seat] |= 1 << action
            game.legal = 1 << action  # its follow-suit was checked by the host, which saw the real hand
        try:
            game.apply(action)
        except IllegalActionError as e:
            raise ProtocolError(str(e)) from None

    def view(self) -> PlayerView:
        return make_view(self.game, self.seat)

    def observation(self) -> np.ndarray:
        return self.writer.buf[self.seat].copy()

    def legal(self) -> tuple[int, ...]:
        """The seat's legal actions now (empty when it is not its turn)."""
        return cards_of(self.game.legal) if self.game.current == self.seat else ()
