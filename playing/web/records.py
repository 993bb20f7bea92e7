"""Hand records for the replay viewer: read from any of the three forms, and trusted only once the engine replays
them (:func:`playing.records.validate_record`, the check the terminal's ``--replay`` uses too).

The forms: the terminal game's saves (``{"format": "tarneeb-hand", "record": ...}``),
a bare ``hand_record``, and ``evaluate.py --records`` JSONL (one record per line,
with ``pair``, ``deal_index``, ``table`` and ``seats`` beside the record's fields).
"""
from __future__ import annotations

import json
from typing import Any


from tarneeb_env.cards import action_str, trump_action
from tarneeb_env.record import HandRecord

from ..messages import Message
from ..records import RECORD_FORMAT, RecordError, validate_record
from ..screen import SEAT_NAMES

MAX_RECORDS = 2000  # per file: each is checked by the engine when the file is listed (about 1 ms each)


def loads(text: str | bytes) -> Any:
    """``json.loads``, with every way Python refuses a text (a 5,000-digit number, deep nesting) a ValueError."""
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("it is nested too deeply") from None
    except json.JSONDecodeError:
        raise
    except ValueError:
        raise ValueError("a number in it has too many digits") from None


def parse_records(text: str, name: str) -> list[dict[str, Any]]:
    """The entries of one file: ``{"record", "players", "meta"}`` each, unchecked (see :func:`playing.records.validate_record`)."""
    try:
        data = loads(text)
        items = data if isinstance(data, list) else [data]
    except json.JSONDecodeError:
        items = []
        for n, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                items.append(loads(line))
            except ValueError as e:
                raise RecordError("rec.line_not_json", name=name, line=n, detail=str(getattr(e, "msg", e))) from None
            if len(items) > MAX_RECORDS:
                break
    except ValueError as e:
        raise RecordError("rec.not_json", name=name, detail=str(e)) from None
    if not items:
        raise RecordError("rec.empty", name=name)
    if len(items) > MAX_RECORDS:
        raise RecordError("rec.too_many", name=name, max=MAX_RECORDS)
    return [_entry(item) for item in items]


def listing(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """:func:`summary` of each entry, with ``refused`` (English) and ``why`` (its key and parameters, for the page)
    set to the engine's reason where the record does not replay, else None."""
    out = []
    for i, entry in enumerate(entries):
        line = summary(entry, i)
        try:
            validate_record(entry["record"])
            line["refused"] = line["why"] = None
        except RecordError as e:
            refused = Message("srv.refused", why=e.message)
            line["refused"], line["why"] = str(refused), refused.to_dict()
        out.append(line)
    return out


def _entry(item: Any) -> dict[str, Any]:
    if isinstance(item, dict) and item.get("format") == RECORD_FORMAT:
        players = item.get("players")
        meta = {k: item[k] for k in ("deal_number", "seed") if k in item}
        return {"record": item.get("record"), "players": _labels(players), "meta": meta}
    if isinstance(item, dict) and "seats" in item:  # evaluate.py --records
        meta = {k: item[k] for k in ("pair", "deal_index", "table", "redeal", "game_index", "hand_index") if k in item}
        seats = item.get("seats")
        players = [f"{SEAT_NAMES[s]} ({seats[s]})" for s in range(4)] if _is_labels(seats) else None
        return {"record": item, "players": _labels(players), "meta": meta}
    return {"record": item, "players": list(SEAT_NAMES), "meta": {}}


def _is_labels(value: Any) -> bool:
    return isinstance(value, list) and len(value) == 4 and all(isinstance(v, str) for v in value)


def _labels(value: Any) -> list[str]:
    return [str(v)[:60] for v in value] if _is_labels(value) else list(SEAT_NAMES)


def summary(entry: dict[str, Any], index: int) -> dict[str, Any]:
    """One line of a listing, read from the raw fields (cheap; the engine checks the record on opening)."""
    meta, rec = entry["meta"], entry["record"]
    parts = []
    if "deal_index" in meta:
        parts.append(f"deal {meta['deal_index']}" + (f" · table {meta['table']}" if "table" in meta else ""))
    elif "game_index" in meta:
        parts.append(f"game {meta['game_index']} · hand {meta.get('hand_index', 0) + 1}")
    elif "deal_number" in meta:
        parts.append(f"deal {meta['deal_number']}" + (f" · {meta['seat0']}" if "seat0" in meta else ""))
    else:
        parts.append(f"record {index + 1}")
    try:
        contract, result = describe(rec)
    except (KeyError, TypeError, IndexError, ValueError):
        contract, result = "unreadable", ""
    return {"index": index, "title": parts[0], "contract": contract, "result": result, "meta": _meta(meta),
            "info": _info(rec)}


def _meta(meta: dict[str, Any]) -> dict[str, Any]:
    """The listing's numbers, for the page to word in the person's language."""
    return {k: meta[k] for k in ("deal_index", "table", "game_index", "hand_index", "deal_number", "seat0")
            if isinstance(meta.get(k), (int, str))}


def _info(rec: Any) -> dict[str, Any] | None:
    """A record's contract and outcome as numbers (:func:`describe` in words), or None when unreadable."""
    try:
        return contract_info(rec)
    except (KeyError, TypeError, IndexError, ValueError):
        return None


def contract_info(rec: dict[str, Any]) -> dict[str, Any]:
    """``{thrown_in, declarer, bid, trump, made, tricks, delta}`` of a record: what the page words."""
    declarer = rec.get("declarer")
    made = None if rec["thrown_in"] or declarer is None else rec["tricks_won"][declarer & 1] >= rec["bid"]
    return {"thrown_in": bool(rec["thrown_in"]), "declarer": declarer, "bid": rec.get("bid"),
            "trump": rec.get("trump"), "made": made, "tricks": list(rec["tricks_won"]),
            "delta": list(rec["score_delta"])}


def describe(data: dict[str, Any]) -> tuple[str, str]:
    """``("8 by Right · trump ♠", "made · Us -8 / Them +5")`` for a record."""
    rec = HandRecord.from_dict(data)
    if rec.thrown_in:
        return "thrown in", "no score"
    trump = f"trump {action_str(trump_action(rec.trump))[-1]}" if rec.trump is not None else ""
    if rec.declarer is not None:
        contract = f"{rec.bid} by {SEAT_NAMES[rec.declarer]}" + (f" · {trump}" if trump else "")
        verdict = "made" if rec.made else f"down {rec.bid - rec.tricks_won[rec.declaring_team]}"
    else:
        contract, verdict = trump or "no auction", f"tricks {rec.tricks_won[0]}–{rec.tricks_won[1]}"
    d = rec.score_delta
    return contract, f"{verdict} · Us {d[0]:+d} / Them {d[1]:+d}"
