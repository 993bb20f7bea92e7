"""Scripted deals for every rule and option: fixed cards, fixed auction, known winners and scores."""
import pytest

from tarneeb_env import PASS, IllegalActionError, Rules, bid_action, make_rules, raw_env
from tarneeb_env.game import individual_bid_value, team_hand_score

from scripted import auction, build_hand, play_scripted, team_winners

SPADES, HEARTS, DIAMONDS, CLUBS = 3, 2, 1, 0


def hand_env(rules="classic", episode="hand", **kw):
    e = raw_env(rules=rules, episode=episode, **kw)
    return e


def test_builder_tricks_follow_the_script():
    winners = [0, 1, 2, 3, 1, 1, 0, 2, 3, 3, 0, 1, 2]
    deal, plays = build_hand(1, winners, SPADES)
    e = hand_env(rules={"first_lead": "eldest"})
    e.reset(seed=0, options={"deal": deal, "dealer": 0})
    recs = play_scripted(e, auction(7, "p", "p", "p"), SPADES, plays)
    assert recs[-1]["trick_winners"] == winners
    assert recs[-1]["tricks_by_seat"] == [3, 4, 3, 3]


def test_portuguese_worked_game():
    """Dealer seat 3; 7, 8, pass, pass, 9, pass -> seat 0 at 9; 10 tricks -> 10-0; then 8 bid, 7 taken -> 16 to -8."""
    e = hand_env(episode="game")
    winners = team_winners(0, 10, 0)
    deal, plays = build_hand(0, winners, HEARTS)
    e.reset(seed=1, options={"deal": deal, "dealer": 3})
    recs = play_scripted(e, auction(7, 8, "p", "p", 9, "p"), HEARTS, plays)
    rec = recs[-1]
    assert (rec["declarer"], rec["bid"], rec["trump"]) == (0, 9, HEARTS)
    assert rec["tricks_won"] == [10, 3]
    assert rec["score_delta"] == [10, 0] and rec["scores"] == [10, 0]
    assert e.rewards == {"player_0": 10, "player_1": -10, "player_2": 10, "player_3": -10}
    # The deal passed to seat 0, so seat 1 is eldest. Continue the game on the example's next deal.
    assert e.game.dealer == 0 and e.agent_selection == "player_1"
    deal, plays = build_hand(1, team_winners(1, 7, 1), CLUBS)
    e.reset(seed=2, options={"deal": deal, "dealer": 0, "scores": rec["scores"]})
    recs = play_scripted(e, auction(8, "p", "p", "p"), CLUBS, plays)
    rec = recs[-1]
    assert (rec["declarer"], rec["bid"], rec["tricks_won"]) == (1, 8, [6, 7])
    assert rec["score_delta"] == [6, -8]
    assert rec["scores"] == [16, -8]
    assert not any(e.terminations.values())


def test_spanish_example_bid_8_takes_9():
    deal, plays = build_hand(2, team_winners(2, 9, 0), HEARTS)
    e = hand_env()
    e.reset(seed=0, options={"deal": deal, "dealer": 1})
    recs = play_scripted(e, auction(8, "p", "p", "p"), HEARTS, plays)
    assert recs[-1]["declarer"] == 2 and recs[-1]["score_delta"] == [9, 0]
    assert all(e.terminations.values())


@pytest.mark.parametrize(
    "kaboot,bid,taken,expected",
    [
        ("bonus", 8, 13, [16, 0]),
        ("bonus", 13, 13, [26, 0]),
        ("bonus", 13, 12, [-16, 1]),
        ("double", 8, 13, [26, 0]),
        ("double", 13, 12, [-13, 1]),
        ("plain", 9, 13, [13, 0]),
        ("plain", 13, 13, [13, 0]),
        ("bonus", 10, 9, [-10, 4]),
    ],
)
def test_kaboot_and_failed_bids(kaboot, bid, taken, expected):
    deal, plays = build_hand(0, team_winners(0, taken, 0), SPADES)
    e = hand_env(rules={"kaboot": kaboot})
    e.reset(seed=0, options={"deal": deal, "dealer": 3})
    bids = auction(bid) if bid == 13 else auction(bid, "p", "p", "p")
    recs = play_scripted(e, bids, SPADES, plays)
    assert recs[-1]["tricks_won"][0] == taken
    assert recs[-1]["score_delta"] == expected


