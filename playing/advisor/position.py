"""A position as another program (or a person at a real table) describes it, checked by replaying it through the
rules engine, and turned into the seat's :class:`~tarneeb_env.PlayerView`.

A position is a JSON object (docs/advisor.md)::

    {"rules": "classic", "seat": 0, "dealer": 3, "hand": ["AS", "10S", ...],
     "auction": [8, "pass", "pass", "pass"], "trump": "S",
     "tricks": [["AC", "2D", "2C", "2S"], ["KH"]], "scores": [12, 5]}

``hand`` is the cards the seat holds now; ``auction`` the calls in order from the eldest hand (the seat after
the dealer), each ``"pass"`` or a bid (a number, or ``"bid 8"``); ``trump`` the suit the declarer named (under
rules that fix the trump it may be left out, or must agree); ``tricks`` the cards played, trick by trick, each
from its leader (only the last may be unfinished); ``exposed_card`` the dealer's card shown to all under
``trump: last_card`` rules. A card is a short name (``QH``, ``10S``, ``TS``, ``Q♥``) or its id 0-51.

Two kinds of refusal: :class:`PositionError` with ``status`` 400 for a request that is not a position (a wrong
type, an unknown key, a card name that does not read) and 422 for a position that cannot happen (a card twice,
wrong hand sizes, a bid lower than the last, a card that breaks follow-suit, the seat not on turn). The other
hands are filled with the unseen cards (dealt from a fixed seed, agreeing with the suits each seat has shown
out of) only so that the engine can replay the deal: the view hides them, and no message names them.
"""
from __future__ import annotations

from types import SimpleNamespace
from typing import Any, Optional

import numpy as np

from agents.layouts import sample_layouts
from tarneeb_env import PRESETS, Rules, TarneebGame, make_rules
from tarneeb_env.cards import (
    BID_BASE, NUM_CARDS, NUM_TRICKS, PASS, SUITS, TRUMP_BASE, card_str, cards_of, mask_of,
)
from tarneeb_env.game import HandResult, trick_winner
from tarneeb_env.rules_core import PLAY, TRUMP, first_leader, game_winner
from tarneeb_env.view import PlayerView, make_view

from ..screen import parse_card, parse_suit

KEYS = ("rules", "seat", "dealer", "hand", "auction", "trump", "tricks", "scores", "seat_scores", "exposed_card")
MAX_SCORE = 10**6  # a score beyond any game's
SEAT_WORDS = ("seat 0", "seat 1", "seat 2", "seat 3")


