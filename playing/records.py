"""Saved hands: reading a record file, checking it with the engine, and showing it again trick by trick.

A record is only shown once :func:`validate_record` has replayed it through :class:`TarneebGame`: an edited or
corrupt file is refused with the first action or field that does not follow, rather than shown as if it happened.
The browser replay viewer uses the same check.
"""
from __future__ import annotations

import json
import os
import re
import time
from typing import Any

import numpy as np
from rich.console import Console
from rich.text import Text

from tarneeb_env import make_rules
from tarneeb_env.cards import BID_BASE, NUM_ACTIONS, PASS, TRUMP_BASE, action_str
from tarneeb_env.game import TarneebGame, trick_winner
from tarneeb_env.record import HandRecord

from .messages import Message, MessageError
from .screen import SEAT_NAMES, Glyphs, Screen

RECORD_FORMAT = "tarneeb-hand"
# the fields of a hand_record that the replay starts from; every other field must follow from them
_INPUT_FIELDS = ("dealer", "deal", "auction", "plays", "rules")
_START_FIELDS = _INPUT_FIELDS + ("scores", "score_delta", "seat_scores", "seat_score_delta")


class RecordError(MessageError, ValueError):
    """A hand record that cannot be used; the message (a key of :data:`playing.messages.MESSAGES`) names the
    first thing wrong, in one line."""


def load_record(path: str) -> tuple[dict, list[str]]:
    """A saved hand (or a bare ``hand_record``), as the engine replays it, and the seat labels.

    :class:`RecordError` names what is wrong: the file, or the record (see :func:`validate_record`).
    """
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except OSError as e:
        raise RecordError("rec.cannot_read", path=path, why=str(e.strerror)) from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise RecordError("rec.not_json", name=path, detail=str(e)) from None
    if isinstance(data, dict) and data.get("format") == RECORD_FORMAT:
        record, players = data.get("record"), data.get("players")
    else:
        record, players = data, None
    if not (isinstance(players, list) and len(players) == 4 and all(isinstance(p, str) for p in players)):
        players = list(SEAT_NAMES)
    try:
        return validate_record(record), players
    except RecordError as e:
        raise RecordError("rec.in_file", name=path, why=e.message) from None


def _moves(record: dict, key: str) -> list[tuple[int, int]]:
    moves = record[key]
    if not isinstance(moves, list):
        raise RecordError("rec.bad_moves", field=key, type=type(moves).__name__)
    for i, move in enumerate(moves):
        if not (isinstance(move, list) and len(move) == 2 and all(type(x) is int for x in move)
                and 0 <= move[0] < 4 and 0 <= move[1] < NUM_ACTIONS):
            raise RecordError("rec.bad_move", field=key, i=i, max=NUM_ACTIONS - 1, got=str(move)[:40])
    return [(seat, action) for seat, action in moves]


def _before(record: dict, key: str, delta_key: str, n: int) -> list[int]:
    """The running scores before this deal: ``record[key] - record[delta_key]``."""
    values, delta = record[key], record[delta_key]
    for name, v in ((key, values), (delta_key, delta)):
        if not (isinstance(v, list) and len(v) == n and all(type(x) is int for x in v)):
            raise RecordError("rec.bad_ints", field=name, n=n, got=str(v)[:40])
    return [a - d for a, d in zip(values, delta)]


def move_words(action: int) -> Message:
    """A move as the page words it: ``7S``, ``pass``, ``bid 8``, ``trump S`` (letters, as in a record's errors)."""
    if action < PASS:
        return Message("move.card", card=action_str(action, symbols=False))
    if action == PASS:
        return Message("move.pass")
    if action < TRUMP_BASE:
        return Message("move.bid", n=action - BID_BASE)
    return Message("move.trump", suit=action_str(action, symbols=False).split()[-1])


