"""Every shipped network plays from what its seat can see: the hidden-card leak test, at real decision points.

Each ``checkpoints/*.pt`` (found by glob, so a file added or removed there is covered or dropped with it) plays
deals under its own rules against ``rule``. At each of its decisions in a learned phase (bidding, trump, play),
the cards the acting seat cannot see are moved between the other three hands, keeping each hand's size, every
void the play has shown and the exposed card where it lies; the deal is replayed to that point and the network's
action probabilities must be exactly equal (same process, same batch shape). The probabilities come from
``model.policy_logits``, the path a table uses, so the trump relabelling (``canonical_trump``) and the
``contract7`` view are inside what is tested. A positive control writes one hidden card into the observation;
the same comparison must then find differences, so the test is shown to be able to fail.

The engine protocol's host side (``engine:`` agents, docs/engine-protocol.md) is held to the same test: the
messages an external engine is sent for a seat must not change when the cards that seat cannot see move.
"""
from __future__ import annotations

import dataclasses
import glob
import os

import numpy as np
import pytest
import torch

import agents
from agents.checkpoint import checkpoint_rules, load_checkpoint
from tarneeb_env import PRESETS, raw_env
from tarneeb_env.cards import cards_of
from tarneeb_env.observation import OFFSETS
from scripted import replay

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHIPPED = sorted(os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "checkpoints", "*.pt")))
DEALS, SLOW_DEALS = 4, 40  # deals played per file; the network sits at 0&2 in even deals, 1&3 in odd ones
CONTROL_DEALS = 2  # the positive control's
MOVES = 2  # independent card moves per decision point
TRIES = 200  # random assignments tried per move before a decision point is passed over (shown voids can bind)
MIN_MOVED_SHARE = 0.75  # of the decision points, this share must get a move that changes the deal (late in a
# hand, hand sizes and shown voids can leave the unseen cards one arrangement only)
LEAK_FOUND_SHARE = 0.5  # the positive control must differ at at least this share of the points it changes


def _rules_of(path: str):
    return checkpoint_rules(load_checkpoint(os.path.join(ROOT, path)), path)


def _phases_that_exist(rules) -> set[str]:
    """The decision phases the rules have: no auction, no bidding; a trump fixed by the rules, no trump call."""
    phases = {"play"}
    if rules.auction != "none":
        phases.add("bidding")
    if rules.trump == "declarer":
        phases.add("trump")
    return phases


def decision_points(path: str, deals: int, seed: int):
    """(deal, dealer, exposed card, actions before, seat, phase) of the network's decisions in its learned
    phases, over ``deals`` first deals played greedily against ``rule`` under the file's own rules."""
    rules = _rules_of(path)
    net = agents.load(os.path.join(ROOT, path), rules=rules)
    rule = agents.load("rule", rules=rules, seed=seed)
    points = []
    for k in range(deals):
        e = raw_env(rules=rules)
        e.reset(seed=seed + k, options={"dealer": k % 4})
        deal, dealer, exposed = [list(cards_of(h)) for h in e.game.deal], e.game.dealer, e.game.exposed_card
        net_seats = (0, 2) if k % 2 == 0 else (1, 3)
        actions = []
        while not any(e.terminations.values()) and not any(e.truncations.values()) and e.game.deals == 1:
            seat, agent = e.game.current, e.agent_selection
            obs, view = e.observe(agent), e.view(agent)
            if seat in net_seats and view.phase in net.phases:
                points.append((deal, dealer, exposed, list(actions), seat, view.phase))
            actor = net if seat in net_seats else rule
            actions.append(actor.act(obs, view))
            e.step(actions[-1])
    return net, rules, points


