"""Privileged critic: the batch engine's hidden-hand features, and a policy that never reads them."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

import agents
from agents.model import ActorCritic
from tarneeb_env import raw_env
from tarneeb_env.batch import BatchEnv, random_legal_actions
from tarneeb_env.cards import cards_of, mask_of
from tarneeb_env.privileged import PRIV_SIZE, hidden_hands

SHIPPED = "checkpoints/default.pt"


def test_hidden_hands_are_the_other_seats_in_turn_order_from_the_observer():
    hands = np.array([[mask_of([0]), mask_of([1, 2]), mask_of([51]), mask_of([13])]], dtype=np.int64)
    f = hidden_hands(hands, np.array([1]))  # observer seat 1: rows are seats 2, 3, 0
    assert f.shape == (1, PRIV_SIZE) and f.dtype == np.float32
    rows = f.reshape(3, 52)
    assert [np.flatnonzero(r).tolist() for r in rows] == [[51], [13], [0]]


def test_batch_engine_supplies_the_cards_each_acting_seat_cannot_see():
    be = BatchEnv(num_games=8, rules="classic", seed=3)
    obs, mask, seat = be.reset()
    rng = np.random.default_rng(0)
    for _ in range(30):
        f = be.privileged().reshape(8, 3, 52)
        for i in range(8):
            s = int(seat[i])
            for k in range(3):
                held = be.view(i, (s + 1 + k) % 4).hand
                assert np.flatnonzero(f[i, k]).tolist() == sorted(held)
        obs, mask, seat, *_ = be.step(random_legal_actions(mask, rng))


def test_privileged_critic_reads_hidden_hands_and_the_policy_does_not():
    torch.manual_seed(0)
    net = ActorCritic([32, 32], critic="privileged")
    obs = torch.rand(5, net.obs_size)
    mask = torch.ones(5, net.num_actions, dtype=torch.bool)
    p1, p2 = torch.rand(5, PRIV_SIZE).round(), torch.rand(5, PRIV_SIZE).round()
    l1, v1 = net(obs, mask, p1)
    l2, v2 = net(obs, mask, p2)
    assert torch.equal(l1, l2) and torch.equal(l1, net.policy_logits(obs, mask))
    assert not torch.allclose(v1, v2)
    with pytest.raises(ValueError, match="privileged critic needs the hidden hands"):
        net(obs, mask)
    assert net.arch()["critic"] == "privileged"
    with pytest.raises(ValueError, match="critic: expected one of shared, privileged"):
        ActorCritic([8], critic="oracle")


def test_shared_critic_keys_are_unchanged_so_old_checkpoints_load():
    assert set(ActorCritic([8]).state_dict()) == {"trunk.0.weight", "trunk.0.bias", "policy.weight", "policy.bias",
                                                  "value.weight", "value.bias"}


def _replay(deal, dealer, exposed, actions):
    e = raw_env(rules="classic")
    e.reset(seed=0, options={"deal": deal, "dealer": dealer, "exposed_card": exposed})
    for a in actions:
        e.step(a)
    return e


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), steps=st.integers(0, 50), data=st.data())
def test_shipped_policy_does_not_change_when_unseen_cards_move(seed, steps, data):
    """The env's leak test applied to the network: move the unplayed cards between the other three hands;
    the acting seat's action probabilities must stay exactly the same."""
    agent = agents.load(SHIPPED)
    rng = np.random.default_rng(seed)
    e = raw_env(rules="classic")
    e.reset(seed=seed, options={"dealer": int(rng.integers(4))})
    dealer, exposed = e.game.dealer, e.game.exposed_card
    deal = [list(cards_of(h)) for h in e.game.deal]
    actions = []
    for _ in range(steps):
        legal = e.game.legal_actions()
        if not legal or e.game.deals > 1:
            break
        actions.append(int(rng.choice(legal)))
        e.step(actions[-1])
        if e.game.deals > 1 or any(e.terminations.values()):
            actions.pop()
            break
    e = _replay(deal, dealer, exposed, actions)
    observer = e.game.current
    played = {c for _, c in e.game.played}
    others = [s for s in range(4) if s != observer]
    hidden = [c for s in others for c in deal[s] if c not in played]
    perm = iter(data.draw(st.permutations(hidden)))
    moved = [list(h) if s == observer else [c if c in played else next(perm) for c in deal[s]]
             for s, h in enumerate(deal)]
    try:
        e2 = _replay(moved, dealer, exposed, actions)
    except ValueError:
        return  # the moved cards contradict a void the play has shown
    probs = []
    for env in (e, e2):
        o = env.observe(f"player_{observer}")
        with torch.no_grad():
            logits = agent.model.policy_logits(torch.from_numpy(o["observation"][None]),
                                               torch.from_numpy(o["action_mask"][None]))
        probs.append(torch.softmax(logits, -1))
    assert torch.equal(probs[0], probs[1])
