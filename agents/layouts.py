"""Layouts of the cards a seat cannot see, dealt in agreement with what it knows.

Shared by the two agents that search over hidden cards (``expert`` and ``search``): a layout is four hand
masks holding the seat's own hand, the exposed trump card with the dealer while unplayed, and the unseen
cards spread so that every seat holds as many as it has left and none of a suit it has shown out of.
"""
from __future__ import annotations

import numpy as np

from tarneeb_env.cards import FULL_DECK, cards_of, mask_of, suit_of


def _feasible(count, allowed, left, subsets) -> bool:
    """Whether ``count[q]`` cards of each suit q can fill the seats' ``left`` places, suit q going only
    to the seats in bit mask ``allowed[q]`` (Hall's condition, per set of seats)."""
    for m in subsets:
        cards = 0
        for q in range(4):
            if count[q] and not allowed[q] & ~m:
                cards += count[q]
        if cards > sum(left[s] for s in range(4) if m >> s & 1):
            return False
    return True


def sample_layouts(view, played_mask: int, void, n: int, rng: np.random.Generator) -> list[list[int]]:
    """``n`` layouts of the unseen cards consistent with ``view`` (cards ``played_mask`` gone, ``void[s]`` the
    suits seat ``s`` holds none of), drawn from ``rng``: each a list of 4 hand masks.

    Every card goes to a seat in proportion to the places it has left, among the seats that may hold its
    suit, re-drawn when that would leave some suit nowhere to go (Hall's condition); so every layout that
    agrees with the view can be drawn, uniformly when no suit is constrained.
    """
    seat = view.seat
    hand = mask_of(view.hand)
    need = [13, 13, 13, 13]
    for s, _ in view.played:
        need[s] -= 1
    need[seat] = 0
    fixed = [0, 0, 0, 0]
    fixed[seat] = hand
    exposed = view.exposed_card
    if exposed is not None and view.dealer != seat and not played_mask >> exposed & 1:
        fixed[view.dealer] |= 1 << exposed
        need[view.dealer] -= 1
    known = played_mask | fixed[0] | fixed[1] | fixed[2] | fixed[3]
    cards = cards_of(FULL_DECK & ~known)
    others = [s for s in range(4) if s != seat]
    allowed = [sum(1 << s for s in others if not void[s] >> q & 1) for q in range(4)]  # seat bits per suit
    constrained = any(a != allowed[0] for a in allowed)
    subsets = [m for m in range(16) if not m >> seat & 1]  # m = 0: a suit no seat may hold
    out = []
    for _ in range(n):
        hands = list(fixed)
        left = list(need)
        count = [0, 0, 0, 0]
        for c in cards:
            count[suit_of(c)] += 1
        if not _feasible(count, allowed, left, subsets):
            raise RuntimeError(f"no layout of the unseen cards agrees with seat {seat}'s view (voids {void})")
        order = rng.permutation(len(cards))
        draws = rng.random(len(cards))
        for k, i in enumerate(order.tolist()):
            c = cards[i]
            q = suit_of(c)
            seats = [s for s in others if allowed[q] >> s & 1 and left[s] > 0]
            u = draws[k]
            while True:
                total = sum(left[s] for s in seats)
                r = u * total
                for s in seats:
                    r -= left[s]
                    if r < 0:
                        break
                left[s] -= 1
                count[q] -= 1
                if not constrained or _feasible(count, allowed, left, subsets):
                    break
                left[s] += 1  # this seat would leave some suit nowhere to go: pick another
                count[q] += 1
                seats.remove(s)
            hands[s] |= 1 << c
        out.append(hands)
    return out

