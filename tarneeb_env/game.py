"""The Tarneeb rules engine: a phase machine with no PettingZoo in it.

Phases: ``bidding`` -> ``trump`` -> ``play`` -> ``done`` (``trump`` is skipped
when the rules fix the trump suit, ``bidding`` when ``auction: none``).
One :class:`TarneebGame` holds a whole game (several deals); the caller decides
when to start the next deal, so the same engine serves one-hand and whole-game
episodes. Legal actions are kept as one 70-bit int, recomputed once per
transition; an optional observation writer is told of every event so it can
update observations incrementally.

Every rule that decides an outcome (the deal order, legal bids and cards, where
the auction goes, voids, first leader, trick winner, scoring, game winner) is a
function of :mod:`tarneeb_env.rules_core`, shared with the batch kernels; this
class stores what those return and tells the writer.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from . import rules_core
from .cards import BID_BASE, NUM_ACTIONS, NUM_TRICKS, PASS, SUIT_SIZE, TRUMP_BASE, action_str, cards_of
from .deal import deal_cards, draw_deal  # noqa: F401 (deal_cards re-exported)
from .record import HandRecord
from .rules import Rules
from .rules_core import BIDDING, DONE, PHASES, PLAY, TRUMP, individual_bid_value  # noqa: F401 (re-exported)


class IllegalActionError(ValueError):
    """An action that is not legal for the agent on turn; the state is unchanged."""


@dataclass
class HandResult:
    """What a finished deal (played or thrown in) reports to the caller."""

    record: HandRecord
    score_delta: tuple[int, int]
    thrown_in: bool
    game_over: bool
    winner: Optional[int]  # winning team, when game_over


def trick_winner(trick, trump: Optional[int]) -> int:
    """Seat that wins a trick of ``(seat, card)`` pairs (:func:`rules_core.trick_winner`); for a trick still in
    progress (1-3 cards), the seat winning it so far."""
    leader, c0 = trick[0]
    cards = [c for _, c in trick] + [c0] * (4 - len(trick))  # the led card again never beats the best so far
    return rules_core.trick_winner(leader, *cards, rules_core.NO_SUIT if trump is None else trump)


def team_hand_score(rules: Rules, bid: int, taken: int) -> tuple[int, int]:
    """(bidding team, defenders) score change for a team-auction hand (:func:`rules_core.team_score`)."""
    return rules_core.team_score(rules.vector, bid, taken)


def no_auction_score(rules: Rules, tricks_won: tuple[int, int]) -> tuple[int, int]:
    """Team scores under ``auction: none`` (:func:`rules_core.no_auction_points`)."""
    rules_vec = rules.vector
    return (rules_core.no_auction_points(rules_vec, tricks_won[0]),
            rules_core.no_auction_points(rules_vec, tricks_won[1]))


class TarneebGame:
    """State of one Tarneeb game. ``writer`` (optional) receives every event."""

    def __init__(self, rules: Rules, rng: np.random.Generator, writer=None):
        self.rules = rules
        self._rules_vec = rules.vector
        self.rng = rng
        self.writer = writer
        self.scores = [0, 0]
        self.seat_scores = [0, 0, 0, 0]
        self.dealer = 0
        self.hands_played = 0
        self.deals = 0
        self.game_over = False
        self.winner: Optional[int] = None
        self.phase = DONE
        self.current = -1
        self.legal = 0

    # ----------------------------------------------------------------- deals
    def new_game(self, dealer: int = 0, scores=(0, 0), seat_scores=(0, 0, 0, 0)) -> None:
        self.scores = [int(scores[0]), int(scores[1])]
        self.seat_scores = [int(x) for x in seat_scores]
        self.dealer = dealer
        self.hands_played = 0
        self.deals = 0
        self.game_over = False
        self.winner = None

    def start_deal(self, deal=None, exposed_card: Optional[int] = None) -> None:
        """Deal (randomly, or the given hands) for ``self.dealer`` and open the first phase."""
        rules = self.rules
        hands, exposed = draw_deal(rules, self.rng, self.dealer, deal, exposed_card)
        self.deal = tuple(hands)
        self.hands = list(hands)
        self.exposed_card = exposed
        self.deals += 1
        self.auction: list[tuple[int, int]] = []
        self.passed_bits = 0  # bit s: seat s has passed (passes are final)
        self.npassed = 0
        self.high_bid = 0
        self.high_bidder = -1
        self.bids = [0, 0, 0, 0]
        self.declarer: Optional[int] = None
        self.bid: Optional[int] = None
        self.trump: Optional[int] = None
        self.trick: list[tuple[int, int]] = []
        self.played: list[tuple[int, int]] = []
        self.voids = [0, 0, 0, 0]  # per seat: bit s set once the seat has failed to follow suit s
        self.trick_winners: list[int] = []
        self.tricks_won = [0, 0]
        self.tricks_by_seat = [0, 0, 0, 0]
        self.leader = -1
        eldest = (self.dealer + 1) % 4
        trump = rules_core.fixed_trump(self._rules_vec, rules_core.NO_SUIT if exposed is None else exposed)
        if trump != rules_core.NO_SUIT:
            self.trump = trump
        if self.writer is not None:
            self.writer.on_deal(self)
        if rules.auction == "none":
            self._start_play(rules_core.first_leader(self._rules_vec, self.dealer, -1))
        else:
            self.phase = BIDDING
            self.current = eldest
            self._set_legal()
            if self.writer is not None:
                self.writer.on_phase(self)

    def next_deal(self) -> None:
        """Start the deal that follows a finished one (dealer rotation per the rules)."""
        self.start_deal()

    # ---------------------------------------------------------------- legality
    def _set_legal(self) -> None:
        phase = self.phase
        if phase == PLAY:
            led = self.trick[0][1] // SUIT_SIZE if self.trick else rules_core.NO_SUIT
            self.legal = rules_core.legal_cards(self.hands[self.current], led)
        elif phase == BIDDING:
            self.legal = rules_core.bid_bits(self._rules_vec, self.high_bid, self.high_bidder, self.npassed) << BID_BASE
        elif phase == TRUMP:
            self.legal = rules_core.TRUMP_BITS << BID_BASE
        else:
            self.legal = 0

    def legal_actions(self) -> list[int]:
        return list(cards_of(self.legal))

    def is_legal(self, action) -> bool:
        try:
            a = int(action)
        except (TypeError, ValueError):
            return False
        return a == action and 0 <= a < NUM_ACTIONS and bool(self.legal >> a & 1)

    # ------------------------------------------------------------------ moves
    def apply(self, action: int) -> Optional[HandResult]:
        """Apply a legal action; returns a :class:`HandResult` when the deal ends."""
        if not self.is_legal(action):
            raise IllegalActionError(
                f"illegal action {action!r} ({_safe_action_str(action)}) for player_{self.current} "
                f"in phase {PHASES[self.phase]}; legal actions: {self.legal_actions()}"
            )
        action = int(action)
        phase = self.phase
        if phase == PLAY:
            return self._play(action)
        if phase == BIDDING:
            return self._bid(action)
        self._name_trump(action - TRUMP_BASE)
        return None

    def _bid(self, action: int) -> Optional[HandResult]:
        seat = self.current
        self.auction.append((seat, action))
        w = self.writer
        if action == PASS:
            self.passed_bits |= 1 << seat
            self.npassed += 1
            if w is not None:
                w.on_pass(seat, self.high_bid)
        else:
            b = action - BID_BASE
            self.bids[seat] = b
            if rules_core.bid_is_high(self._rules_vec):
                self.high_bid = b
                self.high_bidder = seat
            if w is not None:
                w.on_bid(seat, b)
        where, seat = rules_core.auction_after(self._rules_vec, seat, len(self.auction), self.high_bid,
                                               self.high_bidder, self.passed_bits, self.npassed, sum(self.bids))
        if where == rules_core.CALLING:
            self.current = seat
            self._set_legal()
            return None
        if where == rules_core.CONTRACT:
            return self._end_auction()
        if where == rules_core.OPEN_PLAY:
            self._start_play(rules_core.first_leader(self._rules_vec, self.dealer, -1))
            return None
        return self._throw_in(next_dealer=where == rules_core.BIDS_TOO_LOW)

    def _end_auction(self) -> None:  # returns None so _bid can `return` it
        self.declarer = self.high_bidder
        self.bid = self.high_bid
        if self.writer is not None:
            self.writer.on_contract(self.declarer, self.bid)
        self.phase = TRUMP
        self.current = self.declarer
        self._set_legal()
        if self.writer is not None:
            self.writer.on_phase(self)
        return None

    def _name_trump(self, suit: int) -> None:
        self.auction.append((self.current, TRUMP_BASE + suit))
        self.trump = suit
        if self.writer is not None:
            self.writer.on_trump(suit)
        self._start_play(rules_core.first_leader(self._rules_vec, self.dealer, self.declarer))

    def _start_play(self, leader: int) -> None:
        self.phase = PLAY
        self.leader = leader
        self.current = leader
        self._set_legal()
        if self.writer is not None:
            self.writer.on_phase(self)
            self.writer.on_leader(leader)

    def _play(self, card: int) -> Optional[HandResult]:
        seat = self.current
        self.hands[seat] &= ~(1 << card)
        trick = self.trick
        if trick:  # a lead shows no void: the call is skipped, as voids_after would return the voids unchanged
            led = trick[0][1] // SUIT_SIZE
            voids = rules_core.voids_after(self.voids[seat], card, led)
            if voids != self.voids[seat]:
                self.voids[seat] = voids
                if self.writer is not None:
                    self.writer.on_void(seat, led)
        else:
            led = card // SUIT_SIZE
        play = (seat, card)
        trick.append(play)
        self.played.append(play)
        w = self.writer
        if w is not None:
            w.on_play(seat, card)
        if len(trick) < 4:
            seat = (seat + 1) & 3
            self.current = seat
            self.legal = rules_core.legal_cards(self.hands[seat], led)
            return None
        (leader, c0), (_, c1), (_, c2), (_, c3) = trick
        winner = rules_core.trick_winner(leader, c0, c1, c2, c3, self.trump)  # the trump is known once play starts
        cards = [c0, c1, c2, c3]
        self.trick = []
        self.trick_winners.append(winner)
        self.tricks_won[winner & 1] += 1
        self.tricks_by_seat[winner] += 1
        self.leader = winner
        if w is not None:
            w.on_trick_end(winner, cards, self.tricks_won, self.tricks_by_seat)
        if len(self.trick_winners) == NUM_TRICKS:
            return self._finish_hand()
        self.current = winner
        self.legal = self.hands[winner]
        return None

    # ----------------------------------------------------------------- scoring
    def _finish_hand(self) -> HandResult:
        rules_vec = self._rules_vec
        delta, seat_delta, winner = rules_core.score_hand(
            rules_vec, -1 if self.declarer is None else self.declarer, self.bid or 0, tuple(self.bids),
            tuple(self.tricks_won), tuple(self.tricks_by_seat),
        )
        for t in range(2):
            self.scores[t] += delta[t]
        for s in range(4):
            self.seat_scores[s] += seat_delta[s]
        if winner < 0:
            winner = rules_core.game_winner(rules_vec, tuple(self.scores), tuple(self.seat_scores))
        self.hands_played += 1
        return self._end_deal(delta, seat_delta, thrown_in=False, winner=None if winner < 0 else winner,
                              next_dealer=True)

    def _throw_in(self, next_dealer: bool) -> HandResult:
        return self._end_deal((0, 0), [0, 0, 0, 0], thrown_in=True, winner=None, next_dealer=next_dealer)

    def _end_deal(self, delta, seat_delta, thrown_in: bool, winner: Optional[int], next_dealer: bool) -> HandResult:
        record = self.hand_record(delta, seat_delta, thrown_in)
        self.phase = DONE
        self.current = -1
        self.legal = 0
        if winner is not None:
            self.game_over = True
            self.winner = winner
        if self.writer is not None:
            self.writer.on_hand_end(self)
        if next_dealer:
            self.dealer = (self.dealer + 1) % 4
        return HandResult(record, (int(delta[0]), int(delta[1])), thrown_in, self.game_over, self.winner)

    def hand_record(self, delta, seat_delta, thrown_in: bool) -> HandRecord:
        """The record of the deal that just ended."""
        return HandRecord.of({
            "dealer": self.dealer, "deal": [list(cards_of(h)) for h in self.deal], "exposed_card": self.exposed_card,
            "auction": [[s, a] for s, a in self.auction], "declarer": self.declarer, "bid": self.bid,
            "bids": list(self.bids), "trump": self.trump, "plays": [[s, c] for s, c in self.played],
            "trick_winners": list(self.trick_winners), "tricks_won": list(self.tricks_won),
            "tricks_by_seat": list(self.tricks_by_seat), "score_delta": [int(d) for d in delta],
            "seat_score_delta": [int(d) for d in seat_delta], "scores": list(self.scores),
            "seat_scores": list(self.seat_scores), "thrown_in": thrown_in, "rules": self.rules.to_dict(),
        })


def _safe_action_str(action) -> str:
    try:
        return action_str(int(action))
    except (TypeError, ValueError):
        return "not an action"
