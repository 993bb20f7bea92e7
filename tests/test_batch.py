"""BatchEnv must match the AEC env (the oracle) step for step: seats, observations, masks, rewards, records."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tarneeb_env import PRESETS, IllegalActionError, bid_action, raw_env, trump_action
from tarneeb_env.batch import BatchEnv, game_seeds, random_legal_actions
from tarneeb_env.view import make_view

from scripted import auction, build_hand, team_winners

AGENTS = [f"player_{i}" for i in range(4)]
SPADES = list(range(39, 52))

RULE_CASES = {
    "classic": PRESETS["classic"],
    "syrian41": PRESETS["syrian41"],
    "hearts41": PRESETS["hearts41"],
    "trump_by_card": PRESETS["trump_by_card"],
    "eldest_double_always": dataclasses.replace(
        PRESETS["classic"], first_lead="eldest", kaboot="double", defenders_score="always", target_score=11
    ),
    "dealer_bids_bid13": dataclasses.replace(
        PRESETS["classic"], all_pass="dealer_bids", bid13_wins_game=True, kaboot="plain", min_bid=9, target_score=15
    ),
    "syrian_low_target": dataclasses.replace(PRESETS["syrian41"], target_score=9, min_total_bids=20),
    "no_auction_double": dataclasses.replace(PRESETS["trump_by_card"], kaboot="double", target_score=8),
}


def make_pair(n, rules, seed, episode="hand", reward="score_diff", max_hands=200, options=None):
    be = BatchEnv(n, rules=rules, episode=episode, reward=reward, max_hands=max_hands, seed=seed)
    envs = [raw_env(rules=rules, episode=episode, reward=reward, max_hands=max_hands) for _ in range(n)]
    for i, e in enumerate(envs):
        e.reset(seed=be.game_seeds[i], options=None if options is None else options[i])
    return be, envs, be.reset(options=options)


def check_state(be, envs, obs, mask, seat):
    for i, e in enumerate(envs):
        agent = e.agent_selection
        assert seat[i] == AGENTS.index(agent), f"game {i}: seat"
        o = e.observe(agent)
        np.testing.assert_array_equal(obs[i], o["observation"], err_msg=f"game {i}: observation")
        np.testing.assert_array_equal(mask[i], o["action_mask"], err_msg=f"game {i}: mask")


def check_views_agree(be, envs):
    """``view(i)`` and the batched ``views`` equal the AEC env's views, field by field and type by type (repr):
    for the seats to act in game order, and for every seat of the games in a shuffled order with repeats."""
    n = be.num_games
    want = [e.unwrapped.view(e.agent_selection) for e in envs]
    got = be.views(range(n))
    assert got == want and [repr(v) for v in got] == [repr(v) for v in want]
    assert [be.view(i) for i in range(n)] == want
    games = np.random.default_rng(be.num_games).permutation(np.repeat(np.arange(n), 4))
    seats = np.tile(np.arange(4), n)
    got = be.views(games, seats)
    want = [envs[i].unwrapped.view(int(s)) for i, s in zip(games, seats)]
    assert got == want and [repr(v) for v in got] == [repr(v) for v in want]


def random_policy(rng):
    return lambda i, mask, view_fn: int(rng.choice(np.flatnonzero(mask)))


def drive(be, envs, first, steps, policy, check_views=False):
    """Advance both sides with the same actions; returns the records and rewards seen."""
    obs, mask, seat = first
    seen = []
    total = np.zeros((be.num_games, 4))
    for _ in range(steps):
        check_state(be, envs, obs, mask, seat)
        if check_views:
            check_views_agree(be, envs)
        actions = np.array([policy(i, mask[i], lambda i=i: be.view(i)) for i in range(be.num_games)])
        obs, mask, seat, rewards, done, records = be.step(actions)
        expected_records = []
        for i, e in enumerate(envs):
            agent = e.agent_selection
            e.step(int(actions[i]))
            record = e.infos[agent].get("hand_record")
            want_reward = np.zeros(4, dtype=np.float32)
            if record is not None:
                expected_records.append((i, record))
                want_reward[:] = [e.rewards[a] for a in AGENTS]
            np.testing.assert_array_equal(rewards[i], want_reward, err_msg=f"game {i}: rewards")
            ended = all(e.terminations.values()) or all(e.truncations.values())
            assert done[i] == ended, f"game {i}: done"
            assert be.truncated[i] == (ended and all(e.truncations.values()))
            if ended:
                e.reset()
        records = [(i, r.to_dict()) for i, r in records]  # the env's infos carry the record's JSON form
        assert records == expected_records
        seen.extend(records)
        total += rewards
    check_state(be, envs, obs, mask, seat)
    return seen, total


@pytest.mark.parametrize("name", sorted(RULE_CASES))
@pytest.mark.parametrize("episode", ["hand", "game"])
def test_matches_aec_env_with_random_play(name, episode):
    rules = RULE_CASES[name]
    be, envs, first = make_pair(6, rules, seed=11, episode=episode, reward="score_diff" if episode == "hand" else "win")
    seen, _ = drive(be, envs, first, 250, random_policy(np.random.default_rng(5)), check_views=True)
    played = [r for _, r in seen if not r["thrown_in"]]
    assert len(played) >= 6  # several hands ended, each game reset or redealt


def test_views_refuse_bad_input_with_one_clear_line():
    be = BatchEnv(3, seed=0)
    with pytest.raises(RuntimeError, match=r"BatchEnv.views called before reset\(\)"):
        be.view(0)
    be.reset()
    assert be.views([]) == []
    for games, seats, error, message in [
        ([3], None, IndexError, r"game index 3 out of range 0..2"),
        ([0, -1], None, IndexError, r"game index -1 out of range 0..2"),
        ([0.5], None, ValueError, r"games: expected a sequence of game indices"),
        ([[0, 1]], None, ValueError, r"games: expected a sequence of game indices"),
        ([0, 1], [0], ValueError, r"seats: 1 seats for 2 games"),
        ([0], [4], ValueError, r"seat must be 0..3, got 4"),
    ]:
        with pytest.raises(error, match=message):
            be.views(games, seats)
    with pytest.raises(ValueError, match=r"seat must be 0..3, got -1"):
        be.view(0, -1)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    name=st.sampled_from(sorted(RULE_CASES)),
    episode=st.sampled_from(["hand", "game"]),
    reward=st.sampled_from(["score_diff", "win"]),
    max_hands=st.integers(1, 4),
)
def test_matches_aec_env_hypothesis(seed, name, episode, reward, max_hands):
    be, envs, first = make_pair(3, RULE_CASES[name], seed, episode, reward, max_hands)
    drive(be, envs, first, 90, random_policy(np.random.default_rng(seed)))


def _spade_deal(holder, rng):
    """Seat ``holder`` gets all 13 spades, the others the rest at random."""
    rest = rng.permutation(39).tolist()
    deal = [[], [], [], []]
    others = [s for s in range(4) if s != holder]
    deal[holder] = SPADES
    for k, s in enumerate(others):
        deal[s] = rest[13 * k : 13 * (k + 1)]
    return deal


@pytest.mark.parametrize("kaboot", ["bonus", "double", "plain"])
@pytest.mark.parametrize("first_lead", ["declarer", "eldest"])
@pytest.mark.parametrize("bid13_wins_game", [False, True])
def test_kaboot_and_failed_thirteen_match(kaboot, first_lead, bid13_wins_game):
    """Seat 0 bids at once (13, 12 or 7) and names spades; whoever holds every spade takes all 13 tricks."""
    rules = dataclasses.replace(
        PRESETS["classic"], kaboot=kaboot, first_lead=first_lead, bid13_wins_game=bid13_wins_game, target_score=60
    )
    rng = np.random.default_rng(3)
    bids = [13, 12, 7, 13, 12, 7]
    holders = [0, 0, 0, 1, 3, 2]
    options = [{"deal": _spade_deal(h, rng), "dealer": 3} for h in holders]
    be, envs, first = make_pair(6, rules, seed=2, episode="game", options=options)

    def policy(i, mask, view_fn):
        view = view_fn()
        if view.phase == "bidding" and view.seat == 0 and not view.auction:
            return 52 + bids[i]
        if view.phase == "bidding":
            return 52 if mask[52] else int(np.flatnonzero(mask)[0])
        if view.phase == "trump":
            return 69
        return int(rng.choice(np.flatnonzero(mask)))

    seen, _ = drive(be, envs, first, 5 + 52, policy)
    first_hands = {}
    for i, r in seen:
        first_hands.setdefault(i, r)
    assert [first_hands[i]["tricks_won"][0] for i in range(6)] == [13, 13, 13, 0, 0, 13]
    made13 = {"bonus": 26, "double": 26, "plain": 13}[kaboot]
    made12 = {"bonus": 16, "double": 26, "plain": 13}[kaboot]
    failed13 = {"bonus": -16, "double": -13, "plain": -13}[kaboot]
    assert first_hands[0]["score_delta"] == [made13, 0]
    assert first_hands[1]["score_delta"] == [made12, 0]
    assert first_hands[3]["score_delta"] == [failed13, 13]


def test_game_seeds_are_what_raw_env_accepts():
    seeds = game_seeds(7, 3)
    child = np.random.SeedSequence(7).spawn(3)[2]
    assert seeds[2] == int(child.generate_state(1, np.uint64)[0])
    be = BatchEnv(3, seed=7)
    assert be.game_seeds == seeds
    e = raw_env()
    e.reset(seed=seeds[1])
    obs, _, seat = be.reset()
    assert seat[1] == e.game.current
    np.testing.assert_array_equal(obs[1], e.observe(e.agent_selection)["observation"])


def test_reset_with_seed_reproduces_and_without_continues():
    be = BatchEnv(4, seed=1)
    a = be.reset()
    b = be.reset()
    c = be.reset(seed=1)
    np.testing.assert_array_equal(a[0], c[0])
    assert not np.array_equal(a[0], b[0])


def test_fixed_deal_options_and_view():
    rng = np.random.default_rng(0)
    deal = [sorted(h) for h in np.split(rng.permutation(52), 4)]
    deal = [[int(c) for c in h] for h in deal]
    be = BatchEnv(2, rules="syrian41", seed=0)
    obs, mask, seat = be.reset(options=[{"deal": deal, "dealer": 1, "exposed_card": deal[1][0]}, None])
    v = be.view(0)
    assert v.dealer == 1 and v.seat == 2 and v.to_act == 2
    assert v.hand == tuple(deal[2])
    assert v.exposed_card == deal[1][0] and v.trump == deal[1][0] // 13
    assert seat[0] == 2 and mask[0, 54:66].all() and mask[0].sum() == 12


def test_bad_input_is_rejected_by_name():
    be = BatchEnv(2, seed=0)
    with pytest.raises(RuntimeError, match="reset"):
        be.step([0, 0])
    _, mask, _ = be.reset()
    with pytest.raises(ValueError, match="actions"):
        be.step([53])
    with pytest.raises(IllegalActionError, match="game 0: illegal action 0"):
        be.step([0, 53])
    with pytest.warns(UserWarning, match=r"options\[0\]: reset options: ignoring unknown key\(s\) \['dealr'\]"):
        be.reset(options=[{"dealr": 1}, None])  # as raw_env: PettingZoo's api_test passes arbitrary options
    with pytest.raises(ValueError, match="options"):
        be.reset(options={"dealer": 1})
    with pytest.raises(ValueError, match="num_games"):
        BatchEnv(0)
    with pytest.raises(ValueError, match="episode"):
        BatchEnv(1, episode="match")
    with pytest.raises(ValueError, match="preset"):
        BatchEnv(1, rules="nope")


def test_view_matches_make_view_for_any_seat():
    be, envs, first = make_pair(2, "classic", seed=4)
    drive(be, envs, first, 7, random_policy(np.random.default_rng(1)))
    for seat in range(4):
        assert be.view(1, seat) == make_view(envs[1].game, seat)


def test_reset_options_match_aec_env():
    """Starting scores, a given dealer, and a fixed deal whose exposed card the generator draws."""
    rng = np.random.default_rng(8)
    deal = [[int(c) for c in h] for h in np.split(rng.permutation(52), 4)]
    for rules in ("classic", "trump_by_card", "syrian41"):
        options = [{"scores": [25, 28]}, {"dealer": 2}, {"deal": deal, "dealer": 0}, None]
        be, envs, first = make_pair(4, rules, seed=9, episode="game", options=options)
        seen, _ = drive(be, envs, first, 150, random_policy(np.random.default_rng(2)))
        assert any(r["scores"] != [0, 0] for _, r in seen)


def test_illegal_action_leaves_every_game_unchanged():
    be, envs, first = make_pair(3, "classic", seed=6)
    _, mask, _ = first
    actions = np.array([int(np.flatnonzero(m)[0]) for m in mask])
    bad = actions.copy()
    bad[2] = 0  # a card during the auction
    with pytest.raises(IllegalActionError, match=r"game 2: illegal action 0 \(2♣\) for player_\d in phase bidding"):
        be.step(bad)
    drive(be, envs, first, 60, random_policy(np.random.default_rng(0)))


def test_records_are_json_and_plain_ints():
    import json

    be = BatchEnv(8, rules="hearts41", seed=3)
    _, mask, _ = be.reset()
    rng = np.random.default_rng(0)
    records = []
    while len(records) < 8:
        _, mask, _, _, _, recs = be.step(random_legal_actions(mask, rng))
        records.extend(recs)
    for i, r in records:
        assert type(i) is int and type(r.dealer) is int and type(r.plays[0][1]) is int
        assert json.loads(json.dumps(r.to_dict())) == r.to_dict()


def test_random_legal_actions_picks_only_and_all_legal():
    mask = np.zeros((3000, 70), dtype=np.int8)
    mask[:, [5, 52, 69]] = 1
    picks = random_legal_actions(mask, np.random.default_rng(0))
    counts = {a: int((picks == a).sum()) for a in (5, 52, 69)}
    assert sum(counts.values()) == 3000 and min(counts.values()) > 900
    mask[7] = 0
    with pytest.raises(ValueError, match="row 7 has no legal action"):
        random_legal_actions(mask, np.random.default_rng(0))


def _scripted_pair(rules, dealer, scripts_and_deals, exposed=None):
    options = [{"deal": d, "dealer": dealer, **({} if exposed is None else {"exposed_card": exposed[k]})}
               for k, (_, d) in enumerate(scripts_and_deals)]
    be, envs, first = make_pair(len(options), rules, seed=1, options=options)
    pos = [0] * len(options)

    def policy(i, mask, view_fn):
        script = scripts_and_deals[i][0]
        pos[i] += 1
        return script[pos[i] - 1] if pos[i] <= len(script) else int(np.flatnonzero(mask)[0])

    seen, _ = drive(be, envs, first, max(len(s) for s, _ in scripts_and_deals), policy)
    first_records = {}
    for i, r in seen:
        first_records.setdefault(i, r)
    return first_records


@pytest.mark.parametrize("variant", [
    {}, {"defenders_score": "always", "kaboot": "double"}, {"kaboot": "plain", "bid13_wins_game": True},
])
def test_scripted_team_scores_match(variant):
    """Seat 0 (eldest, declarer) bids b, the others pass, and its team takes exactly k tricks."""
    rules = dataclasses.replace(PRESETS["classic"], **variant)
    cases = [(7, 7), (7, 10), (9, 8), (12, 13), (13, 13), (13, 12), (8, 0)]
    games = []
    for bid, taken in cases:
        deal, plays = build_hand(0, team_winners(0, taken, 0), trump=1)
        bidding = auction(bid) if bid == 13 else auction(bid, "p", "p", "p")
        games.append((bidding + [trump_action(1)] + plays, deal))
    records = _scripted_pair(rules, 3, games)
    assert [records[i]["tricks_won"][0] for i in range(len(cases))] == [k for _, k in cases]
    always = variant.get("defenders_score") == "always"
    assert records[1]["score_delta"] == [10, 3 if always else 0]
    assert records[2]["score_delta"] == [-9, 5]


@pytest.mark.parametrize("preset", ["syrian41", "hearts41", "trump_by_card"])
def test_scripted_individual_and_no_auction_scores_match(preset):
    winners_by_game = [
        [0] * 5 + [1] * 3 + [2] * 4 + [3],
        [1] * 13,
        [0, 2] * 6 + [0],
        [3, 1] * 3 + [0] * 7,
    ]
    bids_by_game = [(5, 3, 4, 2), (13, 2, 2, 2), (7, 2, 6, 2), (2, 3, 13, 2)]
    games, exposed = [], []
    for winners, bids in zip(winners_by_game, bids_by_game):
        deal, plays = build_hand(0, winners, trump=2)
        script = ([] if preset == "trump_by_card" else [bid_action(b) for b in bids]) + plays
        games.append((script, deal))
        exposed.append(next(c for c in deal[3] if c // 13 == 2))
    records = _scripted_pair(preset, 3, games, exposed)
    assert all(records[i]["trump"] == 2 for i in range(4))
    if preset == "trump_by_card":
        assert [records[i]["score_delta"] for i in range(4)] == [[9, 0], [0, 16], [16, 0], [7, 0]]
    else:
        assert records[0]["seat_score_delta"] == [5, 3, 4, -2]
        assert records[1]["seat_score_delta"] == [-39, 2, -2, -2]
