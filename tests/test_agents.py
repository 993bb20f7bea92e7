"""Baseline agents: scripted positions with a clear right card, determinism, legality, strength."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

import agents
from agents import ExpertAgent, RandomAgent, RuleAgent
from tarneeb_env import PASS, PRESETS, TarneebGame, bid_action, trump_action
from tarneeb_env.cards import SUIT_LETTERS, cards_of
from tarneeb_env.game import DONE, PLAY, deal_cards
from tarneeb_env.view import make_view

RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
CLUBS, DIAMONDS, HEARTS, SPADES = range(4)


def card(name: str) -> int:
    """``"10H"`` -> 34."""
    return SUIT_LETTERS.index(name[-1]) * 13 + RANKS.index(name[:-1])


def cards(names: str) -> list[int]:
    return [card(n) for n in names.split()]


def fill_deal(fixed: dict[int, str], only: dict[int, str] = {}) -> list[list[int]]:
    """A full deal holding the ``fixed`` cards; the rest go in order to seats with room, except that
    ``only[seat]`` names suits in which the seat holds just its fixed cards (none: a void)."""
    deal = {s: cards(fixed.get(s, "")) for s in range(4)}
    free = [c for c in range(52) if all(c not in h for h in deal.values())]
    for seat in sorted(range(4), key=lambda s: -len(only.get(s, ""))):  # the most restricted seats first
        mine = [c for c in free if SUIT_LETTERS[c // 13] not in only.get(seat, "")][: 13 - len(deal[seat])]
        deal[seat] += mine
        free = [c for c in free if c not in mine]
    assert all(len(h) == 13 for h in deal.values())
    return [sorted(deal[s]) for s in range(4)]


def game_at(deal, dealer: int, actions, rules="classic") -> TarneebGame:
    g = TarneebGame(PRESETS[rules], np.random.default_rng(0))
    g.new_game(dealer, (0, 0))
    g.start_deal(deal=deal)
    for a in actions:
        assert g.apply(a) is None
    return g


def rule_choice(g: TarneebGame) -> tuple[int, str]:
    return RuleAgent(seed=0).explain(make_view(g, g.current))


# the first bidder (the seat after the dealer) bids 7, the others pass; it names spades and leads
OPEN_7_SPADES = [bid_action(7), PASS, PASS, PASS, trump_action(SPADES)]
SEAT0_SPADES = OPEN_7_SPADES  # with dealer 3
SEAT1_SPADES = OPEN_7_SPADES  # with dealer 0


# ------------------------------------------------------------------ rule: card play
def test_rule_follows_low_when_partner_has_the_trick():
    deal = fill_deal({0: "AH", 1: "3H", 2: "5H 9H KH"}, only={2: "H"})
    g = game_at(deal, 3, SEAT0_SPADES + [card("AH"), card("3H")])
    assert g.current == 2
    action, reason = rule_choice(g)
    assert action == card("5H")
    assert "partner" in reason


def test_rule_last_hand_does_not_overtake_partner():
    deal = fill_deal({0: "KH", 1: "QH", 2: "3H", 3: "2H AH"}, only={3: "H"})
    g = game_at(deal, 3, SEAT0_SPADES + [card("KH"), card("QH"), card("3H")])
    # seat 3's partner (seat 1) is losing to the king: win with the ace
    assert rule_choice(g)[0] == card("AH")
    deal = fill_deal({0: "QH", 1: "KH", 2: "3H", 3: "2H AH"}, only={3: "H"})
    g = game_at(deal, 3, SEAT0_SPADES + [card("QH"), card("KH"), card("3H")])
    assert rule_choice(g)[0] == card("2H")  # partner's king holds: keep the ace


def test_rule_ruffs_a_trick_partner_is_losing_as_cheaply_as_possible():
    deal = fill_deal({0: "4S 9S KS", 1: "KH", 2: "2H", 3: "3H"}, only={0: "HS"})
    g = game_at(deal, 0, SEAT1_SPADES + [card("KH"), card("2H"), card("3H")])
    assert g.current == 0
    action, reason = rule_choice(g)
    assert action == card("4S")
    assert "ruff" in reason


def test_rule_overruffs_cheaply_and_never_ruffs_partners_winner():
    deal = fill_deal({0: "4S 9S KS", 1: "5H", 2: "AH", 3: "5S"}, only={0: "HS", 3: "H"})
    g = game_at(deal, 0, SEAT1_SPADES + [card("5H"), card("AH"), card("5S")])
    assert rule_choice(g)[0] == card("9S")  # overruff the 5 with the 9, not the king
    deal = fill_deal({0: "4S 9S KS", 1: "5H", 2: "AH", 3: "6H"}, only={0: "HS"})
    g = game_at(deal, 0, SEAT1_SPADES + [card("5H"), card("AH"), card("6H")])
    action = rule_choice(g)[0]
    assert action // 13 != SPADES  # partner's ace wins: discard, do not ruff


def test_rule_declarer_draws_trumps_with_the_top_trumps():
    deal = fill_deal({0: "AS KS QS 3S 2S AD KD"}, only={0: "S"})
    g = game_at(deal, 3, SEAT0_SPADES)
    assert g.current == 0 and g.phase == PLAY
    action, reason = rule_choice(g)
    assert action == card("QS")  # the cheapest of the three top trumps
    assert "trump" in reason


def test_rule_cashes_an_established_side_winner():
    # spades are trump and every other spade is dealt to the partner, so no opponent can ruff
    deal = fill_deal({0: "AH KH 4D 5C", 2: "AS KS QS JS 10S 9S 8S 7S 6S 5S 4S 3S 2S"})
    g = game_at(deal, 3, SEAT0_SPADES)
    action, reason = rule_choice(g)
    assert action == card("KH")
    assert "winner" in reason


# --------------------------------------------------------------- rule: bidding
NO_HONOURS = "2C 3C 4C 5C 6D 7D 8D 9D 2H 3H 4H 5S 6S"


def test_rule_passes_a_hand_without_honours():
    deal = fill_deal({1: NO_HONOURS})
    g = game_at(deal, 0, [])
    assert g.current == 1
    assert rule_choice(g)[0] == PASS


def test_rule_declares_the_minimum_with_no_honours_under_individual_bidding():
    deal = fill_deal({1: NO_HONOURS, 0: "10H"})
    g = TarneebGame(PRESETS["syrian41"], np.random.default_rng(0))
    g.new_game(0, (0, 0))
    g.start_deal(deal=deal, exposed_card=card("10H"))
    assert g.current == 1
    assert rule_choice(g)[0] == bid_action(2)


def test_rule_bids_and_names_its_long_strong_suit():
    deal = fill_deal({1: "AS KS QS JS 10S 9S AH KH AD KD 2C 3C 4C"})
    g = game_at(deal, 0, [])
    assert rule_choice(g)[0] == bid_action(7)
    g = game_at(deal, 0, [bid_action(7), PASS, PASS, PASS])
    assert rule_choice(g)[0] == trump_action(SPADES)


def test_rule_does_not_outbid_its_partner():
    deal = fill_deal({3: "AS KS QS JS 10S 9S AH KH AD KD 2C 3C 4C"})
    g = game_at(deal, 0, [bid_action(7), PASS])  # seat 1 bid 7, seat 2 passed; seat 3 holds a rock
    assert rule_choice(g)[0] == PASS


def test_rule_explain_gives_the_action_act_returns():
    g = TarneebGame(PRESETS["classic"], np.random.default_rng(3))
    g.new_game(0, (0, 0))
    g.start_deal()
    agent = RuleAgent(seed=0)
    while g.phase != DONE:
        view = make_view(g, g.current)
        action, reason = agent.explain(view)
        assert agent.act(None, view) == action and reason
        if g.apply(action) is not None and g.phase == DONE and g.declarer is None:
            g.next_deal()


# ------------------------------------------------------------- legality and seeds
def play_deal(table, rules, seed, deal=None, dealer=0, record=False):
    """Play one deal (redealt while thrown in); returns the hand result and every action."""
    g = TarneebGame(PRESETS[rules], np.random.default_rng(seed))
    g.new_game(dealer, (0, 0))
    g.start_deal(deal=deal)
    actions = []
    while True:
        view = make_view(g, g.current)
        a = table[g.current].act(None, view)
        assert a in view.legal_actions, (rules, seed, view.phase, a, view.legal_actions)
        actions.append(a)
        result = g.apply(a)
        if result is not None:
            if result.thrown_in:
                g.next_deal()
                continue
            return result, actions


@pytest.mark.parametrize("rules", sorted(PRESETS))
def test_rule_plays_only_legal_actions(rules):
    rule, rnd = RuleAgent(seed=1), RandomAgent(seed=2)
    for seed in range(60):
        table = [rule, rnd, rule, rnd] if seed % 2 else [rule, rule, rule, rule]
        play_deal(table, rules, seed, dealer=seed % 4)


@pytest.mark.parametrize("rules", sorted(PRESETS))
def test_expert_plays_only_legal_actions(rules):
    expert = ExpertAgent(seed=1, samples=3, bid_samples=2)
    rule = RuleAgent(seed=0)
    for seed in range(2):
        play_deal([expert, rule, rule, expert], rules, seed, dealer=seed)


@pytest.mark.parametrize("name,options", [("rule", {}), ("expert", {"samples": 4, "bid_samples": 3})])
def test_agents_are_deterministic_for_a_seed(name, options):
    def run(seed):
        a, b = agents.load(name, seed=seed, **options), agents.load(name, seed=seed, **options)
        return play_deal([a, RuleAgent(seed=0), b, RuleAgent(seed=0)], "classic", 7)[1]

    assert run(5) == run(5)


def test_expert_samples_agree_with_the_view():
    g = TarneebGame(PRESETS["syrian41"], np.random.default_rng(4))
    g.new_game(2, (0, 0))
    g.start_deal()
    rule = RuleAgent(seed=0)
    expert = ExpertAgent(seed=0)
    checked = 0
    while g.phase != DONE:
        view = make_view(g, g.current)
        if g.phase == PLAY and len(g.played) % 7 == 3:
            for layout in expert._sample_layouts(view, view.played_mask, view.voids, 20):
                assert layout[view.seat] == g.hands[view.seat]
                for s in range(4):
                    assert bin(layout[s]).count("1") == bin(g.hands[s]).count("1")
                    for suit in range(4):
                        if view.voids[s] >> suit & 1:
                            assert not layout[s] >> (13 * suit) & 0x1FFF
                assert layout[0] | layout[1] | layout[2] | layout[3] == sum(g.hands[s] for s in range(4))
                if view.seat != g.dealer and not view.played_mask >> g.exposed_card & 1:
                    assert layout[g.dealer] >> g.exposed_card & 1  # the exposed trump card stays with the dealer
            checked += 1
        result = g.apply(rule.act(None, view))
        if result is not None and result.thrown_in:
            g.next_deal()
    assert checked >= 5


def test_expert_sampler_respects_voids_that_leave_one_layout_per_suit():
    # seat 0 holds no spade; seat 1 is (said to be) void in all but spades, seat 3 in clubs and spades
    deal = fill_deal({0: "2C 3C 4C 5C 6C 2D 3D 4D 5D 6D 2H 3H 4H"}, only={0: "S"})
    g = game_at(deal, 3, SEAT0_SPADES)
    view = make_view(g, 0)
    void = [0, 0b0111, 0, 0b1001]
    spades, clubs = 0x1FFF << 39, 0x1FFF
    for layout in ExpertAgent(seed=3)._sample_layouts(view, 0, void, 30):
        assert layout[1] == spades  # the only 13 cards seat 1 may hold
        assert layout[2] & clubs == clubs & ~g.hands[0]  # nobody else may hold the other clubs
        assert not layout[3] & (spades | clubs)


def test_agents_serve_interleaved_tables():
    # one agent object acting at several tables in turn (as the evaluator does) must not mix them up
    hands, _ = deal_cards(np.random.default_rng(8), 0)
    deal = [list(cards_of(h)) for h in hands]
    games = [game_at(deal, 3, SEAT0_SPADES), game_at(deal, 3, SEAT0_SPADES)]
    players = [RuleAgent(seed=0), RandomAgent(seed=4)]  # the same deal, played differently
    shared, fresh = RuleAgent(seed=0), [RuleAgent(seed=0), RuleAgent(seed=0)]
    while games[0].phase == PLAY or games[1].phase == PLAY:
        for t, g in enumerate(games):
            if g.phase != PLAY:
                continue
            view = make_view(g, g.current)
            assert shared.act(None, view) == fresh[t].act(None, view)
            g.apply(players[t].act(None, view))


def test_expert_option_errors_name_the_option():
    with pytest.raises(ValueError, match="samples"):
        ExpertAgent(samples=0)
    with pytest.raises(ValueError, match="bid_samples"):
        ExpertAgent(bid_samples="many")


# -------------------------------------------------------------- expert: DD checks
def test_dd_wrapper_matches_endplay_tables():
    from endplay.dds import calc_dd_table
    from endplay.types import Deal, Denom, Player

    from agents import dds

    hands, _ = deal_cards(np.random.default_rng(11), 0)

    def pbn(h):
        return ".".join("".join("23456789TJQKA"[r] for r in range(12, -1, -1) if h >> (13 * s + r) & 1)
                        for s in (3, 2, 1, 0))

    table = calc_dd_table(Deal("N:" + " ".join(pbn(h) for h in hands)))
    denoms = (Denom.clubs, Denom.diamonds, Denom.hearts, Denom.spades)
    for trump in range(4):
        got = dds.lead_tricks([(hands, trump, leader) for leader in range(4)])
        for leader in range(4):
            declarer = Player((leader + 3) % 4)  # DDS: the declarer's left-hand opponent leads
            assert got[leader] == 13 - table[denoms[trump], declarer]


def test_dds_threads_option_checks_its_value():
    from agents import dds

    for bad in (0, -1, 1.5, True, "2"):
        with pytest.raises(ValueError, match="DDS threads"):
            dds.set_threads(bad)


def test_dds_threads_reach_the_solver_at_once_or_at_its_first_load(monkeypatch):
    """Set before DDS loads, the count waits (endplay is not imported for it) and applies at the load; the
    default is the cores this process may run on, not the machine's; set after, it applies at once."""
    import sys
    import types

    import endplay

    from agents import dds

    calls = []
    fake = types.SimpleNamespace(SetMaxThreads=calls.append)
    monkeypatch.setattr(dds, "_dds", None)
    monkeypatch.setattr(dds, "_threads", None)
    monkeypatch.setattr(dds, "usable_cores", lambda: 3)
    dds.set_threads(5)
    assert dds.threads() == 5 and calls == []
    dds.set_threads(None)
    monkeypatch.setitem(sys.modules, "endplay._dds", fake)
    monkeypatch.setattr(endplay, "_dds", fake, raising=False)
    assert dds._lib() is fake and calls == [3]
    dds.set_threads(1)
    assert calls == [3, 1]