class PositionError(ValueError):
    """A position refused: ``status`` 400 (not a position) or 422 (one that cannot happen); the message says why."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


def _bad(message: str) -> PositionError:
    return PositionError(400, message)


def _impossible(message: str) -> PositionError:
    return PositionError(422, message)


# ------------------------------------------------------------------------------------------ reading fields
def read_rules(value: Any) -> Rules:
    """A preset name, or an object of rule fields with an optional base ``preset`` (never a file)."""
    if isinstance(value, str):
        if value not in PRESETS:
            raise _bad(f"rules: unknown preset {value!r}; presets: {', '.join(PRESETS)} (or an object of rule fields)")
        return PRESETS[value]
    if isinstance(value, dict):
        try:
            return make_rules(value)
        except (ValueError, TypeError) as e:
            raise _bad(str(e)[:300]) from None
    raise _bad("rules: expected a preset name or an object of rule fields")


def read_card(value: Any, where: str) -> int:
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < NUM_CARDS:
        return value
    if isinstance(value, str) and len(value) <= 20:
        card = parse_card(value)
        if card is not None:
            return card
    raise _bad(f"{where}: {_short(value)} is not a card (write it as QH, 10S, TS, Q♥ or an id 0-51)")


def read_call(value: Any, where: str) -> int:
    """A call of the auction: ``"pass"``, a bid as a number, ``"8"`` or ``"bid 8"`` -> its action."""
    if isinstance(value, str) and len(value) <= 20:
        word = " ".join(value.strip().lower().split())
        if word in ("pass", "p"):
            return PASS
        if word.startswith("bid "):
            word = word[4:]
        if word.isdigit():
            value = int(word)
    if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= NUM_TRICKS:
        return BID_BASE + value
    raise _bad(f"{where}: {_short(value)} is not a call (write \"pass\" or a bid 1-13)")


def read_suit(value: Any, where: str) -> int:
    suit = parse_suit(value) if isinstance(value, str) and len(value) <= 20 else None
    if suit is None:
        raise _bad(f"{where}: {_short(value)} is not a suit (write C, D, H or S)")
    return suit


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _seat(value: Any, name: str) -> int:
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 4:
        return value
    raise _bad(f"{name}: expected a seat 0-3, got {_short(value)}")


def _list(value: Any, name: str, most: int) -> list:
    if not isinstance(value, list):
        raise _bad(f"{name}: expected a list, got {_short(value)}")
    if len(value) > most:
        raise _bad(f"{name}: at most {most} entries, got {len(value)}")
    return value


def _ints(value: Any, n: int, name: str) -> tuple[int, ...]:
    ok = isinstance(value, list) and len(value) == n
    ok = ok and all(isinstance(x, int) and not isinstance(x, bool) and abs(x) <= MAX_SCORE for x in value)
    if not ok:
        raise _bad(f"{name}: expected {n} integers (each within ±{MAX_SCORE}), got {_short(value)}")
    return tuple(value)


# ------------------------------------------------------------------------------------------------ the view
def build_view(position: Any) -> PlayerView:
    """The seat's view of ``position`` (see the module docstring), on its turn; :class:`PositionError` otherwise."""
    game, result = replay_position(position)
    seat = position["seat"]
    if result is not None:
        if result.thrown_in:
            raise _impossible("the deal was thrown in (all passed, or the bids were too low): a new deal is dealt")
        raise _impossible("the deal is over: all 13 tricks are played")
    if game.current != seat:
        raise _impossible(f"it is {SEAT_WORDS[game.current]}'s turn, not {SEAT_WORDS[seat]}'s: "
                          "ask when the seat is to act")
    return make_view(game, seat)


def replay_position(position: Any) -> tuple[TarneebGame, Optional[HandResult]]:
    """``position`` checked and replayed: the engine at its point (the other seats holding arbitrary unseen cards:
    read only what the seat may know from it) and the deal's result when it has just ended (thrown in or played
    out); :class:`PositionError` when it is not a position or cannot happen."""
    if not isinstance(position, dict):
        raise _bad("the position must be a JSON object")
    unknown = sorted(str(k) for k in position if k not in KEYS)
    if unknown:
        raise _bad(f"unknown key(s) {', '.join(_short(k) for k in unknown[:5])}; a position has {', '.join(KEYS)}")
    for key in ("rules", "seat", "dealer", "hand"):
        if key not in position:
            raise _bad(f"the position has no {key!r}")
    rules = read_rules(position["rules"])
    seat, dealer = _seat(position["seat"], "seat"), _seat(position["dealer"], "dealer")
    hand = [read_card(c, f"hand[{k}]") for k, c in enumerate(_list(position["hand"], "hand", NUM_CARDS))]
    calls = [read_call(c, f"auction[{k}]") for k, c in enumerate(_list(position.get("auction", []), "auction", 64))]
    trump = None if position.get("trump") is None else read_suit(position["trump"], "trump")
    tricks = [[read_card(c, f"tricks[{t}][{k}]") for k, c in enumerate(_list(trick, f"tricks[{t}]", 4))]
              for t, trick in enumerate(_list(position.get("tricks", []), "tricks", NUM_TRICKS))]
    seat_scores = _ints(position.get("seat_scores", [0, 0, 0, 0]), 4, "seat_scores")
    default_scores = [seat_scores[0] + seat_scores[2], seat_scores[1] + seat_scores[3]]
    scores = _ints(position.get("scores", default_scores), 2, "scores")
    exposed = position.get("exposed_card")
    exposed = None if exposed is None else read_card(exposed, "exposed_card")
    return _replay(rules, seat, dealer, hand, calls, trump, tricks, scores, seat_scores, exposed)


