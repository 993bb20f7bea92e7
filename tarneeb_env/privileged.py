"""Privileged features: the cards the other three seats hold, from the acting seat's side.

Only a training-time critic reads these (PerfectDou's "perfect-training, imperfect-execution"): the
value of a position depends on where the unseen cards lie, so a critic that sees them gives advantages
with far less variance, while the policy still sees only the seat's observation. Rows: the seat after
the observer, the partner, the seat before; 52 bits each (``suit*13+rank``), as they stand now.
"""
from __future__ import annotations

import numpy as np

from .cards import NUM_CARDS, NUM_SEATS

PRIV_SIZE = (NUM_SEATS - 1) * NUM_CARDS
_BITS = np.int64(1) << np.arange(NUM_CARDS, dtype=np.int64)


def hidden_hands(hands: np.ndarray, seat: np.ndarray) -> np.ndarray:
    """float32 (N, 156): ``hands`` (N, 4) int64 card masks by absolute seat; ``seat`` (N,) the observers."""
    hands = np.asarray(hands, dtype=np.int64)
    seat = np.asarray(seat, dtype=np.int64)
    rows = np.arange(len(seat))[:, None]
    others = hands[rows, (seat[:, None] + np.arange(1, NUM_SEATS)) % NUM_SEATS]  # (N, 3)
    return ((others[:, :, None] & _BITS) != 0).reshape(len(seat), PRIV_SIZE).astype(np.float32)
