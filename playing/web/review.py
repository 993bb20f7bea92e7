"""The post-hand review: each of the person's decisions in a finished hand, beside the strong player's.

The strong player is the one the Hint speaks for (:func:`~playing.advice.strong_player`: the shipped
network for the rules, else ``rule``). Where its choice differs from the person's, the engine plays the
rest of the hand out twice from that point, once after each choice, with the strong player at all four
seats, and reports ``change``: the person's side's net points after the person's choice minus after the
strong player's (negative: the choice cost the side points). That is what the choice changed *if strong
players play on*: the hand's real continuation depended on the person's own later choices, which a single
number cannot undo.
"""
from __future__ import annotations

import copy
from typing import Any

import numpy as np

from agents.seating import GameTables, seated
from tarneeb_env import TarneebGame, make_rules
from tarneeb_env.cards import action_str
from tarneeb_env.game import PHASES
from tarneeb_env.observation import ObservationWriter

from ..advice import strong_player

HUMAN = 0
REVIEW_SEED = 0  # the strong player's choices are the same on every review of a hand


def _net(delta) -> int:
    return int(delta[0] - delta[1])


def _play_out(game: TarneebGame, first: int, seating) -> int:
    """Apply ``first``, then let the strong player move every seat until the deal ends; the person's side's net."""
    tables = GameTables([game], [game.writer])
    result = game.apply(first)
    while result is None:
        result = game.apply(int(seating.act([0], [game.current], tables)[0]))
    return _net(result.score_delta)


def review(record: dict[str, Any]) -> list[dict[str, Any]]:
    """One entry per decision of seat 0 in ``record`` (a hand the engine has checked): yours, the strong
    player's (``hint``), and ``change`` (your net minus its net, both played out by it) where they differ."""
    rules = make_rules(dict(record["rules"]))
    player = strong_player(rules, REVIEW_SEED)
    seating = seated({s: player for s in range(4)})
    game = TarneebGame(rules, np.random.default_rng(REVIEW_SEED), ObservationWriter())
    before = [s - d for s, d in zip(record["scores"], record["score_delta"])]
    game.new_game(record["dealer"], before,
                  [s - d for s, d in zip(record["seat_scores"], record["seat_score_delta"])])
    game.start_deal(record["deal"], record["exposed_card"])
    out = []
    for step, (seat, action) in enumerate(record["auction"] + record["plays"]):
        if seat == HUMAN:
            hint = int(seating.act([0], [HUMAN], GameTables([game], [game.writer]))[0])
            entry = {"step": step, "phase": PHASES[game.phase], "trick": len(game.trick_winners) + 1,
                     "yours": action, "yours_name": action_str(action), "hint": hint, "hint_name": action_str(hint),
                     "change": None}
            if hint != action:
                entry["change"] = (_play_out(copy.deepcopy(game), action, seating)
                                   - _play_out(copy.deepcopy(game), hint, seating))
            out.append(entry)
        game.apply(action)
    return out