def _replay(rules: Rules, seat, dealer, hand, calls, trump, tricks, scores, seat_scores, exposed):
    plays = [c for trick in tricks for c in trick]
    _check_cards(hand, plays, exposed)
    for t, trick in enumerate(tricks[:-1]):
        if len(trick) != 4:
            raise _impossible(f"tricks[{t}] has {len(trick)} cards: every trick but the last has 4")
    if tricks and not tricks[-1]:
        raise _impossible(f"tricks[{len(tricks) - 1}] is empty: leave out a trick that has not started")
    if rules.trump == "last_card":
        if exposed is None:
            raise _impossible(f"rules {rules.name} turn up the dealer's last card for trump: give exposed_card")
    elif exposed is not None:
        raise _impossible(f"rules {rules.name} expose no card: leave out exposed_card")
    if game_winner(rules.vector, scores, seat_scores) >= 0:
        raise _impossible(f"the game is over at scores {list(scores)} (target {rules.target_score})")
    game = TarneebGame(rules, np.random.default_rng(0))
    game.new_game(dealer, scores, seat_scores)
    game.start_deal(_any_deal(dealer, exposed), exposed)  # the auction does not depend on the cards
    result = _auction(game, calls)
    if result is not None:
        if plays or trump is not None:
            raise _impossible("the deal was thrown in (all passed, or the bids were too low): no trump, no tricks")
        return game, result
    trump = _trump(game, rules, trump, plays)
    if plays and game.phase != PLAY:
        raise _impossible("cards are played before the auction and the trump call are over")
    owners, voids = _owners(rules, dealer, game.declarer, trump, tricks)
    played = list(zip(owners, plays))
    _check_hand(seat, dealer, hand, played, exposed)
    deal = _fill(seat, dealer, hand, played, voids, exposed)
    game = TarneebGame(rules, np.random.default_rng(0))
    game.new_game(dealer, scores, seat_scores)
    game.start_deal([list(cards_of(h)) for h in deal], exposed)
    for a in calls + ([] if trump is None or game.trump is not None else [TRUMP_BASE + trump]):
        game.apply(a)
    for k, (s, c) in enumerate(played):
        if not game.is_legal(c):
            led = played[k - k % 4][1] // 13
            raise _impossible(f"{card_str(c, False)} in tricks[{k // 4}] breaks follow-suit: {SEAT_WORDS[s]} "
                              f"did not follow {SUITS[led]} but holds or later plays a card of it")
        result = game.apply(c)
    return game, result


def _check_cards(hand, plays, exposed) -> None:
    seen: dict[int, str] = {}
    where = [(c, "your hand") for c in hand] + [(c, "the tricks") for c in plays]
    for c, place in where:
        if c in seen:
            also = "twice in " + place if seen[c] == place else f"in {seen[c]} and in {place}"
            raise _impossible(f"{card_str(c, False)} is {also}: each card is dealt once")
        seen[c] = place


def _any_deal(dealer: int, exposed: Optional[int]) -> list[list[int]]:
    """Some deal in which the dealer holds ``exposed``: the auction is replayed on it (no card decides a call)."""
    cards = list(range(NUM_CARDS))
    if exposed is not None:
        cards.remove(exposed)
        cards.insert(13 * dealer, exposed)
    return [cards[13 * s : 13 * s + 13] for s in range(4)]


def _auction(game: TarneebGame, calls: list[int]) -> Optional[HandResult]:
    """Apply the calls; the result when they throw the deal in (the last call only)."""
    if calls and game.rules.auction == "none":
        raise _impossible(f"rules {game.rules.name} have no auction: leave the auction empty")
    result = None
    for k, a in enumerate(calls):
        if result is not None:
            raise _impossible(f"auction[{k}]: the deal was thrown in at the call before (all passed, or the bids "
                              "were too low): a new deal is dealt")
        if game.phase != 0:
            raise _impossible(f"auction[{k}]: the auction is over after {k} calls")
        if not game.is_legal(a):
            legal = ", ".join(_call_word(x) for x in game.legal_actions())
            raise _impossible(f"auction[{k}]: {SEAT_WORDS[game.current]} cannot call {_call_word(a)} now; "
                              f"the legal calls are {legal}")
        result = game.apply(a)
    return result


def _call_word(a: int) -> str:
    return "pass" if a == PASS else str(a - BID_BASE)


