"""The observation layout and its incremental writer.

Every block is from the observer's side: "relative seat" r = (seat - observer) % 4,
so r=0 is the observer, r=1 the next player (right-hand opponent), r=2 the
partner, r=3 the left-hand opponent. Team blocks are (us, them).

=================  ====  =====================================================
block              size  content
=================  ====  =====================================================
``hand``             52  own unplayed cards
``played``          208  4 x 52: every card each relative seat played this hand
``trick``           208  4 x 52: the card each relative seat put in the current trick
``bids``             52  4 x 13: [r, b-1] = 1 when seat r bid b
``passed``            4  seat r has passed
``pass_at``          56  4 x 14: [r, k] = 1 when seat r passed over highest bid k
                         (k = 0: no bid yet); with ``bids`` this gives the whole
                         auction in order, since passes are final
``declarer``          4  relative seat of the declarer
``contract``         13  the winning bid b at index b-1
``trump``             4  the trump suit
``exposed``          52  the card the dealer exposed (``trump: last_card``)
``tricks_team``       2  tricks won this hand / 13
``tricks_seat``       4  tricks won by each relative seat / 13
``scores``            2  game score (before this hand; after it in phase done) / target
``seat_scores``       4  per-player score (individual bidding) / target
``target``            1  target score / 100
``dealer``            4  relative seat of the dealer
``phase``             4  bidding, trump, play, done
``leader``            4  relative seat that led (or leads) the current trick
``voids``            16  4 x 4: [r, u] = 1 once seat r has failed to follow suit u
                         (so holds none of it): what ``played`` cannot tell, since
                         it does not say which cards fell in one trick
=================  ====  =====================================================

Nothing in it depends on cards another seat still holds. The encoder is one
function per fact of the game (``put_*`` below), the only code that knows this
layout. ``ObservationWriter`` keeps one row per observer and calls them for all
four on each event (a handful of element writes per decision), so reading an
observation is a copy, not a rebuild; the batch kernels call the same functions
for the one row of the seat to act.
"""
from __future__ import annotations

import numpy as np

from .cards import NUM_CARDS, NUM_SEATS, NUM_TRICKS
from .rules_core import NO_SUIT

LAYOUT = (
    ("hand", 52),
    ("played", 208),
    ("trick", 208),
    ("bids", 52),
    ("passed", 4),
    ("pass_at", 56),
    ("declarer", 4),
    ("contract", 13),
    ("trump", 4),
    ("exposed", 52),
    ("tricks_team", 2),
    ("tricks_seat", 4),
    ("scores", 2),
    ("seat_scores", 4),
    ("target", 1),
    ("dealer", 4),
    ("phase", 4),
    ("leader", 4),
    ("voids", 16),
)
SIZES: dict[str, int] = dict(LAYOUT)
OFFSETS: dict[str, int] = {}
_o = 0
for _name, _size in LAYOUT:
    OFFSETS[_name] = _o
    _o += _size
OBS_SIZE = _o
assert OBS_SIZE == 694, OBS_SIZE
OBS_VERSION = 2  # bump whenever the layout changes; checkpoints record it (2 added ``voids`` at the end)

HAND, PLAYED, TRICK = OFFSETS["hand"], OFFSETS["played"], OFFSETS["trick"]
BIDS, PASSED, PASS_AT = OFFSETS["bids"], OFFSETS["passed"], OFFSETS["pass_at"]
DECLARER, CONTRACT, TRUMP, EXPOSED = OFFSETS["declarer"], OFFSETS["contract"], OFFSETS["trump"], OFFSETS["exposed"]
TRICKS_TEAM, TRICKS_SEAT = OFFSETS["tricks_team"], OFFSETS["tricks_seat"]
SCORES, SEAT_SCORES, TARGET = OFFSETS["scores"], OFFSETS["seat_scores"], OFFSETS["target"]
DEALER, PHASE, LEADER, VOIDS = OFFSETS["dealer"], OFFSETS["phase"], OFFSETS["leader"], OFFSETS["voids"]
# Per-seat row lengths of the blocks by relative seat: ``bids`` holds bid b at b-1 (b = 1..13), ``pass_at`` the
# highest bid passed over (0..13), ``voids`` one flag per suit.
BIDS_STRIDE = SIZES["bids"] // NUM_SEATS
PASS_AT_STRIDE = SIZES["pass_at"] // NUM_SEATS
VOIDS_STRIDE = SIZES["voids"] // NUM_SEATS
assert (BIDS_STRIDE, PASS_AT_STRIDE, VOIDS_STRIDE) == (13, 14, 4)
TARGET_SCALE = 100.0  # the target block holds target_score / TARGET_SCALE

