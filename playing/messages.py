"""Every message the server can send a player, by key: one registry, so that the page can word each one in the
player's language.

The English text here is what an API user (or ``curl``) reads in ``"error"``; the web page words the same key
from ``playing/web/static/i18n/<language>.json`` with the message's parameters, so a refusal reads in Spanish on
a Spanish page. A page text may leave out a parameter that only a programmer needs (a JSON parser's position);
tests/test_web_i18n.py fails when any language misses a key of :data:`MESSAGES` or uses a parameter the server
does not send. A parameter may itself be a :class:`Message` (the reason inside "refused: ..."), worded the same
way. Keys: ``srv.`` a request the server refuses, ``rec.`` a hand record that does not replay, ``move.`` a move
named inside a record message, ``reason.`` the rule of thumb of ``rule``'s Hint.
"""
from __future__ import annotations

import string
from typing import Any, Union

MESSAGES: dict[str, str] = {
    # ---------------------------------------------------------------- requests (playing/web)
    "srv.busy": "the previous move of this game is still being decided: wait for its answer",
    "srv.body_action": 'the body must be {{"action": N}}',
    "srv.body_upload": 'the body must be {{"name": "file name", "text": "the file\'s contents"}}',
    "srv.body_json": "the request body must be a JSON object: {detail}",
    "srv.body_object": "the request body must be a JSON object",
    "srv.content_length": "Content-Length must be an integer",
    "srv.too_big": "the request is over {size}",
    "srv.no_upload": "no upload named '{name}' in this tab",
    "srv.no_replay_dir": "this server has no replay directory (start it with --replay-dir DIR)",
    "srv.not_in_dir": "'{name}' is not a record file in the replay directory",
    "srv.bad_source": "source must be game, upload:NAME or dir:NAME",
    "srv.index_int": "index must be an integer",
    "srv.index_range": "index {index} is out of range: the source holds {n} records",
    "srv.review_range": "index {index} is out of range: this tab has {n} finished deals",
    "srv.review_computer": "that is the computer's play from your seat: review one of your own",
    "srv.uploads_full": "the server already holds {held} MiB of opened files (at most {limit} MiB for all tabs): "
                        "open a smaller file, or try again when other tabs have closed",
    "srv.refused": "refused: {why}",
    "srv.http": "{detail}",
    "srv.engine": "{why}: start a new game (a new game starts the engine again)",
    "srv.server": "server error: {error}: {detail}",
    "srv.full": "the table is full: {max} games are in progress; try again in about {wait} minutes",
    "srv.full_soon": "the table is full: {max} games are in progress; try again in about a minute",
    "srv.gone_idle": "this game was dropped after {minutes} minutes without a move: reload the page for a new game",
    "srv.gone_room": "this game was dropped to make room for another, after {minutes} minutes without a move: "
                     "reload the page for a new game",
    "srv.unknown_session": "unknown session (the server may have restarted): reload the page",
    "srv.bad_rules": "rules: '{rules}' is not one of the rules this server offers: {offered}",
    "srv.bad_target": "target: must be a whole number of points 1..{max}, got {got}",
    "srv.bad_partner": "partner: '{key}' is not one of the players this server offers under the rules {rules}: "
                       "{offered}",
    "srv.bad_opponents": "opponents: '{key}' is not one of the players this server offers under the rules "
                         "{rules}: {offered}",
    "srv.deal_over": "the deal is over: continue to the next deal",
    "srv.game_over": "this game is over: start a new one",
    "srv.challenge_over": "the challenge is over: start a new one",
    "srv.deal_playing": "the deal is still being played",
    "srv.action_int": "action must be an integer 0..{max}, got {got}",
    "srv.not_your_turn": "not your turn: {who} is to act",
    "srv.your_turn": "it is your turn: the computer seats wait for you",
    "srv.illegal": "illegal move {action} ({move}) now; legal: {legal}",
    # ---------------------------------------------------------------- hand records (playing/records.py, playing/web)
    "rec.cannot_read": "cannot read {path}: {why}",
    "rec.not_json": "{name} is not JSON: {detail}",
    "rec.line_not_json": "{name}: line {line} is not JSON ({detail}); expected a saved hand or JSONL records",
    "rec.in_file": "{name}: {why}",
    "rec.empty": "{name}: holds no hand record",
    "rec.too_many": "{name}: holds more than {max} records, the most the table opens from one file; split it "
                    "(e.g. split -l {max} for JSONL)",
    "rec.not_object": "not a hand record: expected a JSON object, got {type}",
    "rec.missing": "not a Tarneeb hand record: missing {fields}",
    "rec.rules_not_object": "rules: expected the rule fields as a JSON object",
    "rec.bad_rules": "{detail}",
    "rec.bad_dealer": "dealer: expected a seat 0-3, got {got}",
    "rec.bad_moves": "{field}: expected a list of [seat, action] pairs, got {type}",
    "rec.bad_move": "{field}[{i}]: expected [seat 0-3, action 0-{max}], got {got}",
    "rec.bad_ints": "{field}: expected {n} integers, got {got}",
    "rec.bad_deal_shape": "deal: expected four lists of 13 cards (ints 0-51)",
    "rec.bad_exposed": "exposed_card: expected a card 0-51 or null, got {got}",
    "rec.bad_deal": "{detail}",
    "rec.no_exposed": "exposed_card: missing; under trump: last_card the dealer's last card names trump",
    "rec.after_end": "{field}[{i}] ({move} by seat {seat}): the deal was already over",
    "rec.wrong_seat": "{field}[{i}] ({move} by seat {seat}): seat {current} is on turn",
    "rec.illegal": "{field}[{i}] ({move} by seat {seat}): not a legal move here (legal: {legal})",
    "rec.ends_early": "plays: the record ends before the deal does ({n} cards played)",
    "rec.field_missing": "{field}: missing (the replay gives {value})",
    "rec.field_differs": "{field}: the record says {says}, the replay gives {value}",
    "move.card": "{card}",
    "move.pass": "pass",
    "move.bid": "bid {n}",
    "move.trump": "trump {suit}",
    # ---------------------------------------------------------------- rule's reasons (agents/rule_agent.py, rule_play)
    "reason.only_legal": "the only legal action",
    "reason.trump_most_tricks": "the suit in which the hand takes the most tricks",
    "reason.declare_best": "the declaration with the best expected score for this hand alone",
    "reason.partner_holds": "partner holds the contract",
    "reason.forced": "forced to bid",
    "reason.bid_beats_pass": "expected score of the lowest bid beats passing",
    "reason.too_few": "too few tricks for the lowest bid",
    "reason.third_sure": "third hand: make sure of the trick partner may lose",
    "reason.partner_low": "partner is winning: follow with the lowest card",
    "reason.partner_discard": "partner is winning: discard from the weakest suit",
    "reason.trumped_low": "the trick is trumped: follow low",
    "reason.cannot_beat": "cannot beat the winning card: follow low",
    "reason.cheapest_win": "win the trick as cheaply as possible",
    "reason.sure_winner": "win with the cheapest sure winner",
    "reason.third_high": "third hand high",
    "reason.second_low": "second hand low",
    "reason.overruff": "overruff as cheaply as possible",
    "reason.no_overruff": "cannot overruff: discard from the weakest suit",
    "reason.ruff": "ruff: partner is not winning this trick",
    "reason.cannot_win": "cannot win: discard from the weakest suit",
    "reason.draw_top": "draw trumps with a top trump",
    "reason.draw_length": "draw trumps: we hold the length",
    "reason.cash": "cash an established winner",
    "reason.partner_ruff": "lead the suit partner can ruff",
    "reason.longest": "lead low from the longest safe suit",
    "reason.through": "lead through the declarer",
    "reason.sequence": "top of a sequence",
    "reason.trump_top": "only trumps left: lead the top trump",
    "reason.trump_low": "only trumps left: lead low",
}


def placeholders(text: str) -> set[str]:
    """The parameter names of one English text (``{{`` is a brace, not a parameter)."""
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


Param = Union[str, int, "Message"]


class Message:
    """A registered key and its parameters: ``str()`` is the English text, :meth:`to_dict` what the page words."""

    __slots__ = ("key", "params")

    def __init__(self, key: str, /, **params: Param):
        if key not in MESSAGES:
            raise KeyError(f"no message {key!r} in playing.messages.MESSAGES")
        if set(params) != placeholders(MESSAGES[key]):
            raise TypeError(f"message {key!r} takes {sorted(placeholders(MESSAGES[key]))}, got {sorted(params)}")
        self.key = key
        self.params = params

    def __str__(self) -> str:
        return MESSAGES[self.key].format(**{k: str(v) for k, v in self.params.items()})

    def to_dict(self) -> dict[str, Any]:
        return {"key": self.key,
                "params": {k: v.to_dict() if isinstance(v, Message) else v for k, v in self.params.items()}}


class MessageError(Exception):
    """An error a player may be shown: ``str()`` is the English text, ``message`` the key and parameters."""

    def __init__(self, key: str, /, **params: Param):
        self.message = Message(key, **params)
        super().__init__(str(self.message))