def _trump(game: TarneebGame, rules: Rules, trump: Optional[int], plays: list[int]) -> Optional[int]:
    """The trump suit once known: named by the declarer (``trump``), or fixed by the rules (``trump`` agreeing)."""
    if game.phase == TRUMP:
        if trump is not None:
            game.apply(TRUMP_BASE + trump)
        return trump
    if game.trump is not None:
        if trump is not None and trump != game.trump:
            raise _impossible(f"trump: the rules {rules.name} make {SUITS[game.trump]} trump, not {SUITS[trump]}")
        return game.trump
    if trump is not None:
        raise _impossible("trump: no trump is named before the auction is over")
    return None


def _owners(rules: Rules, dealer: int, declarer: Optional[int], trump: Optional[int], tricks):
    """Who played each card (leaders from the rules and the trick winners) and the voids the tricks show."""
    leader = first_leader(rules.vector, dealer, -1 if declarer is None else declarer)
    owners, voids = [], [0, 0, 0, 0]
    for trick in tricks:
        led = trick[0] // 13
        seats = [(leader + i) % 4 for i in range(len(trick))]
        for s, c in zip(seats, trick):
            if c // 13 != led:
                voids[s] |= 1 << led
        owners += seats
        if len(trick) == 4:
            leader = trick_winner(list(zip(seats, trick)), trump)
    return owners, voids


def _check_hand(seat, dealer, hand, played, exposed) -> None:
    n = NUM_TRICKS - sum(1 for s, _ in played if s == seat)
    if len(hand) != n:
        k = NUM_TRICKS - n
        raise _impossible(f"hand: {SEAT_WORDS[seat]} has played {k} card{'' if k == 1 else 's'}, so holds {n}, "
                          f"not {len(hand)}")
    if exposed is None:
        return
    shown_by = next((s for s, c in played if c == exposed), None)
    if shown_by is not None and shown_by != dealer:
        raise _impossible(f"exposed_card {card_str(exposed, False)} is the dealer's ({SEAT_WORDS[dealer]}), "
                          f"but {SEAT_WORDS[shown_by]} played it")
    if seat == dealer and shown_by is None and exposed not in hand:
        raise _impossible(f"exposed_card {card_str(exposed, False)} is your card (you dealt): it is in your hand "
                          "until you play it")
    if seat != dealer and exposed in hand:
        raise _impossible(f"exposed_card {card_str(exposed, False)} is the dealer's, not in your hand")


def _fill(seat, dealer, hand, played, voids, exposed) -> list[int]:
    """The deal replayed: each seat's played cards, the seat's hand, the unseen cards dealt to the others from a
    fixed seed so that no seat holds a suit it has shown out of."""
    known = SimpleNamespace(seat=seat, hand=tuple(hand), played=tuple(played), exposed_card=exposed, dealer=dealer)
    try:
        layout = sample_layouts(known, mask_of(c for _, c in played), voids, 1, np.random.default_rng(0))[0]
    except RuntimeError:
        raise _impossible("no deal agrees with the tricks: the suits the players have shown out of leave some "
                          "unseen cards nowhere to be") from None
    for s, c in played:
        layout[s] |= 1 << c
    return layout


def position_of(view: PlayerView) -> dict[str, Any]:
    """The position (as :func:`build_view` reads it) that ``view`` describes: what a client would send."""
    calls = [a for _, a in view.auction if a < TRUMP_BASE]
    named = [a - TRUMP_BASE for _, a in view.auction if a >= TRUMP_BASE]
    plays = [c for _, c in view.played]
    rules = view.rules.name if view.rules.name != "custom" else view.rules.to_dict()
    position = {
        "rules": rules, "seat": view.seat, "dealer": view.dealer,
        "hand": [card_str(c, False) for c in view.hand],
        "auction": ["pass" if a == PASS else a - BID_BASE for a in calls],
        "tricks": [[card_str(c, False) for c in plays[t : t + 4]] for t in range(0, len(plays), 4)],
        "scores": list(view.scores), "seat_scores": list(view.seat_scores),
    }
    if named:
        position["trump"] = "CDHS"[named[0]]
    if view.exposed_card is not None:
        position["exposed_card"] = card_str(view.exposed_card, False)
    return position
