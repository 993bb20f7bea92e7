"""Deals: shuffled or given, with the exposed last card; one code path for both engines."""
from __future__ import annotations

from typing import Optional

import numpy as np

from .cards import FULL_DECK, NUM_CARDS, NUM_TRICKS, cards_of, mask_of
from .rules_core import deal_hands


def deal_cards(rng: np.random.Generator, dealer: int) -> tuple[list[int], int]:
    """Shuffle and deal one card at a time starting left of the dealer.

    Returns the four hands as bit masks and the last card dealt (the dealer's),
    which ``trump: last_card`` exposes. The order is :func:`rules_core.deal_hands`, which the batch
    engine's kernels call on the same permutation.
    """
    perm = rng.permutation(NUM_CARDS).tolist()
    return list(deal_hands(dealer, perm)), perm[-1]


def validate_deal(deal, dealer: int, exposed_card: Optional[int]) -> tuple[list[int], Optional[int]]:
    """Check a fixed deal (four lists of 13 distinct cards); returns masks and the exposed card."""
    if not (isinstance(deal, (list, tuple)) and len(deal) == 4):
        raise ValueError("options['deal'] must be four lists of 13 cards (ints 0..51)")
    masks = []
    for seat, hand in enumerate(deal):
        cards = [int(c) for c in hand]
        if len(cards) != NUM_TRICKS or len(set(cards)) != NUM_TRICKS or not all(0 <= c < NUM_CARDS for c in cards):
            raise ValueError(f"options['deal'][{seat}] must hold 13 distinct cards in 0..51, got {list(hand)}")
        masks.append(mask_of(cards))
    if masks[0] | masks[1] | masks[2] | masks[3] != FULL_DECK:
        raise ValueError("options['deal']: the four hands must together hold all 52 cards")
    if not is_seat(dealer):
        raise ValueError(f"options['dealer'] must be a seat 0..3, got {dealer!r}")
    if exposed_card is not None:
        exposed_card = int(exposed_card)
        if not masks[dealer] >> exposed_card & 1:
            raise ValueError(f"options['exposed_card'] {exposed_card} is not in the dealer's (seat {dealer}) hand")
    return masks, exposed_card


def draw_deal(rules, rng: np.random.Generator, dealer: int, deal=None, exposed_card: Optional[int] = None):
    """The hands (masks) and exposed card (None unless ``trump: last_card``) of the next deal: shuffled from
    ``rng``, or ``deal`` checked; a fixed deal without its exposed card draws one of the dealer's cards."""
    if deal is None:
        hands, exposed = deal_cards(rng, dealer)
    else:
        hands, exposed = validate_deal(deal, dealer, exposed_card)
    if rules.trump != "last_card":
        return hands, None
    if exposed is None:
        exposed = int(rng.choice(cards_of(hands[dealer])))
    return hands, exposed


def is_seat(x) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, bool) and 0 <= x < 4
