"""Every shipped network plays from what its seat can see: the hidden-card leak test, at real decision points.

Each ``checkpoints/*.pt`` (found by glob, so a file added or removed there is covered or dropped with it) plays
deals under its own rules against ``rule``. At each of its decisions in a learned phase (bidding, trump, play),
the cards the acting seat cannot see are moved between the other three hands, keeping each hand's size, every
void the play has shown and the exposed card where it lies; the deal is replayed to that point and the network's
action probabilities must be exactly equal (same process, same batch shape). The probabilities come from
``model.policy_logits``, the path a table uses, so the trump relabelling (``canonical_trump``) and the
``contract7`` view are inside what is tested. A positive control writes one hidden card into the observation;
the same comparison must then find differences, so the test is shown to be able to fail.
"""
from __future__ import annotations

import glob
import os

import numpy as np
import pytest
import torch

import agents
from agents.checkpoint import checkpoint_rules, load_checkpoint
from tarneeb_env import raw_env
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
