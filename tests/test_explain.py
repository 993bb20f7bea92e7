"""The strong player's advice (agents/explain.py): the network's numbers, search's choice, the table's facts."""
from __future__ import annotations

import json
import threading

import numpy as np
import pytest

import agents
from agents import SearchAgent
from agents.explain import CONTRACT7, _outcome, explain, label, observation_of, table_facts
from tarneeb_env import PASS, TarneebGame, bid_action, make_rules, trump_action
from tarneeb_env.cards import SUIT_LETTERS
from tarneeb_env.observation import ObservationWriter
from tarneeb_env.record import HandRecord
from tarneeb_env.view import make_view

C, D, H, S = 0, 1, 2, 3


def card(suit: int, rank: str) -> int:
    return suit * 13 + "23456789TJQKA".index(rank)


def played_deal(rules: str, seed: int):
    """Every decision of one deal the shipped network plays at all four seats: (view, the engine's own observation)."""
    rules = make_rules(rules)
    net = agents.load("ppo", rules=rules)
    writer = ObservationWriter()
    game = TarneebGame(rules, np.random.default_rng(seed), writer=writer)
    game.new_game(seed % 4)
    game.start_deal()
    out = []
    while game.phase != 3:
        view = make_view(game, game.current)
        obs = {"observation": writer.buf[game.current].copy(), "action_mask": np.zeros(70, dtype=np.int8)}
        obs["action_mask"][list(view.legal_actions)] = 1
        out.append((view, obs))
        game.apply(net.act(obs, view))
    return out


@pytest.mark.parametrize("rules", ["classic", "syrian41", "hearts41", "trump_by_card"])
def test_network_advice_is_the_greedy_action_with_probabilities_over_the_legal_actions(rules):
    net = agents.load("ppo", rules=rules)
    for view, obs in played_deal(rules, seed=4):
        rebuilt = observation_of(view)  # from the view alone: the same as the engine's, which saw the real hands
        np.testing.assert_array_equal(rebuilt["observation"], obs["observation"])
        np.testing.assert_array_equal(rebuilt["action_mask"], obs["action_mask"])
        advice = explain(view)
        assert advice.action in view.legal_actions
        assert advice.action == net.act(obs, view)
        assert advice.action == advice.candidates[0].action
        assert sorted(c.action for c in advice.candidates) == sorted(view.legal_actions)
        assert sum(c.prob for c in advice.candidates) == pytest.approx(1.0, abs=1e-9)
        probs = [c.prob for c in advice.candidates]
        assert probs == sorted(probs, reverse=True)
        assert all(c.mean_points is None and c.make_chance is None for c in advice.candidates)


@pytest.mark.parametrize("rules", ["classic", "hearts41"])
def test_search_advice_is_what_search_plays_with_the_same_seed(rules):
    checked = 0
    for k, (view, obs) in enumerate(played_deal(rules, seed=2)):
        if view.seat != 1 or len(view.legal_actions) < 2:
            continue
        advice = explain(view, samples=8, seed=k)
        search = SearchAgent(seed=k, rules=rules, samples=8)
        assert advice.action == search.act(obs, view), (view.phase, k)
        assert advice.action in view.legal_actions
        searched = [c for c in advice.candidates if c.mean_points is not None]
        assert searched, "the network's own action is always rolled out"
        for c in advice.candidates:
            assert (c.mean_points is not None) == (c.prob >= search.min_prob or c is advice.candidates[0])
            if c.make_chance is not None:
                assert 0.0 <= c.make_chance <= 1.0
                assert 0.0 <= c.mean_tricks <= 13.0
        checked += 1
    assert checked >= 8


def test_advice_is_deterministic_for_a_seed_and_json_able():
    view = next(v for v, _ in played_deal("classic", seed=7) if v.phase == "play" and len(v.legal_actions) > 2)
    a = explain(view, samples=8, seed=3).to_dict()
    b = explain(view, samples=8, seed=3).to_dict()
    assert a == b
    assert json.loads(json.dumps(a)) == a
    assert a["label"] == label(a["action"])


def test_a_team_auction_bid_gets_tricks_and_make_chances_per_strain():
    view = next(v for v, _ in played_deal("classic", seed=1)
                if v.phase == "bidding" and bid_action(13) in v.legal_actions)
    facts = explain(view, samples=8, seed=0).facts
    assert set(facts.strain_tricks) == set(SUIT_LETTERS)
    assert all(0 <= t <= 13 for t in facts.strain_tricks.values())
    bids = [a - 52 for a in view.legal_actions if a != PASS]
    for strain, chances in facts.strain_make.items():
        assert list(chances) == bids
        values = list(chances.values())
        assert values == sorted(values, reverse=True), strain  # making 9 is never likelier than making 8
        assert all(0.0 <= p <= 1.0 for p in values)


def test_a_card_decision_has_no_strain_facts_and_other_presets_none_for_bids():
    play = next(v for v, _ in played_deal("classic", seed=1) if v.phase == "play" and len(v.legal_actions) > 1)
    assert explain(play, samples=4).facts.strain_tricks is None
    bid = next(v for v, _ in played_deal("syrian41", seed=1) if v.phase == "bidding")
    advice = explain(bid, samples=4)
    assert advice.facts.strain_tricks is None and advice.facts.tricks_needed is None
    assert advice.candidates[0].make_chance is not None  # the chance of making that bid