def validate_record(record: Any) -> dict[str, Any]:
    """Replay ``record`` through the engine and return the engine's own record of the deal.

    The rules, dealer, deal and exposed card come from the record; every call of the auction (the trump call
    included) and every card played is applied in order, by the seat the record names, which must be the
    seat on turn. The deal must end exactly with the last card, and everything the engine records (trump,
    tricks, score changes, running scores) must equal what the record says. Anything else raises
    :class:`RecordError` naming the first bad action or field.
    """
    if not isinstance(record, dict):
        raise RecordError("rec.not_object", type=type(record).__name__)
    missing = [k for k in _START_FIELDS if k not in record]
    if missing:
        raise RecordError("rec.missing", fields=", ".join(missing))
    if not isinstance(record["rules"], dict):
        raise RecordError("rec.rules_not_object")
    try:
        rules = make_rules(dict(record["rules"]))
    except ValueError as e:
        raise RecordError("rec.bad_rules", detail=str(e)) from None
    dealer = record["dealer"]
    if type(dealer) is not int or not 0 <= dealer < 4:
        raise RecordError("rec.bad_dealer", got=str(dealer)[:40])
    moves = [("auction", i, m) for i, m in enumerate(_moves(record, "auction"))]
    moves += [("plays", i, m) for i, m in enumerate(_moves(record, "plays"))]
    deal = record["deal"]
    if not (isinstance(deal, list) and len(deal) == 4
            and all(isinstance(hand, list) and all(type(c) is int for c in hand) for hand in deal)):
        raise RecordError("rec.bad_deal_shape")
    exposed = record.get("exposed_card")
    if not (exposed is None or type(exposed) is int):
        raise RecordError("rec.bad_exposed", got=str(exposed)[:40])
    game = TarneebGame(rules, np.random.default_rng(0))
    game.new_game(dealer, _before(record, "scores", "score_delta", 2),
                  _before(record, "seat_scores", "seat_score_delta", 4))
    try:
        game.start_deal(deal, exposed)
    except ValueError as e:  # the engine's words name reset options: options['deal'][2] -> deal[2]
        raise RecordError("rec.bad_deal", detail=re.sub(r"options\['(\w+)'\]", r"\1", str(e))) from None
    if rules.trump == "last_card" and exposed is None:
        raise RecordError("rec.no_exposed")
    result = None
    for key, i, (seat, action) in moves:
        what = {"field": key, "i": i, "move": move_words(action), "seat": seat}
        if result is not None:
            raise RecordError("rec.after_end", **what)
        if seat != game.current:
            raise RecordError("rec.wrong_seat", **what, current=game.current)
        if not game.is_legal(action):
            legal = " ".join(action_str(a, symbols=False) for a in game.legal_actions())
            raise RecordError("rec.illegal", **what, legal=legal)
        result = game.apply(action)
    if result is None:
        raise RecordError("rec.ends_early", n=len(game.played))
    mine = result.record.to_dict()
    for key, value in mine.items():
        if key in _INPUT_FIELDS:
            continue
        if key not in record:
            raise RecordError("rec.field_missing", field=key, value=str(value))
        if record[key] != value or type(record[key]) is not type(value):
            raise RecordError("rec.field_differs", field=key, says=str(record[key])[:40], value=str(value))
    return mine


def replay(path: str, console: Console, delay: float) -> int:
    """Show a saved hand again, once the engine has replayed it: the hands, the auction, the tricks, the result."""
    try:
        record, players = load_record(path)
    except RecordError as e:
        console.print(Text(str(e), style="red"), soft_wrap=True)  # one line, however long: the terminal folds it
        return 2
    glyphs = Glyphs(console.encoding)
    screen = Screen(glyphs, ["you", "", "", ""])
    console.rule(f"Replay of {os.path.basename(path)} {glyphs.dot} dealer: {SEAT_NAMES[record['dealer']]}")
    for seat in range(4):
        console.print(Text(f"{players[seat]:<22}").append_text(glyphs.hand(record["deal"][seat])))
    if record.get("exposed_card") is not None:
        console.print(Text("The dealer's last card: ").append_text(glyphs.card(record["exposed_card"])))
    calls = screen.auction(record["auction"])
    if calls:
        console.print(Text("Auction: ").append_text(calls))
    if record.get("declarer") is not None:
        console.print(Text(f"Contract: {record['bid']} by {SEAT_NAMES[record['declarer']]}"))
    if record["trump"] is not None:
        console.print(Text("Trump: ").append_text(glyphs.suit(record["trump"])))
    plays = [tuple(p) for p in record["plays"]]
    for i in range(0, len(plays) - len(plays) % 4, 4):
        if delay > 0:
            time.sleep(delay)
        trick = plays[i:i + 4]
        winner = trick_winner(trick, record["trump"])
        console.print(Text(f"Trick {i // 4 + 1}: ").append_text(screen.trick_line(trick, winner)))
    console.print(screen.hand_result(HandRecord.from_dict(record)))
    return 0
