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

Nothing in it depends on cards another seat still holds. The writer keeps one
row per observer and updates all four on each event (a handful of element
writes per decision), so reading an observation is a copy, not a rebuild.
"""
from __future__ import annotations

import numpy as np

from .cards import NUM_CARDS, NUM_SEATS

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
# Per-seat row lengths of the auction blocks, for every writer of them (here, the batch kernel, the contract7
# view): ``bids`` holds bid b at b-1 (b = 1..13), ``pass_at`` the highest bid passed over (0..13).
BIDS_STRIDE = SIZES["bids"] // NUM_SEATS
PASS_AT_STRIDE = SIZES["pass_at"] // NUM_SEATS
assert (BIDS_STRIDE, PASS_AT_STRIDE) == (13, 14)

# REL[o][s]: relative seat of absolute seat s seen by observer o.
REL = tuple(tuple((s - o) % 4 for s in range(4)) for o in range(4))


class ObservationWriter:
    """Keeps ``buf[o]`` equal to observer ``o``'s observation, event by event."""

    def __init__(self):
        self.buf = np.zeros((4, OBS_SIZE), dtype=np.float32)
        self._flat = self.buf.reshape(-1)
        self.leader = -1
        self.phase_index = -1

    def __getstate__(self):
        return {"buf": self.buf, "leader": self.leader, "phase_index": self.phase_index}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._flat = self.buf.reshape(-1)  # a view must be re-made: pickle copies it

    def _set_all(self, base: int, seat: int, stride: int, offset: int, value: float = 1.0) -> None:
        """Write ``value`` at ``base + rel(seat)*stride + offset`` in all four rows."""
        flat = self._flat
        for o in range(4):
            flat[o * OBS_SIZE + base + ((seat - o) & 3) * stride + offset] = value

    def on_deal(self, game) -> None:
        buf = self.buf
        buf.fill(0.0)
        target = game.rules.target_score
        for o in range(4):
            hand = game.hands[o]
            c = 0
            while hand:
                if hand & 1:
                    buf[o, HAND + c] = 1.0
                hand >>= 1
                c += 1
            buf[o, SCORES] = game.scores[o & 1] / target
            buf[o, SCORES + 1] = game.scores[1 - (o & 1)] / target
            for s in range(4):
                buf[o, SEAT_SCORES + REL[o][s]] = game.seat_scores[s] / target
            buf[o, DEALER + REL[o][game.dealer]] = 1.0
        buf[:, TARGET] = target / 100.0
        if game.exposed_card is not None:
            buf[:, EXPOSED + game.exposed_card] = 1.0
        if game.trump is not None:
            buf[:, TRUMP + game.trump] = 1.0
        self.leader = -1
        self.phase_index = -1

    def on_phase(self, game) -> None:
        if self.phase_index >= 0:
            self.buf[:, PHASE + self.phase_index] = 0.0
        self.phase_index = game.phase
        self.buf[:, PHASE + game.phase] = 1.0

    def on_bid(self, seat: int, bid: int) -> None:
        self._set_all(BIDS, seat, BIDS_STRIDE, bid - 1)

    def on_pass(self, seat: int, high_bid: int) -> None:
        self._set_all(PASSED, seat, 1, 0)
        self._set_all(PASS_AT, seat, PASS_AT_STRIDE, high_bid)

    def on_contract(self, declarer: int, bid: int) -> None:
        self._set_all(DECLARER, declarer, 1, 0)
        self.buf[:, CONTRACT + bid - 1] = 1.0

    def on_trump(self, suit: int) -> None:
        self.buf[:, TRUMP + suit] = 1.0

    def on_leader(self, seat: int) -> None:
        if self.leader >= 0:
            self._set_all(LEADER, self.leader, 1, 0, 0.0)
        self.leader = seat
        self._set_all(LEADER, seat, 1, 0)

    def on_play(self, seat: int, card: int) -> None:
        flat = self._flat
        flat[seat * OBS_SIZE + HAND + card] = 0.0
        for o in range(4):
            rel = ((seat - o) & 3) * NUM_CARDS + card
            row = o * OBS_SIZE
            flat[row + PLAYED + rel] = 1.0
            flat[row + TRICK + rel] = 1.0

    def on_void(self, seat: int, suit: int) -> None:
        self._set_all(VOIDS, seat, 4, suit)

    def on_trick_end(self, winner: int, cards, tricks_won, tricks_by_seat) -> None:
        buf = self.buf
        buf[:, TRICK : TRICK + SIZES["trick"]] = 0.0
        for o in range(4):
            team = o & 1
            buf[o, TRICKS_TEAM] = tricks_won[team] / 13.0
            buf[o, TRICKS_TEAM + 1] = tricks_won[1 - team] / 13.0
            buf[o, TRICKS_SEAT + ((winner - o) & 3)] = tricks_by_seat[winner] / 13.0
        self.on_leader(winner)

    def on_hand_end(self, game) -> None:
        target = game.rules.target_score
        for o in range(4):
            self.buf[o, SCORES] = game.scores[o & 1] / target
            self.buf[o, SCORES + 1] = game.scores[1 - (o & 1)] / target
            for s in range(4):
                self.buf[o, SEAT_SCORES + REL[o][s]] = game.seat_scores[s] / target
        self.on_phase(game)
