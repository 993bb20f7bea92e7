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
        if st[i, bk.PHASE] != bk.PLAY:
            out[k] = -1
            continue
        cards, _ = bk.legal_sets(st, plays, i, rv)
        if cards & (cards - 1) == 0:  # one legal card
            out[k] = rp.low(cards)
            continue
        seat = st[i, bk.CURRENT]
        hand = st[i, bk.HAND0 + seat]
        unseen = 0
        for s in range(4):
            if s != seat:
                unseen |= st[i, bk.HAND0 + s]
        n = st[i, bk.NPLAYED]
        nt = n % 4
        t0 = n - nt
        tseats = (np.int64(plays[i, t0, 0]), np.int64(plays[i, t0 + 1, 0]) if nt > 1 else 0,
                  np.int64(plays[i, t0 + 2, 0]) if nt > 2 else 0)
        tcards = (np.int64(plays[i, t0, 1]), np.int64(plays[i, t0 + 1, 1]) if nt > 1 else 0,
                  np.int64(plays[i, t0 + 2, 1]) if nt > 2 else 0)
        b, t, v = bk.BIDS0, bk.TBS0, bk.VOID0
        bids = (st[i, b], st[i, b + 1], st[i, b + 2], st[i, b + 3])
        tbs = (st[i, t], st[i, t + 1], st[i, t + 2], st[i, t + 3])
        voids = (st[i, v], st[i, v + 1], st[i, v + 2], st[i, v + 3])
        out[k] = rp.play_card(hand, unseen, seat, st[i, bk.TRUMP_SUIT], st[i, bk.DECLARER], auction, bids, tbs,
                              voids, tseats, tcards, nt)[0]


# compiled in: rule_play, and through legal_sets the batch engine, the rules and the cards
drop_stale_cache(globals(), [rp.__file__, bk.__file__, rc.__file__, cards.__file__], "rule_kernels")
