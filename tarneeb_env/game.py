"""The Tarneeb rules engine: a phase machine with no PettingZoo in it.

Phases: ``bidding`` -> ``trump`` -> ``play`` -> ``done`` (``trump`` is skipped
when the rules fix the trump suit, ``bidding`` when ``auction: none``).
One :class:`TarneebGame` holds a whole game (several deals); the caller decides
when to start the next deal, so the same engine serves one-hand and whole-game
episodes. Legal actions are kept as one 70-bit int, recomputed once per
transition; an optional observation writer is told of every event so it can
update observations incrementally.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

import numpy as np

from .cards import (
    BID_BASE,
    FULL_DECK,
    NUM_ACTIONS,
    PASS,
    SUIT_MASK,
    TRUMP_BASE,
    action_str,
    cards_of,
    mask_of,
)
from .rules import Rules

BIDDING, TRUMP, PLAY, DONE = 0, 1, 2, 3
PHASES = ("bidding", "trump", "play", "done")
HEARTS = 2
_ALL_TRUMPS = sum(1 << (TRUMP_BASE + s) for s in range(4))


class IllegalActionError(ValueError):
    """An action that is not legal for the agent on turn; the state is unchanged."""


@dataclass
class HandResult:
    """What a finished deal (played or thrown in) reports to the caller."""

    record: dict[str, Any]
    score_delta: tuple[int, int]
    thrown_in: bool
    game_over: bool
    winner: Optional[int]  # winning team, when game_over


def deal_cards(rng: np.random.Generator, dealer: int) -> tuple[list[int], int]:
    """Shuffle and deal one card at a time starting left of the dealer.

    Returns the four hands as bit masks and the last card dealt (the dealer's),
    which ``trump: last_card`` exposes.
    """
    perm = rng.permutation(52)
    hands = [0, 0, 0, 0]
    for i, card in enumerate(perm.tolist()):
        hands[(dealer + 1 + i) % 4] |= 1 << card
    return hands, int(perm[51])


def trick_winner(trick, trump: Optional[int]) -> int:
    """Seat that wins a trick of ``(seat, card)`` pairs: the highest trump, else the highest card of the suit led."""
    led = trick[0][1] // 13
    best_seat, best_key = -1, -1
    for seat, card in trick:
        suit = card // 13
        if suit == trump:
            key = 100 + card % 13
        elif suit == led:
            key = card % 13
        else:
            continue
        if key > best_key:
            best_seat, best_key = seat, key
    return best_seat


def validate_deal(deal, dealer: int, exposed_card: Optional[int]) -> tuple[list[int], Optional[int]]:
    """Check a fixed deal (four lists of 13 distinct cards); returns masks and the exposed card."""
    if not (isinstance(deal, (list, tuple)) and len(deal) == 4):
        raise ValueError("options['deal'] must be four lists of 13 cards (ints 0..51)")
    masks = []
    for seat, hand in enumerate(deal):
        cards = [int(c) for c in hand]
        if len(cards) != 13 or len(set(cards)) != 13 or not all(0 <= c < 52 for c in cards):
            raise ValueError(f"options['deal'][{seat}] must hold 13 distinct cards in 0..51, got {list(hand)}")
        masks.append(mask_of(cards))
    if masks[0] | masks[1] | masks[2] | masks[3] != FULL_DECK:
        raise ValueError("options['deal']: the four hands must together hold all 52 cards")
    if not (isinstance(dealer, (int, np.integer)) and 0 <= dealer < 4):
        raise ValueError(f"options['dealer'] must be a seat 0..3, got {dealer!r}")
    if exposed_card is not None:
        exposed_card = int(exposed_card)
        if not masks[dealer] >> exposed_card & 1:
            raise ValueError(f"options['exposed_card'] {exposed_card} is not in the dealer's (seat {dealer}) hand")
    return masks, exposed_card


def individual_bid_value(bid: int) -> int:
    """Points a player wins (or loses) on an individual bid: b for 2-6, 2b for 7-12, 39 for 13."""
    if bid == 13:
        return 39
    return 2 * bid if bid >= 7 else bid


def team_hand_score(rules: Rules, bid: int, taken: int) -> tuple[int, int]:
    """(bidding team, defenders) score change for a team-auction hand."""
    defenders = 13 - taken
    if taken >= bid:
        if taken == 13:
            points = {"bonus": 26 if bid == 13 else 16, "double": 26, "plain": 13}[rules.kaboot]
        else:
            points = taken
        return points, (defenders if rules.defenders_score == "always" else 0)
    loss = 16 if (bid == 13 and rules.kaboot == "bonus") else bid
    return -loss, defenders


def no_auction_score(rules: Rules, tricks_won: tuple[int, int]) -> tuple[int, int]:
    """Team scores under ``auction: none``: the team with 7+ tricks scores them (13 per ``kaboot``)."""
    kaboot = {"bonus": 16, "double": 26, "plain": 13}[rules.kaboot]
    return tuple(  # type: ignore[return-value]
        (kaboot if t == 13 else t) if t >= 7 else 0 for t in tricks_won
    )


class TarneebGame:
    """State of one Tarneeb game. ``writer`` (optional) receives every event."""

    def __init__(self, rules: Rules, rng: np.random.Generator, writer=None):
        self.rules = rules
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
        if deal is None:
            hands, last = deal_cards(self.rng, self.dealer)
            exposed = last if rules.trump == "last_card" else None
        else:
            hands, exposed = validate_deal(deal, self.dealer, exposed_card)
            if rules.trump != "last_card":
                exposed = None
            elif exposed is None:  # a fixed deal without its last card: draw one of the dealer's
                exposed = int(self.rng.choice(cards_of(hands[self.dealer])))
        self.deal = tuple(hands)
        self.hands = list(hands)
        self.exposed_card = exposed
        self.deals += 1
        self.auction: list[tuple[int, int]] = []
        self.passed = [False] * 4
        self.high_bid = 0
        self.high_bidder = -1
        self.bids = [0, 0, 0, 0]
        self.declarer: Optional[int] = None
        self.bid: Optional[int] = None
        self.trump: Optional[int] = None
        self.trick: list[tuple[int, int]] = []
        self.played: list[tuple[int, int]] = []
        self.trick_winners: list[int] = []
        self.tricks_won = [0, 0]
        self.tricks_by_seat = [0, 0, 0, 0]
        self.leader = -1
        eldest = (self.dealer + 1) % 4
        if rules.trump == "hearts":
            self.trump = HEARTS
        elif rules.trump == "last_card":
            self.trump = exposed // 13
        if self.writer is not None:
            self.writer.on_deal(self)
        if rules.auction == "none":
            self._start_play(eldest)
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
            hand = self.hands[self.current]
            if self.trick:
                follow = hand & SUIT_MASK[self.trick[0][1] // 13]
                self.legal = follow or hand
            else:
                self.legal = hand
        elif phase == BIDDING:
            if self.rules.auction == "individual":
                self.legal = ((1 << 12) - 1) << (BID_BASE + 2)  # bids 2..13
            else:
                low = max(self.rules.min_bid, self.high_bid + 1)
                legal = (((1 << (14 - low)) - 1) << (BID_BASE + low)) if low <= 13 else 0
                forced = self.rules.all_pass == "dealer_bids" and self.high_bidder < 0 and sum(self.passed) == 3
                self.legal = legal if forced else legal | (1 << PASS)
        elif phase == TRUMP:
            self.legal = _ALL_TRUMPS
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
        if self.rules.auction == "individual":
            b = action - BID_BASE
            self.bids[seat] = b
            if w is not None:
                w.on_bid(seat, b)
            if len(self.auction) < 4:
                self.current = (seat + 1) % 4
                self._set_legal()
                return None
            if sum(self.bids) < self.rules.min_total_bids:
                return self._throw_in(next_dealer=True)
            self._start_play((self.dealer + 1) % 4)
            return None
        if action == PASS:
            self.passed[seat] = True
            if w is not None:
                w.on_pass(seat, self.high_bid)
            npassed = sum(self.passed)
            if npassed == 4:
                return self._throw_in(next_dealer=False)
            if npassed == 3 and self.high_bidder >= 0:
                return self._end_auction()
        else:
            b = action - BID_BASE
            self.high_bid = b
            self.high_bidder = seat
            self.bids[seat] = b
            if w is not None:
                w.on_bid(seat, b)
            if b == 13 or sum(self.passed) == 3:
                return self._end_auction()
        nxt = (seat + 1) % 4
        while self.passed[nxt]:
            nxt = (nxt + 1) % 4
        self.current = nxt
        self._set_legal()
        return None

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
        lead = self.declarer if self.rules.first_lead == "declarer" else (self.dealer + 1) % 4
        self._start_play(lead)

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
        hand = self.hands[seat] & ~(1 << card)
        self.hands[seat] = hand
        trick = self.trick
        trick.append((seat, card))
        self.played.append((seat, card))
        w = self.writer
        if w is not None:
            w.on_play(seat, card)
        if len(trick) < 4:
            seat = (seat + 1) & 3
            self.current = seat
            hand = self.hands[seat]
            self.legal = (hand & SUIT_MASK[trick[0][1] // 13]) or hand
            return None
        winner = trick_winner(self.trick, self.trump)
        cards = [c for _, c in trick]
        self.trick = []
        self.trick_winners.append(winner)
        self.tricks_won[winner & 1] += 1
        self.tricks_by_seat[winner] += 1
        self.leader = winner
        if w is not None:
            w.on_trick_end(winner, cards, self.tricks_won, self.tricks_by_seat)
        if len(self.trick_winners) == 13:
            return self._finish_hand()
        self.current = winner
        self.legal = self.hands[winner]
        return None


    # ----------------------------------------------------------------- scoring
    def _finish_hand(self) -> HandResult:
        rules = self.rules
        winner = None
        seat_delta = [0, 0, 0, 0]
        if rules.auction == "team":
            team = self.declarer & 1
            bidding, defending = team_hand_score(rules, self.bid, self.tricks_won[team])
            delta = [0, 0]
            delta[team], delta[1 - team] = bidding, defending
            if rules.bid13_wins_game and self.bid == 13 and self.tricks_won[team] >= 13:
                winner = team
        elif rules.auction == "individual":
            for s in range(4):
                value = individual_bid_value(self.bids[s])
                seat_delta[s] = value if self.tricks_by_seat[s] >= self.bids[s] else -value
            delta = [seat_delta[0] + seat_delta[2], seat_delta[1] + seat_delta[3]]
        else:
            delta = list(no_auction_score(rules, tuple(self.tricks_won)))
        for t in range(2):
            self.scores[t] += delta[t]
        for s in range(4):
            self.seat_scores[s] += seat_delta[s]
        if winner is None:
            winner = self._game_winner()
        self.hands_played += 1
        return self._end_deal(tuple(delta), seat_delta, thrown_in=False, winner=winner, next_dealer=True)

    def _game_winner(self) -> Optional[int]:
        target = self.rules.target_score
        if self.rules.auction == "individual":
            ss = self.seat_scores
            qualifies = [
                any(ss[s] >= target and ss[s ^ 2] >= 0 for s in (t, t + 2)) for t in range(2)
            ]
        else:
            qualifies = [self.scores[t] >= target for t in range(2)]
        if qualifies[0] and qualifies[1]:
            if self.scores[0] == self.scores[1]:
                return None
            return 0 if self.scores[0] > self.scores[1] else 1
        if qualifies[0]:
            return 0
        if qualifies[1]:
            return 1
        return None

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

    def hand_record(self, delta, seat_delta, thrown_in: bool) -> dict[str, Any]:
        """JSON-serialisable record of the deal that just ended."""
        return {
            "dealer": self.dealer,
            "deal": [list(cards_of(h)) for h in self.deal],
            "exposed_card": self.exposed_card,
            "auction": [[s, a] for s, a in self.auction],
            "declarer": self.declarer,
            "bid": self.bid,
            "bids": list(self.bids),
            "trump": self.trump,
            "plays": [[s, c] for s, c in self.played],
            "trick_winners": list(self.trick_winners),
            "tricks_won": list(self.tricks_won),
            "tricks_by_seat": list(self.tricks_by_seat),
            "score_delta": [int(d) for d in delta],
            "seat_score_delta": [int(d) for d in seat_delta],
            "scores": list(self.scores),
            "seat_scores": list(self.seat_scores),
            "thrown_in": thrown_in,
            "rules": self.rules.to_dict(),
        }


def _safe_action_str(action) -> str:
    try:
        return action_str(int(action))
    except (TypeError, ValueError):
        return "not an action"