TRICK_END = TRICK + SIZES["trick"]
AUCTION_BLOCKS = slice(BIDS, CONTRACT + SIZES["contract"])  # bids, passed, pass_at, declarer, contract
assert [name for name, _ in LAYOUT].index("contract") - [name for name, _ in LAYOUT].index("bids") == 4

NONE = NO_SUIT  # no exposed card, no trump (yet), no seat: the engines' value, which the kernels pass in
CLEAR, SET = 0.0, 1.0


# ---- the encoder: what each fact of a game writes into observer ``o``'s row (float32[OBS_SIZE], zeroed at the
# deal). The only code that knows the layout: ObservationWriter calls these for the four rows as events happen,
# the batch kernels (which compile them in) for one row from a game's stored state, and the contract7 view of
# agents.model writes its auction with them. Plain arithmetic on ints and arrays, so numba compiles them.
def put_deal(row, o, hand, dealer, target, exposed, trump):
    """A deal's first facts: the hand (a card mask), the dealer, the target, the exposed card and the trump
    fixed before any call (``NONE`` for none)."""
    for c in range(NUM_CARDS):  # every bit, not a loop over the cards held: no branch for the kernels to miss
        row[HAND + c] = (hand >> c) & 1
    row[DEALER + ((dealer - o) & 3)] = SET
    row[TARGET] = target / TARGET_SCALE
    if exposed >= 0:
        row[EXPOSED + exposed] = SET
    if trump >= 0:
        row[TRUMP + trump] = SET


def put_scores(row, o, scores, seat_scores, target):
    """The game scores (us, them) and each relative seat's score, as fractions of the target."""
    team = o & 1
    row[SCORES] = scores[team] / target
    row[SCORES + 1] = scores[1 - team] / target
    for s in range(4):
        row[SEAT_SCORES + ((s - o) & 3)] = seat_scores[s] / target


def put_phase(row, phase, value):
    row[PHASE + phase] = value


def put_bid(row, o, seat, bid):
    row[BIDS + ((seat - o) & 3) * BIDS_STRIDE + bid - 1] = SET


def put_pass(row, o, seat, high_bid):
    """``seat`` passed over the highest bid ``high_bid`` (0: none yet)."""
    r = (seat - o) & 3
    row[PASSED + r] = SET
    row[PASS_AT + r * PASS_AT_STRIDE + high_bid] = SET


def put_contract(row, o, declarer, bid):
    row[DECLARER + ((declarer - o) & 3)] = SET
    row[CONTRACT + bid - 1] = SET


def put_trump(row, suit):
    row[TRUMP + suit] = SET


def put_leader(row, o, seat, value):
    row[LEADER + ((seat - o) & 3)] = value


def put_play(row, o, seat, card, in_trick):
    """``seat`` played ``card`` (to the current trick when ``in_trick``); it leaves the hand if it was ``o``'s."""
    if seat == o:
        row[HAND + card] = CLEAR
    rel = ((seat - o) & 3) * NUM_CARDS + card
    row[PLAYED + rel] = SET
    if in_trick:
        row[TRICK + rel] = SET


def clear_trick(row):
    row[TRICK:TRICK_END] = CLEAR


