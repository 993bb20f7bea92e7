"""The hand record: the account of one finished deal that both engines report, and the one place that says what
it means (which team declared, whether the contract was made).

Both engines build a :class:`HandRecord` (``TarneebGame``'s :class:`~tarneeb_env.game.HandResult` and
``BatchEnv.step``'s records); the envs' infos and saved files carry its JSON form, :meth:`HandRecord.to_dict`
(``infos[agent]["hand_record"]`` stays a plain dict of lists and ints, as PettingZoo infos and ``json.dump``
expect, with the same keys as files saved before the record was typed). :meth:`HandRecord.from_dict` reads such a
dict back, extra keys (a saved line's ``pair``, ``seats``...) left aside.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Optional

from .cards import SUIT_LETTERS


@dataclass(frozen=True)
class HandRecord:
    """One finished deal (played or thrown in). Seats are absolute (0-3), teams ``seat & 1``; lists are plain
    Python lists of ints (``[seat, action]`` / ``[seat, card]`` pairs in ``auction`` and ``plays``)."""

    dealer: int
    deal: list  # the four hands as dealt, each a sorted list of 13 cards
    exposed_card: Optional[int]  # the dealer's card turned up (trump: last_card), else None
    auction: list  # [seat, action] of every call, the trump call included
    declarer: Optional[int]  # None: no auction, or thrown in
    bid: Optional[int]  # the contract (tricks), with the declarer
    bids: list  # each seat's bid (its highest in a team auction, its declaration under individual bidding)
    trump: Optional[int]
    plays: list  # [seat, card] in play order
    trick_winners: list  # the seat that won each trick
    tricks_won: list  # per team
    tricks_by_seat: list
    score_delta: list  # per team, this deal
    seat_score_delta: list
    scores: list  # per team, after this deal
    seat_scores: list
    thrown_in: bool
    rules: dict  # Rules.to_dict() of the rules played

    @property
    def declaring_team(self) -> Optional[int]:
        """The declarer's team (0 or 1), None without a declarer."""
        return None if self.declarer is None else self.declarer & 1

    @property
    def made(self) -> Optional[bool]:
        """Whether the declaring team took its contract; None without one (thrown in, no auction)."""
        team = self.declaring_team
        if self.thrown_in or team is None:
            return None
        return self.tricks_won[team] >= self.bid

    def seat_made(self, seat: int) -> bool:
        """Whether ``seat`` took the tricks it bid (individual bidding, where every seat has a contract)."""
        return self.tricks_by_seat[seat] >= self.bids[seat]

    def describe(self) -> str:
        """One line for logs: ``8 by seat 1, trump S: down 1 · team 0 +8, team 1 -8``."""
        if self.thrown_in:
            return f"thrown in (dealer seat {self.dealer})"
        trump = "" if self.trump is None else f", trump {SUIT_LETTERS[self.trump]}"
        if self.declarer is None:
            head = f"no auction{trump}: tricks {self.tricks_won[0]}-{self.tricks_won[1]}"
        else:
            taken = self.tricks_won[self.declaring_team]
            verdict = "made" if self.made else f"down {self.bid - taken}"
            head = f"{self.bid} by seat {self.declarer}{trump}: {verdict} ({taken} tricks)"
        d = self.score_delta
        return f"{head} · team 0 {d[0]:+d}, team 1 {d[1]:+d}"

    @classmethod
    def of(cls, fields: dict[str, Any]) -> "HandRecord":
        """The record of ``fields``, every field by name in the order above (the record takes the dict over).

        How the engines build it at the end of every deal: a dict literal and one ``__dict__`` update instead of
        the frozen dataclass's keyword ``__init__``, which took about six times as long (15 against 2.5 µs, on a
        shared, loaded 2-core machine) on the batch engine's per-hand path. The record stays frozen and equal as
        a dataclass."""
        record = _new(cls)
        record.__dict__.update(fields)
        return record

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: the fields by name, in order (the same dict the record was before it was typed)."""
        return dict(self.__dict__)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "HandRecord":
        """The record of a :meth:`to_dict` dict (a saved hand's line may hold more keys, which are left aside);
        a ``KeyError`` names a missing field."""
        return cls.of({name: data[name] for name in FIELDS})


FIELDS = tuple(f.name for f in dataclasses.fields(HandRecord))
_new = object.__new__