def scripted_game():
    """Classic, dealer 3: seat 0 bids 7, all pass, spades trump; seat 0 leads the club ace, seat 1 discards a
    diamond, seat 2 follows, seat 3 ruffs with the two of spades. Seat 3 is to lead trick 2."""
    hands = [
        [card(C, r) for r in "AKQJT98"] + [card(S, r) for r in "AKQJ"] + [card(H, r) for r in "AK"],
        [card(D, r) for r in "765432"] + [card(H, r) for r in "QJT9876"],
        [card(C, r) for r in "765432"] + [card(D, r) for r in "AKQJT98"],
        [card(H, r) for r in "5432"] + [card(S, r) for r in "T98765432"],
    ]
    game = TarneebGame(make_rules("classic"), np.random.default_rng(0))
    game.new_game(3)
    game.start_deal(hands)
    for a in [bid_action(7), PASS, PASS, PASS, trump_action(S), card(C, "A"), card(D, "2"), card(C, "2"),
              card(S, "2")]:
        game.apply(a)
    return game


def test_facts_on_a_scripted_position():
    game = scripted_game()
    assert game.current == 3
    defender = table_facts(make_view(game, 3))
    assert defender.voids == {1: ["C"], 3: ["C"]}  # both discarded on the led club
    assert defender.trumps_out == 4  # 13 spades - the 2 played - 8 in seat 3's hand: seat 0's four
    assert defender.tricks_needed == 13 - 7 + 1 - 1  # to set 7 the defenders need 7 tricks; they have one
    declarer = table_facts(make_view(game, 0))
    assert declarer.trumps_out == 13 - 1 - 4
    assert declarer.tricks_needed == 7
    assert "AC" not in declarer.cards_out and "2S" not in declarer.cards_out and "AS" not in declarer.cards_out
    assert len(declarer.cards_out) == 52 - 4 - 12
    advice = explain(make_view(game, 3), samples=4, seed=1)
    assert advice.facts == table_facts(make_view(game, 3)) and advice.action in make_view(game, 3).legal_actions


def test_facts_before_the_trump_and_without_an_auction():
    view = played_deal("classic", seed=3)[0][0]
    facts = table_facts(view)
    assert facts.trumps_out is None and facts.tricks_needed is None and facts.voids == {}
    assert len(facts.cards_out) == 39
    view = played_deal("trump_by_card", seed=3)[0][0]
    facts = table_facts(view)
    assert facts.tricks_needed == CONTRACT7
    assert facts.trumps_out == 13 - sum(1 for c in view.hand if c // 13 == view.trump)


def test_labels_and_refusals():
    assert [label(a) for a in (card(H, "Q"), card(S, "T"), PASS, bid_action(8), trump_action(H))] == \
        ["QH", "10S", "pass", "bid 8", "trump H"]
    game = scripted_game()
    with pytest.raises(ValueError, match="not seat 0's turn"):
        explain(make_view(game, 0))
    with pytest.raises(ValueError, match="samples"):
        explain(make_view(game, 3), samples=-1)
    with pytest.raises(ValueError, match="differ"):
        explain(make_view(game, 3), "syrian41")


def record(rules: str, **fields) -> HandRecord:
    base = dict(dealer=0, deal=[], exposed_card=None, auction=[], declarer=None, bid=None, bids=[0, 0, 0, 0],
                trump=2, plays=[], trick_winners=[], tricks_won=[0, 0], tricks_by_seat=[0, 0, 0, 0],
                score_delta=[0, 0], seat_score_delta=[0, 0, 0, 0], scores=[0, 0], seat_scores=[0, 0, 0, 0],
                thrown_in=False, rules=make_rules(rules).to_dict())
    return HandRecord(**{**base, **fields})


def test_the_goal_of_each_side_under_each_kind_of_auction():
    made = record("classic", declarer=2, bid=8, tricks_won=[8, 5])
    assert _outcome(made, 0, 0) == (1.0, 8.0) and _outcome(made, 1, 1) == (0.0, 5.0)  # made; not set
    down = record("classic", declarer=1, bid=9, tricks_won=[5, 8])
    assert _outcome(down, 3, 1) == (0.0, 8.0) and _outcome(down, 2, 0) == (1.0, 5.0)  # down one; set
    thrown = _outcome(record("classic", thrown_in=True), 0, 0)
    assert np.isnan(thrown[0])
    individual = record("syrian41", bids=[4, 3, 2, 5], tricks_by_seat=[3, 3, 2, 5], tricks_won=[5, 8])
    assert [_outcome(individual, s, s & 1) for s in range(4)] == [(0.0, 3.0), (1.0, 3.0), (1.0, 2.0), (1.0, 5.0)]
    open_play = record("trump_by_card", tricks_won=[7, 6])
    assert _outcome(open_play, 0, 0) == (1.0, 7.0) and _outcome(open_play, 1, 1) == (0.0, 6.0)


def test_calls_in_parallel_answer_as_calls_one_after_another():
    views = [v for v, _ in played_deal("classic", seed=7) if v.phase == "play" and len(v.legal_actions) > 1][:4]
    alone = [explain(v, samples=8, seed=k).to_dict() for k, v in enumerate(views)]
    together = [None] * len(views)
    start = threading.Barrier(len(views))

    def ask(k):
        start.wait()
        together[k] = explain(views[k], samples=8, seed=k).to_dict()

    workers = [threading.Thread(target=ask, args=(k,)) for k in range(len(views))]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert together == alone
