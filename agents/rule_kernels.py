"""``rule``'s card play compiled onto the batch engine's arrays (:mod:`agents.rule_play`, in numba).

A rollout's ``rule`` opponents make most of their decisions in the play phase; there
:func:`play_actions` reads each game's hand, trick, voids and bids from the
:class:`~tarneeb_env.batch.BatchEnv` state and returns the card, with no
:class:`~tarneeb_env.PlayerView` built (a view costs more than the decision). Bidding and the
trump call stay in Python, on views. Imported only where a batch engine runs.
"""
from __future__ import annotations

import numpy as np
from numba import njit
from numba.extending import overload, register_jitable

from tarneeb_env import batch_kernels as bk
from tarneeb_env import cards
from tarneeb_env import rules_core as rc
from tarneeb_env.kernel_cache import drop_stale_cache

from . import rule_play as rp

_POP13 = np.array(rp.POP, dtype=np.int64)


@overload(rp.bitlen)
def _bitlen(x):
    def impl(x):
        n = 0
        while x:
            x >>= 1
            n += 1
        return n
    return impl


@overload(rp.pop13)
def _pop13(r):
    def impl(r):
        return _POP13[r]
    return impl


for _f in (rp.low, rp.cheapest_master, rp.beats, rp.void_of, rp.discard, rp.partner_counts, rp.follow, rp.lead,
           rp.play_card):
    register_jitable(_f)


@njit(cache=True)
def play_actions(st, plays, games, rv, out):
    """``out[k]``: the card ``rule`` plays in game ``games[k]``, for the seat to act; -1 where that game is
    not in the play phase (the caller decides those from views)."""
    auction = rv[rc.R_AUCTION]
    for k in range(len(games)):
        i = games[k]
        if bk.phase_of(st, i) != rc.PLAY:
            out[k] = -1
            continue
        cards, _ = bk.legal_sets(st, plays, i, rv)
        if cards & (cards - 1) == 0:  # one legal card
            out[k] = rp.low(cards)
            continue
        seat = bk.seat_to_act(st, i)
        unseen = 0
        for s in range(4):
            if s != seat:
                unseen |= bk.hand_of(st, i, s)
        nt, tseats, tcards = bk.trick_so_far(st, plays, i)
        bids, tbs, voids = bk.seat_counts(st, i)
        trump, declarer = bk.contract_of(st, i)
        out[k] = rp.play_card(bk.hand_of(st, i, seat), unseen, seat, trump, declarer, auction, bids, tbs, voids,
                              tseats, tcards, nt)[0]


# compiled in: rule_play, and through legal_sets the batch engine, the rules and the cards
drop_stale_cache(globals(), [rp.__file__, bk.__file__, rc.__file__, cards.__file__], "rule_kernels")
