"""The phase machine's shared transitions in ``rules_core``, scripted, each as plain Python (``TarneebGame``
calls them so) and compiled by numba (the batch kernels call them so)."""
from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from tarneeb_env import make_rules
from tarneeb_env import rules_core
from tarneeb_env.cards import FULL_DECK, NUM_CARDS, mask_of
from tarneeb_env.deal import deal_cards
from tarneeb_env.rules_core import (
    ALL_PASSED, BIDS_TOO_LOW, CALLING, CONTRACT, NEXT_DEAL, NO_SUIT, OPEN_PLAY, R_EPISODE_GAME, R_MAX_HANDS,
    TRUNCATED,
)

CLUBS, DIAMONDS, HEARTS, SPADES = range(4)
TEAM = make_rules("classic").vector
INDIVIDUAL = make_rules("syrian41").vector  # min_total_bids 11


def both(fn):
    """The function as Python runs it and as the kernels compile it."""
    return pytest.mark.parametrize("impl", [fn, njit(fn)], ids=["python", "numba"])


@both(rules_core.deal_hands)
def test_deal_hands_goes_round_from_the_dealers_left(impl):
    perm = np.arange(NUM_CARDS, dtype=np.int64)
    hands = [int(h) for h in impl(3, perm)]  # dealer 3: seat 0 gets the 1st, 5th, ... card
    assert hands == [mask_of(range(s, NUM_CARDS, 4)) for s in range(4)]
    shuffled = np.random.default_rng(5).permutation(NUM_CARDS)
    hands = [int(h) for h in impl(1, shuffled)]
    assert hands[1] >> int(shuffled[-1]) & 1  # the last card is the dealer's
    assert hands[0] | hands[1] | hands[2] | hands[3] == FULL_DECK and sum(bin(h).count("1") for h in hands) == 52


def test_deal_cards_deals_the_permutation_it_draws():
    hands, last = deal_cards(np.random.default_rng(9), 2)
    perm = np.random.default_rng(9).permutation(NUM_CARDS)
    assert hands == list(rules_core.deal_hands(2, perm.tolist())) and last == perm[-1]


def auction(impl, rules_vec, seat, ncalls, high_bid=0, high_bidder=-1, passed=(), bids=(0, 0, 0, 0)):
    bits = sum(1 << s for s in passed)
    return tuple(int(x) for x in impl(np.array(rules_vec, dtype=np.int64), seat, ncalls, high_bid, high_bidder, bits,
                                      len(passed), sum(bids)))


@both(rules_core.auction_after)
def test_team_auction_after_a_call(impl):
    assert auction(impl, TEAM, 0, 1, 7, 0) == (CALLING, 1)
    assert auction(impl, TEAM, 0, 3, 8, 0, passed=(1, 2)) == (CALLING, 3)  # passes are final
    assert auction(impl, TEAM, 3, 4, 8, 0, passed=(1, 2, 3)) == (CONTRACT, 0)  # third pass behind a bid
    assert auction(impl, TEAM, 2, 3, 9, 2, passed=(0, 1, 3)) == (CONTRACT, 2)  # a bid behind three passes
    assert auction(impl, TEAM, 1, 2, 13, 1) == (CONTRACT, 1)  # 13 cannot be outbid
    assert auction(impl, TEAM, 2, 3, passed=(0, 1, 2)) == (CALLING, 3)  # three passes, no bid: the last calls
    assert auction(impl, TEAM, 3, 4, passed=(0, 1, 2, 3)) == (ALL_PASSED, NO_SUIT)


@both(rules_core.auction_after)
def test_individual_bidding_after_a_call(impl):
    assert auction(impl, INDIVIDUAL, 2, 3, bids=(3, 4, 2, 0)) == (CALLING, 3)
    assert auction(impl, INDIVIDUAL, 3, 4, bids=(3, 4, 2, 2)) == (OPEN_PLAY, NO_SUIT)  # 11: enough
    assert auction(impl, INDIVIDUAL, 3, 4, bids=(3, 3, 2, 2)) == (BIDS_TOO_LOW, NO_SUIT)  # 10 < 11


@both(rules_core.legal_cards)
def test_legal_cards_follow_suit_when_the_hand_can(impl):
    hand = mask_of([0, 5, 13 * HEARTS + 2, 13 * SPADES + 12])
    assert impl(hand, NO_SUIT) == hand
    assert impl(hand, CLUBS) == mask_of([0, 5])
    assert impl(hand, HEARTS) == mask_of([13 * HEARTS + 2])
    assert impl(hand, DIAMONDS) == hand  # void: any card


@both(rules_core.voids_after)
def test_voids_after_a_card_show_the_suit_led_when_not_followed(impl):
    assert impl(0, 13 * SPADES, NO_SUIT) == 0  # leading shows nothing
    assert impl(0, 13 * HEARTS + 4, HEARTS) == 0
    assert impl(1 << CLUBS, 13 * SPADES, DIAMONDS) == (1 << CLUBS) | (1 << DIAMONDS)


def test_rules_vector_holds_no_episode_settings():
    """Rules alone cannot say when an episode is truncated: reading it from them fails instead of inventing it."""
    rules = make_rules("classic")
    with pytest.raises(IndexError):
        rules_core.deal_outcome(rules.vector, False, False, 1)
    rules_vec = rules_core.env_vector(rules, "game", "score_diff", 3)
    assert rules_vec[: len(rules.vector)] == rules.vector
    assert (rules_vec[R_EPISODE_GAME], rules_vec[R_MAX_HANDS]) == (1, 3)
    assert [rules_core.deal_outcome(rules_vec, False, False, deals) for deals in (2, 3)] == [NEXT_DEAL, TRUNCATED]

