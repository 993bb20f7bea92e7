"""``model.view: contract7``: a deal without an auction reads as a 7 bid by the eldest hand.

Checked against the engine: the same deal played under ``trump_by_card`` and under ``classic`` with the eldest
bidding 7, the others passing and the trump named as the exposed card's suit must give the network the same
inputs at every card of the hand (but for the exposed card, which the team auction does not show).
"""
from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.model import ActorCritic
from tarneeb_env.transforms import as_contract7
from tarneeb_env import BID_BASE, PASS, TRUMP_BASE, raw_env
from tarneeb_env.observation import OFFSETS
from training.config import ConfigError, config_from_dict

EXPOSED = OFFSETS["exposed"]


def twin_tables(seed: int):
    rng = np.random.default_rng(seed)
    cards = rng.permutation(52)
    deal = [sorted(int(c) for c in cards[13 * s : 13 * s + 13]) for s in range(4)]
    dealer = int(rng.integers(4))
    exposed = deal[dealer][int(rng.integers(13))]
    tbc, classic = raw_env(rules="trump_by_card"), raw_env(rules="classic")
    tbc.reset(seed=seed, options={"deal": deal, "dealer": dealer, "exposed_card": exposed})
    classic.reset(seed=seed, options={"deal": deal, "dealer": dealer})
    classic.step(BID_BASE + 7)  # the eldest opens 7
    for _ in range(3):
        classic.step(PASS)
    classic.step(TRUMP_BASE + exposed // 13)
    return tbc, classic, rng


@pytest.mark.parametrize("seed", range(6))
def test_a_no_auction_deal_reads_as_the_eldest_hands_7_contract(seed):
    tbc, classic, rng = twin_tables(seed)
    assert tbc.agent_selection == classic.agent_selection  # the eldest leads in both
    for _ in range(52):
        view = as_contract7(tbc.observe(tbc.agent_selection)["observation"][None])[0]
        theirs = classic.observe(classic.agent_selection)["observation"]
        assert view[EXPOSED : EXPOSED + 52].sum() == 1 and theirs[EXPOSED : EXPOSED + 52].sum() == 0
        view[EXPOSED : EXPOSED + 52] = 0
        assert np.array_equal(view, theirs)
        legal = np.flatnonzero(tbc.observe(tbc.agent_selection)["action_mask"])
        card = int(rng.choice(legal))
        tbc.step(card)
        classic.step(card)
    assert tbc.game.tricks_won == classic.game.tricks_won  # the same hand was played to its end


def test_the_view_is_part_of_the_network_and_needs_a_no_auction_rule_set():
    torch.manual_seed(0)
    plain, viewed = ActorCritic([16]), ActorCritic([16], view="contract7")
    viewed.load_state_dict(plain.state_dict())  # no parameters of its own
    assert ActorCritic.from_arch(viewed.arch()).view == "contract7"
    env = raw_env(rules="trump_by_card")
    env.reset(seed=3)
    o = env.observe(env.agent_selection)
    x, m = torch.from_numpy(o["observation"])[None], torch.from_numpy(o["action_mask"].astype(bool))[None]
    assert torch.equal(viewed.policy_logits(x, m), plain.policy_logits(torch.from_numpy(as_contract7(x.numpy())), m))
    assert not torch.equal(viewed.policy_logits(x, m), plain.policy_logits(x, m))
    with pytest.raises(ValueError, match="view"):
        ActorCritic([16], view="bridge")
    with pytest.raises(ConfigError, match="model.view: contract7 .* auction: none"):
        config_from_dict({"rules": "classic", "model": {"view": "contract7"}, "budget": {"iterations": 1}})
    config_from_dict({"rules": "trump_by_card", "model": {"view": "contract7"}, "budget": {"iterations": 1}})
