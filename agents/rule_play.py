"""``rule``'s card play, written once for both of its paths.

:class:`agents.RuleAgent` calls :func:`play_card` from a :class:`~tarneeb_env.PlayerView`, in
plain Python; :mod:`agents.rule_kernels` compiles the same functions with numba and calls them
straight on the batch engine's arrays, so a rollout's ``rule`` opponents choose their cards
without a view (most of their decisions). That asks of this module what numba compiles: ints
and tuples of ints, no Python objects. :func:`bitlen` and :func:`pop13` are the two
primitives with a numba version of their own (``int.bit_length`` and a table lookup have none).

Arguments, from the side of the seat to play: ``hand`` and ``unseen`` (the cards the other
three seats still hold) as 52-bit masks, ``trump`` (0-3), ``declarer`` (-1 for none),
``auction`` (``rules_core.A_*``), ``bids``, ``tbs`` (tricks by seat) and ``voids`` as 4-tuples
indexed by seat, the current trick as ``ntrick`` (0-3) seats and cards in ``tseats`` and
``tcards`` (3-tuples, padded). :func:`play_card` returns ``(card, reason)``, the reason an
index into :data:`REASONS`.
"""
from __future__ import annotations

from tarneeb_env.cards import rank_of, suit_of
from tarneeb_env.rules_core import A_INDIVIDUAL, A_TEAM

RANKS = 0x1FFF
POP = tuple(bin(r).count("1") for r in range(1 << 13))

REASONS = (
    "third hand: make sure of the trick partner may lose",
    "partner is winning: follow with the lowest card",
    "partner is winning: discard from the weakest suit",
    "the trick is trumped: follow low",
    "cannot beat the winning card: follow low",
    "win the trick as cheaply as possible",
    "win with the cheapest sure winner",
    "third hand high",
    "second hand low",
    "overruff as cheaply as possible",
    "cannot overruff: discard from the weakest suit",
    "ruff: partner is not winning this trick",
    "cannot win: discard from the weakest suit",
    "draw trumps with a top trump",
    "draw trumps: we hold the length",
    "cash an established winner",
    "lead the suit partner can ruff",
    "lead low from the longest safe suit",
    "lead through the declarer",
    "top of a sequence",
    "only trumps left: lead the top trump",
    "only trumps left: lead low",
)
(THIRD_SURE, PARTNER_LOW, PARTNER_DISCARD, TRUMPED_LOW, CANNOT_BEAT, CHEAPEST_WIN, SURE_WINNER, THIRD_HIGH,
 SECOND_LOW, OVERRUFF, NO_OVERRUFF, RUFF, CANNOT_WIN, DRAW_TOP, DRAW_LENGTH, CASH, PARTNER_RUFF, LONGEST, THROUGH,
 SEQUENCE, TRUMP_TOP, TRUMP_LOW) = range(len(REASONS))


def bitlen(x: int) -> int:
    """Bits needed for ``x`` >= 0 (``int.bit_length``)."""
    return x.bit_length()


def pop13(r: int) -> int:
    """Cards in a 13-bit suit holding."""
    return POP[r]


def low(x: int) -> int:
    """Lowest set bit of ``x`` > 0."""
    return bitlen(x & -x) - 1


def cheapest_master(mine: int, unseen: int) -> int:
    """Lowest of my cards (suit ranks) that beats every unseen card of the suit, or -1."""
    top = bitlen(unseen)  # ranks >= top are above every unseen card
    above = (mine >> top) << top
    return low(above) if above else -1


def beats(card: int, best: int, trump: int) -> bool:
    s = suit_of(card)
    if s == suit_of(best):
        return card > best
    return s == trump


def void_of(voids, seat: int, suit: int) -> bool:
    return (voids[seat] >> suit) & 1 == 1


def discard(hand: int, unseen: int, trump: int) -> int:
    """The lowest card of the weakest side suit (fewest masters, unguarded, most cards above mine, shortest)."""
    best = -1
    best_key = (0, 0, 0, 0)
    for s in range(4):
        mine = (hand >> (13 * s)) & RANKS
        if s == trump or not mine:
            continue
        uns = (unseen >> (13 * s)) & RANKS
        top = bitlen(mine) - 1
        masters = pop13(mine >> bitlen(uns)) if bitlen(uns) <= top else 0
        above = pop13(uns >> (top + 1))  # unseen cards that beat my best one
        n = pop13(mine)
        guard = 1 if (above == 1 and n == 2) or (above == 2 and n == 3) else 0
        key = (masters, guard, -above, n)
        if best < 0 or key < best_key:
            best_key, best = key, 13 * s + low(mine)
    if best < 0:  # only trumps left
        best = 13 * trump + low((hand >> (13 * trump)) & RANKS)
    return best


def partner_counts(auction: int, seat: int, bids, tbs) -> bool:
    """Whether a trick won by the partner is as good as our own (not so under individual bids)."""
    if auction != A_INDIVIDUAL:
        return True
    p = seat ^ 2
    return tbs[p] < bids[p] or tbs[seat] >= bids[seat]


