"""``model.canonical_trump``: the network reads a deal as if its trump were hearts.

Checked against the engine, not against the swap tables themselves: the same deal
dealt twice, once as it is and once with the trump suit and hearts swapped in
every hand, must give the network the same inputs and the same choices (mapped
through the swap), at every decision of a played hand.
"""
from __future__ import annotations

import numpy as np
import pytest
import torch

import agents
from agents.checkpoint import load_checkpoint, model_from_checkpoint
from agents.model import ActorCritic
from tarneeb_env.rules_core import HEARTS
from tarneeb_env import TRUMP_BASE, raw_env
from tarneeb_env.privileged import hidden_hands


def swap_card(card: int, t: int) -> int:
    suit, rank = divmod(card, 13)
    return (HEARTS if suit == t else t if suit == HEARTS else suit) * 13 + rank


def swap_action(a: int, t: int) -> int:
    if a < 52:
        return swap_card(a, t)
    if a >= TRUMP_BASE:
        u = a - TRUMP_BASE
        return TRUMP_BASE + (HEARTS if u == t else t if u == HEARTS else u)
    return a


def twin_tables(seed: int, rules: str):
    """Two envs on one deal: as dealt (trump suit t from the exposed card), and with suits t and hearts swapped."""
    rng = np.random.default_rng(seed)
    cards = rng.permutation(52)
    deal = [sorted(int(c) for c in cards[13 * s : 13 * s + 13]) for s in range(4)]
    dealer = int(rng.integers(4))
    exposed = deal[dealer][int(rng.integers(13))]
    t = exposed // 13
    a, b = raw_env(rules=rules), raw_env(rules=rules)
    a.reset(seed=seed, options={"deal": deal, "dealer": dealer, "exposed_card": exposed})
    b.reset(seed=seed, options={"deal": [sorted(swap_card(c, t) for c in h) for h in deal], "dealer": dealer,
                                "exposed_card": swap_card(exposed, t)})
    return a, b, t


@pytest.mark.parametrize("critic", ["shared", "privileged"])
def test_a_deal_and_its_suit_swapped_twin_look_the_same_to_the_network(critic):
    torch.manual_seed(0)  # here, not at import: other tests' draws stay their own
    plain = ActorCritic([32], critic=critic)
    canon = ActorCritic([32], critic=critic, canonical_trump=True)
    canon.load_state_dict(plain.state_dict())  # same weights; the relabelling has no parameters
    swapped_suits = played = 0
    for seed in range(8):
        a, b, t = twin_tables(seed, "syrian41")
        swapped_suits += t != HEARTS
        dealer, plays = a.game.dealer, 0
        while plays < 52 and a.game.dealer == dealer:  # the first hand (a throw-in ends it: the next deal is not a twin)
            oa, ob = a.observe(a.agent_selection), b.observe(b.agent_selection)
            xa, xb = (torch.from_numpy(o["observation"])[None] for o in (oa, ob))
            ma, mb = (torch.from_numpy(o["action_mask"].astype(bool))[None] for o in (oa, ob))
            la, lb = canon.policy_logits(xa, ma)[0], canon.policy_logits(xb, mb)[0]
            perm = [swap_action(k, t) for k in range(70)]
            assert torch.equal(la, lb[perm])  # the twin's choice of card swap(c) is this table's choice of c
            assert torch.equal(lb, plain.policy_logits(xb, mb)[0])  # hearts trump: nothing is relabelled
            if critic == "privileged":
                pa, pb = (torch.from_numpy(hidden_hands([e.game.hands], [e.game.current])) for e in (a, b))
                assert torch.equal(canon(xa, ma, pa)[1], canon(xb, mb, pb)[1])  # the critic sees the twin too
            action = int(torch.argmax(la))
            a.step(action)
            b.step(swap_action(action, t))
            plays += action < 52
        assert a.game.scores == b.game.scores and a.game.seat_scores == b.game.seat_scores
        played += plays
    assert swapped_suits >= 3 and played >= 3 * 52  # the test saw trumps other than hearts, and card play


def test_it_is_stored_in_the_checkpoint_and_starts_from_a_plain_network(tmp_path):
    from training import Trainer
    from training.config import load_config

    sets = ["rules=syrian41", "pretrain.decisions=0", "model.hidden=[256, 256]", "rollout.backend=local",
            "model.canonical_trump=true", "pretrain.init=checkpoints/default.pt?rules=any", "budget.iterations=1",
            "eval.interval=100", "checkpoint.interval=100"]
    with pytest.warns(agents.RulesOverrideWarning):
        trainer = Trainer(load_config("configs/smoke.yaml", sets), str(tmp_path / "run"), progress=False)
        trainer.run()
    data = load_checkpoint(str(tmp_path / "run" / "latest.pt"))
    assert data["model"]["canonical_trump"] is True
    assert model_from_checkpoint(data).canonical_trump
    assert not model_from_checkpoint(load_checkpoint("checkpoints/default.pt")).canonical_trump  # older files


def test_the_compiled_column_permutation_is_the_gather():
    from agents.model import permute_columns
    from tarneeb_env.transforms import suit_swaps

    table = torch.from_numpy(suit_swaps()[0])
    x = torch.randn(37, table.shape[1])
    t = torch.randint(0, 5, (37,))
    assert torch.equal(permute_columns(x, t, table), x.gather(1, table[t]))
    assert torch.equal(permute_columns(x.t().contiguous().t(), t, table), x.gather(1, table[t]))  # strided rows
    assert permute_columns(x[:0], t[:0], table).shape == (0, table.shape[1])