def test_bid_13_ends_the_auction_at_once():
    e = hand_env()
    e.reset(seed=0, options={"dealer": 3})
    e.step(bid_action(7))
    e.step(bid_action(13))
    assert e.game.declarer == 1 and e.game.bid == 13 and e.agent_selection == "player_1"
    assert e.view("player_1").phase == "trump"


def test_defenders_always_score():
    deal, plays = build_hand(0, team_winners(0, 9, 0), SPADES)
    e = hand_env(rules={"defenders_score": "always"})
    e.reset(seed=0, options={"deal": deal, "dealer": 3})
    recs = play_scripted(e, auction(8, "p", "p", "p"), SPADES, plays)
    assert recs[-1]["score_delta"] == [9, 4]


def test_first_lead_eldest_and_declarer():
    for first_lead, leader in (("declarer", 2), ("eldest", 0)):
        e = hand_env(rules={"first_lead": first_lead})
        e.reset(seed=0, options={"dealer": 3})
        for a in auction("p", "p", 9, "p"):
            e.step(a)
        e.step(66 + SPADES)
        assert e.agent_selection == f"player_{leader}"
        assert e.view(leader).leader == leader


def test_bid13_wins_game_at_once():
    deal, plays = build_hand(0, team_winners(0, 13, 0), SPADES)
    e = hand_env(rules={"bid13_wins_game": True}, episode="game", reward="win")
    e.reset(seed=0, options={"deal": deal, "dealer": 3})
    play_scripted(e, auction(13), SPADES, plays)
    assert e.game.scores == [26, 0] and e.game.winner == 0
    assert all(e.terminations.values())
    assert e.rewards == {"player_0": 1, "player_1": -1, "player_2": 1, "player_3": -1}
    # Without the option the same 26 points do not end a game to 31.
    e = hand_env(episode="game")
    e.reset(seed=0, options={"deal": deal, "dealer": 3})
    play_scripted(e, auction(13), SPADES, plays)
    assert e.game.scores == [26, 0] and not e.game.game_over and not any(e.terminations.values())


def test_all_pass_redeal_by_same_dealer_inside_hand_episode():
    e = hand_env()
    e.reset(seed=5, options={"dealer": 2})
    first_deal = e.game.deal
    for _ in range(4):
        e.step(PASS)
    rec = e.infos["player_0"]["hand_record"]
    assert rec["thrown_in"] and rec["dealer"] == 2 and rec["score_delta"] == [0, 0]
    assert rec["auction"] == [[3, PASS], [0, PASS], [1, PASS], [2, PASS]]
    assert e.game.dealer == 2 and e.game.deal != first_deal
    assert e.agent_selection == "player_3" and not any(e.terminations.values())
    assert e.rewards == dict.fromkeys(e.possible_agents, 0)


def test_redeals_come_from_the_seeded_generator():
    deals = []
    for _ in range(2):
        e = hand_env()
        e.reset(seed=11, options={"dealer": 0})
        for _ in range(4):
            e.step(PASS)
        deals.append(e.game.deal)
    assert deals[0] == deals[1]


def test_dealer_bids_after_three_passes():
    e = hand_env(rules={"all_pass": "dealer_bids"})
    e.reset(seed=0, options={"dealer": 1})
    for _ in range(3):
        e.step(PASS)
    assert e.agent_selection == "player_1"
    legal = e.view(1).legal_actions
    assert PASS not in legal and legal == tuple(bid_action(b) for b in range(7, 14))
    with pytest.raises(IllegalActionError, match="player_1"):
        e.step(PASS)
    e.step(bid_action(7))
    assert e.game.declarer == 1 and e.game.bid == 7


def test_both_teams_cross_target_higher_wins_and_tie_continues():
    # Team 0 at 28, team 1 at 30; team 0 bids 8 and takes 9: defenders score 4 under "always" -> 37 vs 34.
    deal, plays = build_hand(0, team_winners(0, 9, 0), SPADES)
    e = hand_env(rules={"defenders_score": "always"}, episode="game", reward="win")
    e.reset(seed=0, options={"deal": deal, "dealer": 3, "scores": [28, 30]})
    play_scripted(e, auction(8, "p", "p", "p"), SPADES, plays)
    assert e.game.scores == [37, 34] and e.game.winner == 0
    assert e.rewards["player_0"] == 1 and e.rewards["player_1"] == -1
    # Tie: 27 + 9 = 36 and 32 + 4 = 36 -> play continues.
    e.reset(seed=0, options={"deal": deal, "dealer": 3, "scores": [27, 32]})
    play_scripted(e, auction(8, "p", "p", "p"), SPADES, plays)
    assert e.game.scores == [36, 36] and not e.game.game_over
    assert not any(e.terminations.values()) and e.game.phase == 0