def put_void(row, o, seat, suit):
    row[VOIDS + ((seat - o) & 3) * VOIDS_STRIDE + suit] = SET


def put_team_tricks(row, o, tricks_won):
    """Tricks won this hand by (us, them), of 13."""
    team = o & 1
    row[TRICKS_TEAM] = tricks_won[team] / NUM_TRICKS
    row[TRICKS_TEAM + 1] = tricks_won[1 - team] / NUM_TRICKS


def put_seat_tricks(row, o, seat, tricks):
    row[TRICKS_SEAT + ((seat - o) & 3)] = tricks / NUM_TRICKS


ENCODER = (put_deal, put_scores, put_phase, put_bid, put_pass, put_contract, put_trump, put_leader, put_play,
           clear_trick, put_void, put_team_tricks, put_seat_tricks)
"""What the batch kernels compile in (:mod:`tarneeb_env.batch_kernels` registers each with numba)."""


class ObservationWriter:
    """Keeps ``buf[o]`` equal to observer ``o``'s observation, event by event, with the encoder above."""

    def __init__(self):
        self.buf = np.zeros((4, OBS_SIZE), dtype=np.float32)
        self.rows = tuple(self.buf)
        self.leader = NONE
        self.phase_index = NONE

    def __getstate__(self):
        return {"buf": self.buf, "leader": self.leader, "phase_index": self.phase_index}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.rows = tuple(self.buf)  # views must be re-made: pickle copies them

    def on_deal(self, game) -> None:
        self.buf.fill(CLEAR)
        target = game.rules.target_score
        exposed = NONE if game.exposed_card is None else game.exposed_card
        trump = NONE if game.trump is None else game.trump
        for o, row in enumerate(self.rows):
            put_deal(row, o, game.hands[o], game.dealer, target, exposed, trump)
            put_scores(row, o, game.scores, game.seat_scores, target)
        self.leader = NONE
        self.phase_index = NONE

    def on_phase(self, game) -> None:
        for row in self.rows:
            if self.phase_index >= 0:
                put_phase(row, self.phase_index, CLEAR)
            put_phase(row, game.phase, SET)
        self.phase_index = game.phase

    def on_bid(self, seat: int, bid: int) -> None:
        for o, row in enumerate(self.rows):
            put_bid(row, o, seat, bid)

    def on_pass(self, seat: int, high_bid: int) -> None:
        for o, row in enumerate(self.rows):
            put_pass(row, o, seat, high_bid)

    def on_contract(self, declarer: int, bid: int) -> None:
        for o, row in enumerate(self.rows):
            put_contract(row, o, declarer, bid)

    def on_trump(self, suit: int) -> None:
        for row in self.rows:
            put_trump(row, suit)

    def on_leader(self, seat: int) -> None:
        for o, row in enumerate(self.rows):
            if self.leader >= 0:
                put_leader(row, o, self.leader, CLEAR)
            put_leader(row, o, seat, SET)
        self.leader = seat

    def on_play(self, seat: int, card: int) -> None:
        r0, r1, r2, r3 = self.rows  # unrolled: the hottest event, one per card
        put_play(r0, 0, seat, card, True)
        put_play(r1, 1, seat, card, True)
        put_play(r2, 2, seat, card, True)
        put_play(r3, 3, seat, card, True)

    def on_void(self, seat: int, suit: int) -> None:
        for o, row in enumerate(self.rows):
            put_void(row, o, seat, suit)

    def on_trick_end(self, winner: int, cards, tricks_won, tricks_by_seat) -> None:
        for o, row in enumerate(self.rows):
            clear_trick(row)
            put_team_tricks(row, o, tricks_won)
            put_seat_tricks(row, o, winner, tricks_by_seat[winner])
        self.on_leader(winner)

    def on_hand_end(self, game) -> None:
        target = game.rules.target_score
        for o, row in enumerate(self.rows):
            put_scores(row, o, game.scores, game.seat_scores, target)
        self.on_phase(game)
