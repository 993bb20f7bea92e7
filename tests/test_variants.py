"""Scripted deals for the variant presets: individual bidding, trump fixed by a card, no auction."""
import pytest

from tarneeb_env import PRESETS, bid_action, raw_env
from tarneeb_env.observation import OFFSETS

from scripted import build_hand, play_scripted

HEARTS, SPADES = 2, 3


def test_individual_bidding_scores_each_player_at_every_value_band():
    # dealer 3 -> seat 0 bids first and leads. Tricks: seat0 2, seat1 6, seat2 1, seat3 4.
    winners = [0, 0, 1, 1, 1, 1, 1, 1, 2, 3, 3, 3, 3]
    deal, plays = build_hand(0, winners, HEARTS)
    e = raw_env(rules="hearts41", episode="game")
    e.reset(seed=0, options={"deal": deal, "dealer": 3})
    assert e.view(0).trump == HEARTS and e.view(0).phase == "bidding"
    legal = e.view(0).legal_actions
    assert legal == tuple(bid_action(b) for b in range(2, 14))  # no pass
    bids = [2, 7, 3, 2]  # made 2 (+2), made 7? seat1 takes 6 < 7 (-14), seat2 takes 1 < 3 (-3), seat3 4 >= 2 (+2)
    recs = play_scripted(e, [bid_action(b) for b in bids], None, plays)
    rec = recs[-1]
    assert rec["bids"] == bids and rec["tricks_by_seat"] == [2, 6, 1, 4]
    assert rec["declarer"] is None and rec["trump"] == HEARTS
    assert rec["seat_score_delta"] == [2, -14, -3, 2]
    assert rec["score_delta"] == [-1, -12]
    assert e.view(0).seat_scores == (2, -14, -3, 2)
    assert e.rewards["player_0"] == 11 and e.rewards["player_1"] == -11


def test_individual_bid_of_13_is_worth_39():
    deal, plays = build_hand(0, [0] * 13, HEARTS)
    e = raw_env(rules="hearts41")
    e.reset(seed=0, options={"deal": deal, "dealer": 3})
    recs = play_scripted(e, [bid_action(b) for b in (13, 2, 2, 2)], None, plays)
    assert recs[-1]["seat_score_delta"] == [39, -2, -2, -2]


def test_low_total_throws_in_and_the_deal_passes_on():
    e = raw_env(rules="syrian41")
    e.reset(seed=0, options={"dealer": 1})
    for b in (2, 2, 3, 3):  # total 10 < 11
        e.step(bid_action(b))
    rec = e.infos["player_0"]["hand_record"]
    assert rec["thrown_in"] and rec["dealer"] == 1 and rec["bids"] == [3, 3, 2, 2]
    assert e.game.dealer == 2 and e.agent_selection == "player_3"
    assert not any(e.terminations.values())


def test_total_of_11_is_played_and_eldest_leads():
    e = raw_env(rules="syrian41")
    e.reset(seed=0, options={"dealer": 1})
    for b in (2, 3, 3, 3):
        e.step(bid_action(b))
    assert e.view(2).phase == "play" and e.agent_selection == "player_2"


def _individual_game(scores_before, winners, bids, target=41):
    """Play one hearts41 hand from the given per-seat scores."""
    deal, plays = build_hand(0, winners, HEARTS)
    e = raw_env(rules="hearts41", episode="game", reward="win")
    e.reset(seed=0, options={"deal": deal, "dealer": 3, "seat_scores": scores_before})
    play_scripted(e, [bid_action(b) for b in bids], None, plays)
    return e


def test_win_needs_partner_not_negative():
    winners = [0] * 7 + [1, 1, 2, 2, 3, 3]  # seat 0 takes 7
    # Seat 0 reaches 41 (27 + 14) but partner is at -5 -> no win.
    e = _individual_game([27, 0, -5, 0], winners, [7, 2, 2, 2])
    assert e.game.seat_scores == [41, 2, -3, 2] and not e.game.game_over
    # Partner at 0 -> team 0 wins.
    e = _individual_game([27, 0, 1, 0], winners, [7, 2, 2, 2])
    assert e.game.seat_scores[0] == 41 and e.game.winner == 0
    assert e.rewards["player_0"] == 1 and e.rewards["player_3"] == -1


def test_both_teams_qualify_higher_total_wins_tie_continues():
    winners = [0] * 7 + [1] * 6  # seat 0 makes 7 (+14), seat 1 makes 6 (+6), seats 2 and 3 fail 2 (-2 each)
    e = _individual_game([30, 35, 5, 5], winners, [7, 6, 2, 2])
    assert e.game.seat_scores == [44, 41, 3, 3] and e.game.scores == [47, 44]
    assert e.game.winner == 0
    e = _individual_game([30, 35, 5, 8], winners, [7, 6, 2, 2])
    assert e.game.scores == [47, 47] and not e.game.game_over


def test_last_card_trump_is_exposed_to_everyone():
    e = raw_env(rules="syrian41")
    e.reset(seed=3, options={"dealer": 2})
    card = e.game.exposed_card
    assert card in e.view(2).hand  # the dealer holds it
    assert e.game.trump == card // 13
    for seat in range(4):
        v = e.view(seat)
        assert v.exposed_card == card and v.trump == card // 13
        obs = e.observe(f"player_{seat}")["observation"]
        assert obs[OFFSETS["exposed"] + card] == 1.0
        assert obs[OFFSETS["exposed"] : OFFSETS["exposed"] + 52].sum() == 1.0
        assert obs[OFFSETS["trump"] + card // 13] == 1.0


def test_fixed_deal_exposed_card_must_be_the_dealers():
    deal, _ = build_hand(0, [0] * 13, HEARTS)
    e = raw_env(rules="trump_by_card")
    with pytest.raises(ValueError, match="not in the dealer"):
        e.reset(options={"deal": deal, "dealer": 3, "exposed_card": deal[0][0]})
    e.reset(options={"deal": deal, "dealer": 3, "exposed_card": deal[3][0]})
    assert e.game.trump == deal[3][0] // 13


def spade_of(hand):
    return next(c for c in hand if c // 13 == SPADES)


@pytest.mark.parametrize("team0,expected", [(7, [7, 0]), (6, [0, 7]), (13, [16, 0]), (9, [9, 0])])
def test_no_auction_scoring(team0, expected):
    winners = [0] * team0 + [1] * (13 - team0)
    deal, plays = build_hand(0, winners, SPADES)
    e = raw_env(rules="trump_by_card")
    e.reset(seed=0, options={"deal": deal, "dealer": 3, "exposed_card": spade_of(deal[3])})
    assert e.view(0).phase == "play" and e.agent_selection == "player_0"
    recs = play_scripted(e, [], None, plays)
    assert recs[-1]["score_delta"] == expected


def test_no_auction_kaboot_options():
    deal, plays = build_hand(0, [0] * 13, SPADES)
    for kaboot, points in (("double", 26), ("plain", 13)):
        e = raw_env(rules={"preset": "trump_by_card", "kaboot": kaboot})
        e.reset(seed=0, options={"deal": deal, "dealer": 3, "exposed_card": spade_of(deal[3])})
        assert play_scripted(e, [], None, plays)[-1]["score_delta"] == [points, 0]


def test_presets_fields():
    assert PRESETS["syrian41"].target_score == 41 and PRESETS["syrian41"].trump == "last_card"
    assert PRESETS["hearts41"].trump == "hearts" and PRESETS["hearts41"].auction == "individual"
    assert PRESETS["trump_by_card"].auction == "none" and PRESETS["trump_by_card"].target_score == 31