def test_only_one_team_crosses():
    deal, plays = build_hand(0, team_winners(0, 7, 0), SPADES)
    e = hand_env(episode="game", reward="win")
    e.reset(seed=0, options={"deal": deal, "dealer": 3, "scores": [25, 30]})
    play_scripted(e, auction(7, "p", "p", "p"), SPADES, plays)
    assert e.game.scores == [32, 30] and e.game.winner == 0


def test_illegal_action_leaves_state_unchanged():
    deal, plays = build_hand(0, team_winners(0, 7, 0), SPADES)
    e = hand_env()
    e.reset(seed=0, options={"deal": deal, "dealer": 3})
    e.step(bid_action(7))
    before = e.observe("player_1")
    for bad in (bid_action(7), 66, 0, 70, -1, "x", None, 7.5):
        with pytest.raises(IllegalActionError) as info:
            e.step(bad)
        assert "player_1" in str(info.value) and "legal actions" in str(info.value)
    after = e.observe("player_1")
    assert (before["observation"] == after["observation"]).all()
    assert e.agent_selection == "player_1"
    e.step(bid_action(8))  # the caller can retry
    assert e.game.high_bid == 8


def test_follow_suit_is_enforced():
    deal, plays = build_hand(0, team_winners(0, 7, 0), SPADES)
    e = hand_env()
    e.reset(seed=0, options={"deal": deal, "dealer": 3})
    play_scripted(e, auction(7, "p", "p", "p"), SPADES, plays[:1])
    led_suit = plays[0] // 13
    off_suit = [c for c in deal[1] if c // 13 != led_suit]
    with pytest.raises(IllegalActionError):
        e.step(off_suit[0])
    assert all(c // 13 == led_suit for c in e.view(1).legal_actions)


def test_scoring_helpers_direct():
    r = Rules()
    assert team_hand_score(r, 8, 10) == (10, 0)
    assert team_hand_score(r, 8, 7) == (-8, 6)
    assert [individual_bid_value(b) for b in (2, 6, 7, 12, 13)] == [2, 6, 14, 24, 39]


@pytest.mark.parametrize(
    "spec,match",
    [
        ({"kaboot": "triple"}, "rules.kaboot"),
        ({"first_lead": "dealer"}, "rules.first_lead"),
        ({"target_score": 0}, "rules.target_score"),
        ({"min_bid": 14}, "rules.min_bid"),
        ({"bid13_wins_game": "yes"}, "rules.bid13_wins_game"),
        ({"colour": 1}, "unknown key"),
        ({"auction": "team", "trump": "hearts"}, "valid combinations"),
        ({"auction": "individual", "trump": "declarer"}, "valid combinations"),
        ("bridge", "unknown rules preset"),
    ],
)
def test_invalid_rules_are_rejected_by_name(spec, match):
    with pytest.raises(ValueError, match=match):
        make_rules(spec)


def test_rules_from_yaml(tmp_path):
    p = tmp_path / "r.yaml"
    p.write_text("preset: classic\ntarget_score: 41\nkaboot: double\n")
    assert make_rules(str(p)) == Rules(target_score=41, kaboot="double")
    p.write_text("kaboot: [1\n")
    with pytest.raises(ValueError, match="not valid YAML"):
        make_rules(str(p))


def test_bad_reset_options():
    e = hand_env()
    with pytest.warns(UserWarning, match="unknown key.*'hands'"):
        e.reset(options={"hands": []})
    with pytest.raises(ValueError, match="13 distinct"):
        e.reset(options={"deal": [[0] * 13] * 4})
    with pytest.raises(ValueError, match="dealer"):
        e.reset(options={"dealer": 4})


def test_trick_winner_of_a_trick_in_progress_is_the_seat_winning_it_so_far():
    from tarneeb_env.game import trick_winner

    assert trick_winner([(2, 5)], None) == 2  # the lead alone
    assert trick_winner([(2, 5), (3, 9)], None) == 3  # higher club
    assert trick_winner([(2, 5), (3, 9), (0, 14)], None) == 3  # a diamond discard does not win
    assert trick_winner([(2, 5), (3, 9), (0, 14)], 1) == 0  # ... unless diamonds are trump
    assert trick_winner([(2, 5), (3, 9), (0, 14), (1, 12)], 1) == 0