def test_dds_solutions_do_not_depend_on_its_threads(monkeypatch):
    from agents import dds

    monkeypatch.setattr(dds, "_threads", dds._threads)
    rng = np.random.default_rng(12)
    positions = [(deal_cards(rng, 0)[0], trump, leader) for trump in range(4) for leader in range(2)]
    dds.set_threads(None)
    many = dds.lead_tricks(positions)
    dds.set_threads(1)
    assert dds.lead_tricks(positions) == many
    dds.set_threads(None)


def test_evaluator_workers_share_the_usable_cores_among_their_dds_threads(monkeypatch):
    from agents import cores, dds
    from evaluation import match

    monkeypatch.setattr(dds, "_threads", None)
    monkeypatch.setattr(cores, "usable_cores", lambda: 8)
    monkeypatch.setattr(match.signal, "signal", lambda *a: None)  # the test process keeps its Ctrl-C
    monkeypatch.setattr(match, "_WORKER", None)
    for pool_size, expected in ((1, 8), (3, 2), (16, 1)):
        match._init_worker(["rule", "rule"], ["a", "b"], match.MatchSettings(), [], pool_size)
        assert dds.threads() == expected


# dealt by seed 5, classic, dealer 0; rule agents played the auction and 12 tricks less one card
ENDING_DEAL = [
    [1, 3, 4, 9, 20, 23, 26, 32, 39, 40, 43, 45, 51],
    [0, 2, 5, 8, 11, 16, 17, 28, 30, 35, 36, 41, 48],
    [6, 13, 15, 22, 24, 25, 27, 29, 37, 38, 42, 47, 49],
    [7, 10, 12, 14, 18, 19, 21, 31, 33, 34, 44, 46, 50],
]
ENDING_ACTIONS = [52, 59, 52, 52, 67, 24, 14, 20, 16, 25, 18, 23, 17, 22, 19, 26, 41, 37, 31, 32, 28, 38, 33, 1, 30,
                  27, 34, 3, 35, 36, 29, 44, 4, 0, 6, 12, 9, 7, 39, 11, 13, 42, 46, 51, 48, 40, 2, 47, 50]


