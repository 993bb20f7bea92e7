"""Saved hands: reading a record file and showing it again trick by trick."""
from __future__ import annotations

import json
import os
import time

from rich.console import Console
from rich.text import Text

from tarneeb_env.game import trick_winner

from .screen import SEAT_NAMES, Glyphs, Screen

RECORD_FORMAT = "tarneeb-hand"


def load_record(path: str) -> tuple[dict, list[str]]:
    """A saved hand (or a bare ``hand_record``) and the seat labels; ValueError names what is wrong."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except OSError as e:
        raise ValueError(f"cannot read {path}: {e.strerror}") from None
    except json.JSONDecodeError as e:
        raise ValueError(f"{path} is not JSON: {e}") from None
    if isinstance(data, dict) and data.get("format") == RECORD_FORMAT:
        record, players = data.get("record"), data.get("players") or list(SEAT_NAMES)
    else:
        record, players = data, list(SEAT_NAMES)
    needed = ("dealer", "deal", "auction", "plays", "trump", "tricks_won", "score_delta", "scores", "rules",
              "thrown_in")
    missing = [k for k in needed if not isinstance(record, dict) or k not in record]
    if missing:
        raise ValueError(f"{path} is not a Tarneeb hand record: missing {', '.join(missing)}")
    return record, players


def replay(path: str, console: Console, delay: float) -> int:
    """Show a saved hand again: the four hands, the auction, then trick by trick, then the result."""
    try:
        record, players = load_record(path)
    except ValueError as e:
        console.print(Text(str(e), style="red"))
        return 2
    glyphs = Glyphs(console.encoding)
    screen = Screen(glyphs, ["you", "", "", ""])
    console.rule(f"Replay of {os.path.basename(path)} · dealer: {SEAT_NAMES[record['dealer']]}")
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
    console.print(screen.hand_result(record))
    return 0
