"""Property tests over random legal play, for every preset and the non-default options."""
import json
import pickle

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tarneeb_env import PRESETS, make_rules, raw_env
from tarneeb_env.cards import cards_of
from scripted import replay

RULESETS = [
    "classic",
    "syrian41",
    "hearts41",
    "trump_by_card",
    {"first_lead": "eldest", "defenders_score": "always"},
    {"kaboot": "double", "bid13_wins_game": True},
    {"kaboot": "plain", "all_pass": "dealer_bids", "min_bid": 1},
]
SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@given(st.integers(min_value=0, max_value=(1 << 70) - 1))
def test_cards_of_lists_the_set_bits_in_order(mask):
    assert cards_of(mask) == tuple(b for b in range(70) if mask >> b & 1)


def random_game(rules, seed, episode="game", max_steps=5000):
    """Play random legal actions to the end; returns (env, records, decisions)."""
    e = raw_env(rules=rules, episode=episode, max_hands=30)
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    records, decisions = [], 0
    for agent in e.agent_iter(max_steps):
        obs, _, term, trunc, info = e.last()
        if term or trunc:
            e.step(None)
            continue
        mask = obs["action_mask"]
        assert mask.any(), "empty mask for the agent on turn"
        assert mask.dtype == np.int8 and mask.shape == (70,)
        for other in e.agents:
            if other != agent:
                assert not e.observe(other)["action_mask"].any()
        assert list(np.flatnonzero(mask)) == list(e.view(agent).legal_actions)
        e.step(int(rng.choice(np.flatnonzero(mask))))
        decisions += 1
        rec = e.infos[agent].get("hand_record")
        if rec is not None:
            records.append(rec)
    return e, records, decisions


@pytest.mark.parametrize("rules", RULESETS, ids=str)
@SETTINGS
@given(seed=st.integers(0, 2**31 - 1))
def test_random_games_keep_the_invariants(rules, seed):
    check_random_game(rules, seed)


@pytest.mark.slow
@pytest.mark.parametrize("rules", RULESETS, ids=str)
def test_many_random_games_keep_the_invariants(rules):
    for seed in range(400):
        check_random_game(rules, seed)


def check_random_game(rules, seed):
    e, records, _ = random_game(rules, seed)
    r = make_rules(rules)
    totals = [0, 0]
    for rec in records:
        json.dumps(rec)  # serialisable
        dealt = [c for hand in rec["deal"] for c in hand]
        assert sorted(dealt) == list(range(52))
        if rec["thrown_in"]:
            assert rec["plays"] == [] and rec["score_delta"] == [0, 0]
            continue
        cards = [c for _, c in rec["plays"]]
        assert sorted(cards) == list(range(52)), "each card played exactly once"
        assert len(rec["trick_winners"]) == 13 and sum(rec["tricks_won"]) == 13
        assert sum(rec["tricks_by_seat"]) == 13
        for seat, card in rec["plays"]:
            assert card in rec["deal"][seat]
        totals = [totals[0] + rec["score_delta"][0], totals[1] + rec["score_delta"][1]]
        assert rec["scores"] == totals, "scores equal the sum of hand deltas"
        if r.auction == "individual":
            assert rec["score_delta"] == [
                rec["seat_score_delta"][0] + rec["seat_score_delta"][2],
                rec["seat_score_delta"][1] + rec["seat_score_delta"][3],
            ]
    assert e.game.scores == totals
    if e.game.game_over:
        assert e.game.winner in (0, 1)


@pytest.mark.parametrize("rules", ["classic", "syrian41", "hearts41", "trump_by_card"])
@SETTINGS
@given(seed=st.integers(0, 2**31 - 1), steps=st.integers(0, 60), observer=st.integers(0, 3), data=st.data())
def test_observation_does_not_depend_on_hidden_cards(rules, seed, steps, observer, data):
    """Shuffle the unplayed cards of the other three seats; the observer's observation must not change."""
    rng = np.random.default_rng(seed)
    e = raw_env(rules=rules)
    dealer = int(rng.integers(4))
    e.reset(seed=seed, options={"dealer": dealer})
    deal = [list(cards_of(h)) for h in e.game.deal]
    exposed = e.game.exposed_card
    actions = []
    for _ in range(steps):
        legal = e.game.legal_actions()
        if not legal or e.game.deals > 1:
            break
        a = int(rng.choice(legal))
        e.step(a)
        actions.append(a)
        if e.game.deals > 1 or any(e.terminations.values()):
            actions.pop()
            break
    e = replay(rules, deal, dealer, exposed, actions)
    played = {c for _, c in e.game.played}
    others = [s for s in range(4) if s != observer]
    hidden = [c for s in others for c in deal[s] if c not in played and c != exposed]
    perm = data.draw(st.permutations(hidden))
    new_deal = [list(h) for h in deal]
    it = iter(perm)
    for s in others:
        new_deal[s] = [c if (c in played or c == exposed) else next(it) for c in deal[s]]
    assume(new_deal != deal)
    try:
        e2 = replay(rules, new_deal, dealer, exposed, actions)
    except ValueError:
        assume(False)  # the shuffled deal contradicts a void shown by the played cards
    o1, o2 = e.observe(f"player_{observer}"), e2.observe(f"player_{observer}")
    assert np.array_equal(o1["observation"], o2["observation"])
    assert np.array_equal(o1["action_mask"], o2["action_mask"])
    v1, v2 = e.view(observer), e2.view(observer)
    assert v1 == v2


def test_pickle_round_trip_continues_identically():
    e, _, _ = random_game("classic", 3, max_steps=40)
    clone = pickle.loads(pickle.dumps(e))
    for _ in range(30):
        if e.game.current < 0:
            break
        a = e.game.legal_actions()[-1]
        e.step(a)
        clone.step(a)
        assert np.array_equal(e.observe(e.agent_selection)["observation"],
                              clone.observe(clone.agent_selection)["observation"])
    assert e.game.played == clone.game.played


def test_presets_are_all_tested():
    assert set(PRESETS) <= {r for r in RULESETS if isinstance(r, str)}


def test_wrapped_env_pickles_and_enforces_order():
    import tarneeb_env

    e = tarneeb_env.env()
    with pytest.raises(AttributeError, match="before reset"):
        e.agent_selection
    e.reset(seed=4)
    clone = pickle.loads(pickle.dumps(e))
    assert clone.agent_selection == e.agent_selection
    assert np.array_equal(clone.observe(clone.agent_selection)["action_mask"], e.observe(e.agent_selection)["action_mask"])
