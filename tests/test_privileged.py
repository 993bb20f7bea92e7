"""Privileged critic: the batch engine's hidden-hand features, and a policy that never reads them (the shipped
networks' hidden-card leak test is tests/test_hidden_card_leak.py)."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.model import ActorCritic
from tarneeb_env.batch import BatchEnv, random_legal_actions
from tarneeb_env.cards import mask_of
from tarneeb_env.privileged import PRIV_SIZE, hidden_hands


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
