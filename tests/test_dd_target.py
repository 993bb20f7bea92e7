"""``pretrain.target: dd``: card play learned from each card's double-dummy trick loss on the actual deal."""
from __future__ import annotations

import functools

import numpy as np
import torch

from agents.model import ActorCritic, phase_flags
from tarneeb_env import make_rules
from tarneeb_env import batch_kernels as bk
from tarneeb_env import rules_core as rc
from tarneeb_env.batch import BatchEnv, random_legal_actions
from training.imitation import TeacherRollout, bc_loss, bc_update, dd_regret

from test_train import _train


@functools.lru_cache(maxsize=None)
def brute_force(hands: tuple[int, ...], trump: int, leader: int, trick: tuple[int, ...]) -> int:
    """Tricks from the current one on won by the side to play, both sides playing perfectly (plain minimax)."""
    seat = (leader + len(trick)) % 4
    hand = hands[seat]
    if not hand:
        return 0
    led = hand & (0x1FFF << 13 * (trick[0] // 13)) if trick else 0
    options = led or hand
    remaining = (sum(bin(h).count("1") for h in hands) + len(trick)) // 4
    return max(card_value(hands, trump, leader, trick, seat, c, remaining)
               for c in range(52) if options >> c & 1)


def card_value(hands, trump, leader, trick, seat, card, remaining) -> int:
    after = tuple(h & ~(1 << card) if s == seat else h for s, h in enumerate(hands))
    cards = trick + (card,)
    if len(cards) < 4:  # the next seat is on the other side
        return remaining - brute_force(after, trump, leader, cards)
    winner = rc.trick_winner(leader, *cards, trump)
    rest = brute_force(after, trump, winner, ())  # for the winner's side
    return 1 + rest if winner % 2 == seat % 2 else remaining - 1 - rest


def test_dd_regret_is_each_cards_trick_loss_from_a_brute_force_solver():
    env = BatchEnv(num_games=6, rules=make_rules("trump_by_card"))
    obs, mask, seat = env.reset(seed=5)
    rng = np.random.default_rng(0)
    checked = 0
    for step in range(47):  # no auction: every step plays a card; check the last two tricks' first four plays
        if step >= 43:
            regret = dd_regret(env, np.arange(6))
            st, plays, _ = env.kernel_state()
            for i in range(6):
                n = int(st[i, bk.NPLAYED])
                trick = tuple(int(c) for c in plays[i, n - n % 4 : n, 1])
                leader = int(plays[i, n - n % 4, 0]) if trick else int(st[i, bk.CURRENT])
                hands = tuple(int(h) for h in st[i, bk.HAND0 : bk.HAND0 + 4])
                remaining = (sum(bin(h).count("1") for h in hands) + len(trick)) // 4
                trump, to_play = int(st[i, bk.TRUMP_SUIT]), int(st[i, bk.CURRENT])
                legal = np.flatnonzero(mask[i])
                values = {c: card_value(hands, trump, leader, trick, to_play, int(c), remaining) for c in legal}
                best = max(values.values())
                expected = np.zeros(70, np.float32)
                for c, v in values.items():
                    expected[c] = best - v
                np.testing.assert_array_equal(regret[i], expected, err_msg=f"game {i}, step {step}")
                checked += len(legal) > 1 and expected.max() > 0
        obs, mask, seat, *_ = env.step(random_legal_actions(mask, rng))
    assert checked >= 3  # some positions had a card that loses a trick


def test_the_dd_target_teaches_the_cards_without_loss():
    rules = make_rules("trump_by_card")
    data = TeacherRollout("rule", rules, 8, 104, 0.1, 1.0, phase_flags(["play"]), target="dd").collect(3)
    choice = data.mask.sum(-1) > 1
    assert data.regret.shape == (len(data), 70) and (data.regret[~data.mask.astype(bool)] == 0).all()
    assert (data.regret[choice].min(-1) == 0).all() and data.regret[choice].max() >= 1
    torch.manual_seed(0)
    model = ActorCritic([32])
    batch = data.to(torch.device("cpu"))
    before = float(bc_loss(model, batch, 0.0)[1]["policy_loss"])
    bc_update(model, torch.optim.Adam(model.parameters(), lr=3e-3), batch, epochs=30, minibatch_size=256,
              vf_coef=0.0, max_grad_norm=0.5, generator=torch.Generator().manual_seed(0))
    stats = bc_loss(model, batch, 0.0)[1]
    assert float(stats["policy_loss"]) < 0.5 * before  # the expected trick loss under the policy falls
    assert float(stats["accuracy"]) > 0.9  # most greedy choices lose nothing double dummy


def test_a_run_with_the_dd_target_trains_and_writes_its_checkpoint(tmp_path):
    run_dir = _train(tmp_path, "dd", ["rules=trump_by_card", "pretrain.target=dd", "env.num_games=4",
                                      "model.hidden=[16]", "pretrain.decisions=208", "pretrain.steps=64",
                                      "budget.iterations=1", "eval.interval=0", "rollout.backend=local"])
    from agents.checkpoint import load_checkpoint

    data = load_checkpoint(f"{run_dir}/latest.pt")
    assert data["config"]["pretrain"]["target"] == "dd" and data["counters"]["pretrain_chunks"] == 1