def moved_deal(game, observer: int, rng: np.random.Generator):
    """The deal with the cards ``observer`` cannot see dealt anew between the other three seats: each keeps its
    played cards, its number of unplayed cards, no card of a suit it has shown void in, and the dealer the
    exposed card. None when ``TRIES`` random assignments all break a shown void."""
    exposed = game.exposed_card
    others = [s for s in range(4) if s != observer]
    unplayed = {s: cards_of(game.hands[s]) for s in others}
    kept = {s: [c for c in unplayed[s] if c == exposed] for s in others}  # the exposed card stays put
    pool = [c for s in others for c in unplayed[s] if c != exposed]
    room = {s: len(unplayed[s]) - len(kept[s]) for s in others}
    for _ in range(TRIES):
        given = {s: [] for s in others}
        for c in rng.permutation(pool):
            open_seats = [s for s in others if len(given[s]) < room[s] and not game.voids[s] >> (c // 13) & 1]
            if not open_seats:
                break
            given[int(rng.choice(open_seats))].append(int(c))
        else:
            played = {s: [c for p, c in game.played if p == s] for s in others}
            deal = [list(h) for h in (cards_of(m) for m in game.deal)]
            for s in others:
                deal[s] = played[s] + kept[s] + given[s]
            return deal
    return None


def _probs(net, obs: np.ndarray, mask: np.ndarray) -> torch.Tensor:
    with torch.no_grad():
        logits = net.model.policy_logits(torch.from_numpy(obs[None]), torch.from_numpy(mask[None]))
    return torch.softmax(logits, -1)


def _observation(env, seat: int) -> tuple[np.ndarray, np.ndarray]:
    o = env.observe(f"player_{seat}")
    return o["observation"], o["action_mask"]


def _leaky_observation(env, seat: int) -> tuple[np.ndarray, np.ndarray]:
    """The positive control: the observation with the left-hand opponent's highest unplayed card written into
    the played-cards block, a one-bit leak."""
    obs, mask = _observation(env, seat)
    left = env.game.hands[(seat + 1) % 4]
    if left:
        obs = obs.copy()
        obs[OFFSETS["played"] + cards_of(left)[-1]] = 1.0
    return obs, mask


def compare(path: str, deals: int, observe=_observation, seed: int = 48):
    """Replay each decision point with the unseen cards moved; returns (points, points moved, points whose
    probabilities differed) and the phases met."""
    net, rules, points = decision_points(path, deals, seed)
    rng = np.random.default_rng(seed)
    moved = differed = 0
    for deal, dealer, exposed, actions, seat, _ in points:
        e = replay(rules, deal, dealer, exposed, actions)
        assert e.game.current == seat
        base = _probs(net, *observe(e, seat))
        tries = (moved_deal(e.game, seat, rng) for _ in range(MOVES))
        changed = [d for d in tries if d is not None and any(sorted(a) != sorted(b) for a, b in zip(d, deal))]
        moved += bool(changed)
        differed += any(not torch.equal(base, _probs(net, *observe(replay(rules, d, dealer, exposed, actions), seat)))
                        for d in changed)
    return len(points), moved, differed, {p[5] for p in points}


def test_every_shipped_file_is_found_and_the_relabelled_input_paths_are_among_them():
    assert {"checkpoints/classic.pt", "checkpoints/default.pt"} <= set(SHIPPED), SHIPPED
    archs = [load_checkpoint(os.path.join(ROOT, p))["model"] for p in SHIPPED]
    assert any(a.get("canonical_trump") for a in archs), "no shipped file tests the trump relabelling"
    assert any(a.get("view") == "contract7" for a in archs), "no shipped file tests the contract7 view"


def _check(path: str, deals: int) -> None:
    rules = _rules_of(path)
    n, moved, differed, phases = compare(path, deals)
    assert phases == _phases_that_exist(rules), (path, phases)  # every decision phase the rules have was met
    assert moved >= MIN_MOVED_SHARE * n, (path, n, moved)
    assert differed == 0, f"{path}: probabilities changed at {differed} of {moved} points when unseen cards moved"


@pytest.mark.parametrize("path", SHIPPED)
def test_shipped_policy_does_not_change_when_unseen_cards_move(path):
    _check(path, DEALS)


@pytest.mark.slow
@pytest.mark.parametrize("path", SHIPPED)
def test_shipped_policy_does_not_change_when_unseen_cards_move_over_many_deals(path):
    _check(path, SLOW_DEALS)


@pytest.mark.parametrize("path", SHIPPED)
def test_the_leak_test_fails_when_a_hidden_card_is_written_into_the_observation(path):
    n, moved, differed, _ = compare(path, CONTROL_DEALS, observe=_leaky_observation)
    assert moved >= MIN_MOVED_SHARE * n, (path, n, moved)
    assert differed >= LEAK_FOUND_SHARE * moved, (path, moved, differed)


# ---- the engine protocol's host side (agents.engine): what an external engine is sent -------------------------------
# The host writes a seat's messages from that seat's view, and at the end of a deal from its record (the only
# input that holds hidden cards: a thrown-in deal's hands). At every decision of every seat, and at every deal's
# end, the unseen cards are moved as above; the messages must be byte for byte the same. The positive control
# sends the record whole: the same comparison must then find the thrown-in deals' hands.
ENGINE_DEALS = 3  # played deals per preset (thrown-in deals come on top)


def _host_game(rules, deal, dealer, exposed, actions):
    from tarneeb_env.game import TarneebGame

    game = TarneebGame(rules, np.random.default_rng(0))
    game.new_game(dealer)
    game.start_deal([list(h) for h in deal], exposed)
    result = None
    for a in actions:
        result = game.apply(a)
    return game, result


def _sent(rules, deal, dealer, exposed, actions, seat, leaky=False) -> list[str]:
    """The JSON lines the host sends ``seat`` by this point: its deal's events and, on its turn, the act request;
    once the deal is over, the rest of it and the end with its record."""
    import json

    from agents.engine import HostDeals
    from tarneeb_env.view import make_view

    host = HostDeals()
    start, _ = _host_game(rules, deal, dealer, exposed, [])
    d, msgs = host.catch_up(make_view(start, seat), set())
    game, result = _host_game(rules, deal, dealer, exposed, actions)
    if result is not None:
        record = result.record
        if leaky:
            record = dataclasses.replace(record, thrown_in=False)  # the control: the record passed on whole
        msgs += host.finish(seat, record)
    else:
        view = make_view(game, seat)
        msgs += host.catch_up(view, set())[1]
        if view.to_act == seat:
            msgs.append(host.act(d.id, view, 0))
    return [json.dumps(m, sort_keys=True) for m in msgs]


def _engine_points(rules, seed: int):
    """(deal, dealer, exposed, actions) at every decision and at every deal's end of ``rule`` playing itself,
    until ``ENGINE_DEALS`` deals were played (and, where the rules throw deals in, at least one was)."""
    rule = agents.load("rule", rules=rules, seed=seed)
    points, played, thrown, k = [], 0, 0, 0
    while played < ENGINE_DEALS or (rules.auction != "none" and thrown == 0 and k < 200):
        e = raw_env(rules=rules)
        e.reset(seed=seed + k, options={"dealer": k % 4})
        k += 1
        deal, dealer, exposed = [list(cards_of(h)) for h in e.game.deal], e.game.dealer, e.game.exposed_card
        actions, mine = [], []
        while e.game.deals == 1 and not any(e.terminations.values()):
            mine.append((deal, dealer, exposed, list(actions)))
            agent = e.agent_selection
            actions.append(rule.act(e.observe(agent), e.view(agent)))
            e.step(actions[-1])
        mine.append((deal, dealer, exposed, list(actions)))  # the end
        if len(actions) < 52:
            thrown += 1
            points += mine
        elif played < ENGINE_DEALS:  # played deals beyond these (while a throw-in is looked for) are not checked
            played += 1
            points += mine
    return points, thrown


def _engine_compare(rules, leaky: bool, seed: int = 48):
    """(points x seats moved, of them those whose messages differed, thrown-in deals met); the control looks at
    the thrown-in deals' ends only, where the record holds hands no seat saw."""
    rng = np.random.default_rng(seed)
    points, thrown = _engine_points(rules, seed)
    if leaky:
        points = [p for k, p in enumerate(points) if k + 1 == len(points) or points[k + 1][3] == []]
        points = [p for p in points if 0 < len(p[3]) < 52]
    moved = differed = 0
    for deal, dealer, exposed, actions in points:
        game, _ = _host_game(rules, deal, dealer, exposed, actions)
        for seat in range(4):
            base = _sent(rules, deal, dealer, exposed, actions, seat, leaky)
            tries = (moved_deal(game, seat, rng) for _ in range(MOVES))
            changed = [d for d in tries if d is not None and any(sorted(a) != sorted(b) for a, b in zip(d, deal))]
            moved += bool(changed)
            differed += any(_sent(rules, d, dealer, exposed, actions, seat, leaky) != base for d in changed)
    return moved, differed, thrown


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_the_engine_protocol_host_sends_nothing_a_seat_cannot_see(preset):
    moved, differed, thrown = _engine_compare(PRESETS[preset], leaky=False)
    assert moved > 0
    assert differed == 0, f"{preset}: the messages changed at {differed} of {moved} points when unseen cards moved"
    assert thrown > 0 or PRESETS[preset].auction == "none"  # the record's hidden hands were on the path


@pytest.mark.parametrize("preset", ["classic", "syrian41"])
def test_the_engine_leak_test_fails_when_the_record_is_passed_on_whole(preset):
    moved, differed, thrown = _engine_compare(PRESETS[preset], leaky=True)
    assert thrown > 0 and differed >= thrown  # each thrown-in deal's end, at each seat, at least
