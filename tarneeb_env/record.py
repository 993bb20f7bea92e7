"""The hand record: the JSON-serialisable account of one deal that both engines report."""
from __future__ import annotations

from typing import Any, Optional


def hand_record(
    dealer: int, deal: list, exposed_card: Optional[int], auction: list, declarer: Optional[int],
    bid: Optional[int], bids: list, trump: Optional[int], plays: list, trick_winners: list, tricks_won: list,
    tricks_by_seat: list, score_delta: list, seat_score_delta: list, scores: list, seat_scores: list,
    thrown_in: bool, rules: dict[str, Any],
) -> dict[str, Any]:
    """The record of a deal that just ended, from plain Python values (lists of ints, ``[seat, x]`` pairs)."""
    return {
        "dealer": dealer,
        "deal": deal,
        "exposed_card": exposed_card,
        "auction": auction,
        "declarer": declarer,
        "bid": bid,
        "bids": bids,
        "trump": trump,
        "plays": plays,
        "trick_winners": trick_winners,
        "tricks_won": tricks_won,
        "tricks_by_seat": tricks_by_seat,
        "score_delta": score_delta,
        "seat_score_delta": seat_score_delta,
        "scores": scores,
        "seat_scores": seat_scores,
        "thrown_in": thrown_in,
        "rules": rules,
    }
