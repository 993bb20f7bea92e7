"""Cards and the action layout shared by every part of tarneeb-rl.

A card is an int ``c = suit * 13 + rank``: suits clubs=0, diamonds=1, hearts=2,
spades=3; rank 0 is the two and rank 12 the ace. Hands are kept as 52-bit int
masks (bit ``c`` set when the card is held), which makes legality checks a
couple of integer operations.

Action layout (``Discrete(70)``)::

    0-51   play card c
    52     pass
    53-65  bid b tricks (action 52 + b, b = 1..13)
    66-69  name suit s as trump (action 66 + s)
"""
from __future__ import annotations

NUM_CARDS = 52
NUM_SEATS = 4
NUM_TRICKS = 13
SUIT_SIZE = 13  # cards of each suit: card c is rank c % SUIT_SIZE of suit c // SUIT_SIZE
NUM_ACTIONS = 70
PASS = 52
BID_BASE = 52
TRUMP_BASE = 66

SUITS = ("clubs", "diamonds", "hearts", "spades")
SUIT_LETTERS = "CDHS"
SUIT_SYMBOLS = "♣♦♥♠"
RANK_NAMES = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")

SUIT_MASK = tuple(((1 << SUIT_SIZE) - 1) << (SUIT_SIZE * s) for s in range(4))  # each suit's card bits
FULL_DECK = (1 << 52) - 1


def suit_of(card: int) -> int:
    return card // 13


def rank_of(card: int) -> int:
    return card % 13


def bid_action(tricks: int) -> int:
    return BID_BASE + tricks


def trump_action(suit: int) -> int:
    return TRUMP_BASE + suit


def mask_of(cards) -> int:
    """Bit mask of an iterable of cards."""
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def _suit_tuples(suit: int) -> tuple[tuple[int, ...], ...]:
    """Entry m: the cards of ``suit`` whose ranks are the bits of the 13-bit m (built by doubling: 5 ms)."""
    table = [()]
    for rank in range(13):
        card = (13 * suit + rank,)
        table += [cards + card for cards in table]
    return tuple(table)


_SUIT_TUPLES = tuple(_suit_tuples(s) for s in range(4))  # a hand's cards in four look-ups


def cards_of(mask: int) -> tuple[int, ...]:
    """Sorted set bits of a mask: the cards of a hand, or the actions of a 70-bit legal set."""
    t = _SUIT_TUPLES
    out = t[0][mask & 8191] + t[1][mask >> 13 & 8191] + t[2][mask >> 26 & 8191] + t[3][mask >> 39 & 8191]
    high = mask >> NUM_CARDS
    if high:
        out += tuple(NUM_CARDS + b for b in range(high.bit_length()) if high >> b & 1)
    return out


def card_str(card: int, symbols: bool = True) -> str:
    """``"Q♠"`` (or ``"QS"`` with ``symbols=False``)."""
    suit = SUIT_SYMBOLS if symbols else SUIT_LETTERS
    return RANK_NAMES[rank_of(card)] + suit[suit_of(card)]


def action_str(action: int, symbols: bool = True) -> str:
    """Human-readable name of any action: a card, ``pass``, ``bid 8``, ``trump ♥``."""
    if 0 <= action < NUM_CARDS:
        return card_str(action, symbols)
    if action == PASS:
        return "pass"
    if BID_BASE < action < TRUMP_BASE:
        return f"bid {action - BID_BASE}"
    if TRUMP_BASE <= action < NUM_ACTIONS:
        suit = action - TRUMP_BASE
        return "trump " + (SUIT_SYMBOLS[suit] if symbols else SUITS[suit])
    raise ValueError(f"not an action: {action!r} (actions are 0..{NUM_ACTIONS - 1})")