def follow(hand, unseen, seat, trump, auction, bids, tbs, voids, tseats, tcards, ntrick) -> tuple[int, int]:
    led = suit_of(tcards[0])
    wseat, wcard = tseats[0], tcards[0]
    for k in range(1, ntrick):
        if beats(tcards[k], wcard, trump):
            wseat, wcard = tseats[k], tcards[k]
    pos = ntrick  # 1: second hand, 2: third hand, 3: last
    lho = (seat + 1) & 3
    shift = 13 * led
    mine = (hand >> shift) & RANKS
    uns_led = (unseen >> shift) & RANKS
    uns_trump = (unseen >> (13 * trump)) & RANKS
    lho_ruffs = void_of(voids, lho, led) and uns_trump != 0 and not void_of(voids, lho, trump)
    if wseat == seat ^ 2 and partner_counts(auction, seat, bids, tbs):
        secure = pos == 3
        if not secure:  # third hand: only the left-hand opponent still plays
            if suit_of(wcard) == trump:
                secure = (uns_trump >> (rank_of(wcard) + 1)) == 0
            else:
                secure = (uns_led >> (rank_of(wcard) + 1)) == 0 and not lho_ruffs
        if not secure and mine and suit_of(wcard) == led:
            m = cheapest_master(mine, uns_led)
            if m > rank_of(wcard) and not void_of(voids, lho, led):
                return shift + m, THIRD_SURE
        if mine:
            return shift + low(mine), PARTNER_LOW
        return discard(hand, unseen, trump), PARTNER_DISCARD
    # an opponent is winning (or partner's trick does not help us)
    if mine:
        if suit_of(wcard) != led:
            return shift + low(mine), TRUMPED_LOW
        wr = rank_of(wcard)
        higher = (mine >> (wr + 1)) << (wr + 1)
        if not higher:
            return shift + low(mine), CANNOT_BEAT
        if pos == 3:
            return shift + low(higher), CHEAPEST_WIN
        m = cheapest_master(mine, uns_led)
        if m > wr and not lho_ruffs:
            return shift + m, SURE_WINNER
        if pos == 2:
            top = bitlen(mine) - 1
            # the lowest card equivalent to the top one (the ranks between are played or mine)
            floor = bitlen(uns_led & ((1 << top) - 1))
            card = low((mine >> floor) << floor)
            if card > wr:
                return shift + card, THIRD_HIGH
        return shift + low(mine), SECOND_LOW
    trumps = (hand >> (13 * trump)) & RANKS
    if trumps and led != trump:
        if suit_of(wcard) == trump:
            over = (trumps >> (rank_of(wcard) + 1)) << (rank_of(wcard) + 1)
            if over:
                return 13 * trump + low(over), OVERRUFF
            return discard(hand, unseen, trump), NO_OVERRUFF
        return 13 * trump + low(trumps), RUFF
    return discard(hand, unseen, trump), CANNOT_WIN


def lead(hand, unseen, seat, trump, declarer, auction, bids, voids) -> tuple[int, int]:
    partner = seat ^ 2
    opp0, opp1 = (seat + 1) & 3, (seat + 3) & 3
    tshift = 13 * trump
    trumps = (hand >> tshift) & RANKS
    uns_trump = (unseen >> tshift) & RANKS
    opp_trumps = uns_trump != 0 and not (void_of(voids, opp0, trump) and void_of(voids, opp1, trump))
    if auction == A_TEAM:
        attacking = declarer >= 0 and (declarer & 1) == (seat & 1)
    elif auction == A_INDIVIDUAL:
        attacking = bids[seat] + bids[partner] >= bids[opp0] + bids[opp1]
    else:
        attacking = True
    if trumps and opp_trumps:
        m = cheapest_master(trumps, uns_trump)
        if m >= 0 and attacking:
            return tshift + m, DRAW_TOP
        if attacking and pop13(trumps) > pop13(uns_trump) and pop13(trumps) >= 4:
            return tshift + low(trumps), DRAW_LENGTH
    partner_trumps = uns_trump != 0 and not void_of(voids, partner, trump)
    through = not attacking and declarer == opp0  # the declarer plays right after us
    best, best_key, best_reason = -1, (0, 0), 0
    for s in range(4):
        mine = (hand >> (13 * s)) & RANKS
        if s == trump or not mine:
            continue
        uns = (unseen >> (13 * s)) & RANKS
        m = cheapest_master(mine, uns)
        # an opponent is out of the suit and may still hold a trump
        risky = opp_trumps and ((void_of(voids, opp0, s) and not void_of(voids, opp0, trump))
                                or (void_of(voids, opp1, s) and not void_of(voids, opp1, trump)))
        if m >= 0 and not risky:
            key, card, reason = (4, pop13(mine)), m, CASH
        elif void_of(voids, partner, s) and partner_trumps and not risky:
            key, card, reason = (3, 0), low(mine), PARTNER_RUFF
        else:
            top = bitlen(mine) - 1
            second = bitlen(mine ^ (1 << top)) - 1
            # top of a sequence: two honours with no unseen card between them
            seq = second >= 9 and ((uns >> (second + 1)) & ((1 << (top - second - 1)) - 1)) == 0
            # a king or queen that an unseen card still beats is worth keeping: do not lead away from it
            tenace = top >= 10 and (uns >> (top + 1)) != 0 and not seq
            score = pop13(mine) - (3 if tenace else 0) - (6 if risky else 0)
            reason = LONGEST
            if through and top < 9:
                score += 1
                reason = THROUGH
            if seq:
                key, card, reason = (2, score), top, SEQUENCE
            else:
                key, card = (1, score), low(mine)
        if best < 0 or key > best_key:
            best_key, best, best_reason = key, 13 * s + card, reason
    if best >= 0:
        return best, best_reason
    m = cheapest_master(trumps, uns_trump)  # only trumps left
    if m >= 0:
        return tshift + m, TRUMP_TOP
    return tshift + low(trumps), TRUMP_LOW


def play_card(hand, unseen, seat, trump, declarer, auction, bids, tbs, voids, tseats, tcards, ntrick):
    """``(card, reason)``: the card ``rule`` plays (the arguments as the module docstring says)."""
    if ntrick == 0:
        return lead(hand, unseen, seat, trump, declarer, auction, bids, voids)
    return follow(hand, unseen, seat, trump, auction, bids, tbs, voids, tseats, tcards, ntrick)
