"""``casual``: rule's bids and trump, and in the play a seeded share of uniformly drawn legal cards."""
from __future__ import annotations

import numpy as np
import pytest

import agents
from tarneeb_env import TarneebGame, make_rules
from tarneeb_env.cards import NUM_CARDS
from tarneeb_env.view import make_view


def views(n_deals: int, seed: int = 0):
    """Every view met in ``n_deals`` deals played by rule at all seats."""
    rule = agents.RuleAgent(seed=seed)
    game = TarneebGame(make_rules("classic"), np.random.default_rng(seed))
    game.new_game(0)
    out = []
    for _ in range(n_deals):
        game.start_deal()
        result = None
        while result is None:
            view = make_view(game, game.current)
            out.append(view)
            result = game.apply(rule.explain(view)[0])
    return out


def test_without_blunders_it_is_rule_and_with_only_blunders_it_still_bids_as_rule():
    seen = views(6)
    rule = agents.RuleAgent(seed=0)
    never = agents.load("casual?blunder=0.0", seed=1)
    always = agents.load("casual?blunder=1.0", seed=1)
    differ = 0
    for v in seen:
        assert never.act(None, v) == rule.explain(v)[0]
        a = always.act(None, v)
        assert a in v.legal_actions
        if v.legal_actions[0] >= NUM_CARDS:  # a bid or the trump call: rule's, whatever the rate
            assert a == rule.explain(v)[0]
        else:
            differ += a != rule.explain(v)[0]
    assert differ > 0  # the play does draw other cards


def test_the_blunder_rate_is_seeded_and_near_its_setting():
    seen = [v for v in views(20) if v.legal_actions[0] < NUM_CARDS and len(v.legal_actions) > 1]
    rule = agents.RuleAgent(seed=0)
    a, b = agents.load("casual", seed=7), agents.load("casual", seed=7)
    first = [a.act(None, v) for v in seen]
    assert first == [b.act(None, v) for v in seen]  # one seed, one play
    other = sum(x != rule.explain(v)[0] for x, v in zip(first, seen)) / len(seen)
    # half the cards drawn at random, and some draws land on rule's own card: about 0.5 * (1 - 1/legal)
    expected = np.mean([0.5 * (1 - 1 / len(v.legal_actions)) for v in seen])
    assert abs(other - expected) < 0.1


@pytest.mark.parametrize("rate", ["-0.1", "1.5", "true"])
def test_a_rate_outside_0_to_1_is_refused(rate):
    with pytest.raises(ValueError, match="blunder"):
        agents.load(f"casual?blunder={rate}")