def test_expert_finds_the_double_dummy_card_in_an_ending():
    from agents import dds

    g = game_at(ENDING_DEAL, 0, ENDING_ACTIONS)
    view = make_view(g, g.current)
    assert view.seat == 3 and sorted(view.legal_actions) == [10, 21]
    # whatever the layout of the unseen cards, 10D is the only card that keeps the most tricks
    mine = g.hands[3]
    unseen = [c for c in range(52) if not (view.played_mask | mine) >> c & 1]
    need = {s: bin(g.hands[s]).count("1") for s in range(3)}
    layouts = []
    for owners in itertools.product(range(3), repeat=len(unseen)):
        if any(owners.count(s) != need[s] for s in range(3)):
            continue
        if any(view.voids[s] >> (c // 13) & 1 for c, s in zip(unseen, owners)):
            continue
        hands = [0, 0, 0, mine]
        for c, s in zip(unseen, owners):
            hands[s] |= 1 << c
        layouts.append(hands)
    assert not view.trick  # seat 3 is on lead
    solved = dds.solve_positions([(h, view.trump, 3, ()) for h in layouts])
    assert len(layouts) > 1 and all(r[21] > r[10] for r in solved)
    assert RuleAgent(seed=0).act(None, view) == 10  # the rule player gets it wrong
    assert ExpertAgent(seed=0, samples=8).act(None, view) == 21


# ------------------------------------------------------------------ strength ladder
def duplicate_margin(a, b, rules, deals, seed=0):
    """Mean (a - b) score per deal, each deal played twice with the seats swapped."""
    margins = []
    for i in range(deals):
        hands, _ = deal_cards(np.random.default_rng(seed + i), 0)
        deal = [list(cards_of(h)) for h in hands]
        r1, _ = play_deal([a, b, a, b], rules, seed + i, deal=deal, dealer=i % 4)
        r2, _ = play_deal([b, a, b, a], rules, seed + i, deal=deal, dealer=i % 4)
        margins.append((r1.score_delta[0] - r1.score_delta[1]) + (r2.score_delta[1] - r2.score_delta[0]))
    return float(np.mean(margins)) / 2


@pytest.mark.parametrize("rules", ["classic", "syrian41"])
def test_rule_beats_random_by_a_wide_margin(rules):
    assert duplicate_margin(RuleAgent(seed=0), RandomAgent(seed=0), rules, deals=40) > 8.0


def test_load_builds_the_baselines_by_name():
    assert isinstance(agents.load("rule", seed=1), RuleAgent)
    expert = agents.load("expert", seed=1, samples=5)
    assert isinstance(expert, ExpertAgent) and expert.samples == 5
