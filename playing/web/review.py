"""The post-hand review: each of the person's decisions in a finished hand, beside the Hint's choice.

Where the two differ, the engine plays the rest of the hand out twice from that point, once after each choice,
with the rule player at all four seats, and reports the difference in the person's side's net points. That is
what the choice changed *if rule players play on*: the hand's real continuation depended on the person's own
later choices, which a single number cannot undo.
"""
from __future__ import annotations

import copy
from typing import Any

import numpy as np

import agents
from tarneeb_env import TarneebGame, make_rules
from tarneeb_env.cards import action_str
from tarneeb_env.view import make_view

HUMAN = 0
REVIEW_SEED = 0  # the rule player's ties are broken the same way on every review of a hand


def _net(delta) -> int:
    return int(delta[0] - delta[1])


def _play_out(game: TarneebGame, first: int, rule: agents.RuleAgent) -> int:
    """Apply ``first``, then let the rule player move every seat until the deal ends; the person's side's net."""
    result = game.apply(first)
    while result is None:
        result = game.apply(rule.explain(make_view(game, game.current))[0])
    return _net(result.score_delta)


def review(record: dict[str, Any]) -> list[dict[str, Any]]:
    """One entry per decision of seat 0 in ``record`` (a hand the engine has checked): yours, the Hint's, why,
    and ``change`` (the Hint's net minus yours, both played out by rule players) where they differ."""
    rules = make_rules(dict(record["rules"]))
    rule = agents.RuleAgent(seed=REVIEW_SEED)
    game = TarneebGame(rules, np.random.default_rng(REVIEW_SEED))
    before = [s - d for s, d in zip(record["scores"], record["score_delta"])]
    game.new_game(record["dealer"], before,
                  [s - d for s, d in zip(record["seat_scores"], record["seat_score_delta"])])
    game.start_deal(record["deal"], record["exposed_card"])
    out = []
    for step, (seat, action) in enumerate(record["auction"] + record["plays"]):
        if seat == HUMAN:
            view = make_view(game, HUMAN)
            hint, reason = rule.explain(view)
            entry = {"step": step, "phase": view.phase, "trick": len(game.trick_winners) + 1,
                     "yours": action, "yours_name": action_str(action), "hint": hint, "hint_name": action_str(hint),
                     "reason": reason, "change": None}
            if hint != action:
                entry["change"] = (_play_out(copy.deepcopy(game), hint, rule)
                                   - _play_out(copy.deepcopy(game), action, rule))
            out.append(entry)
        game.apply(action)
    return out
