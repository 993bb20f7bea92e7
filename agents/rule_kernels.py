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

from tarneeb_env import batch_kernels
from tarneeb_env import cards
from tarneeb_env import rules_core
from tarneeb_env.kernel_cache import drop_stale_cache

from . import rule_play

_POP13 = np.array(rule_play.POP, dtype=np.int64)


@overload(rule_play.bitlen)
def _bitlen(x):
    def impl(x):
        n = 0
        while x:
            x >>= 1
            n += 1
        return n
    return impl


@overload(rule_play.pop13)
def _pop13(r):
    def impl(r):
        return _POP13[r]
    return impl


for _f in (cards.suit_of, cards.rank_of, rule_play.low, rule_play.cheapest_master, rule_play.beats,
           rule_play.void_of, rule_play.discard, rule_play.partner_counts, rule_play.follow, rule_play.lead,
           rule_play.play_card):
    register_jitable(_f)


@njit(cache=True)
def play_actions(state, plays, games, rules_vec, out):
    """``out[k]``: the card ``rule`` plays in game ``games[k]``, for the seat to act; -1 where that game is
    not in the play phase (the caller decides those from views)."""
    auction = rules_vec[rules_core.R_AUCTION]
    for k in range(len(games)):
        i = games[k]
        if batch_kernels.phase_of(state, i) != rules_core.PLAY:
            out[k] = -1
            continue
        cards, _ = batch_kernels.legal_sets(state, plays, i, rules_vec)
        if cards & (cards - 1) == 0:  # one legal card
            out[k] = rule_play.low(cards)
            continue
        seat = batch_kernels.seat_to_act(state, i)
        unseen = 0
        for s in range(4):
            if s != seat:
                unseen |= batch_kernels.hand_of(state, i, s)
        nt, tseats, tcards = batch_kernels.trick_so_far(state, plays, i)
        bids, tbs, voids = batch_kernels.seat_counts(state, i)
        trump, declarer = batch_kernels.contract_of(state, i)
        hand = batch_kernels.hand_of(state, i, seat)
        out[k] = rule_play.play_card(hand, unseen, seat, trump, declarer, auction, bids, tbs, voids, tseats, tcards,
                                     nt)[0]


# compiled in: rule_play, and through legal_sets the batch engine, the rules and the cards
drop_stale_cache(globals(), [rule_play.__file__, batch_kernels.__file__, rules_core.__file__, cards.__file__],
                 "rule_kernels")
