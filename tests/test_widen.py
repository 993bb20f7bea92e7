"""Net2WiderNet: a wider network started from a trained one computes what it did (training/widen.py)."""
from __future__ import annotations

import pytest
import torch

from agents.checkpoint import load_checkpoint
from agents.model import ActorCritic
from tarneeb_env import NUM_ACTIONS, OBS_SIZE
from tarneeb_env.privileged import PRIV_SIZE
from training.widen import can_widen, widen_state


def _inputs(n: int = 64, seed: int = 0):
    g = torch.Generator().manual_seed(seed)
    obs = (torch.rand(n, OBS_SIZE, generator=g) < 0.1).float()
    mask = torch.rand(n, NUM_ACTIONS, generator=g) < 0.5
    mask[:, 0] = True
    priv = (torch.rand(n, PRIV_SIZE, generator=g) < 0.3).float()
    return obs, mask, priv


def _privileged() -> ActorCritic:
    """A network of the shipped size with the privileged critic (no shipped file has one)."""
    torch.manual_seed(0)
    return ActorCritic([256, 256], critic="privileged").eval()


def _widened(old: ActorCritic, hidden, noise: float) -> ActorCritic:
    wide = ActorCritic(hidden, critic=old.critic, canonical_trump=old.canonical_trump)
    state = widen_state(old.state_dict(), old.hidden, hidden, torch.Generator().manual_seed(1), noise=noise)
    wide.load_state_dict(state)
    return wide.eval()


@torch.no_grad()
def test_a_privileged_network_widened_without_noise_plays_and_values_as_before():
    old = _privileged()
    wide = _widened(old, [384, 320], noise=0.0)
    assert old.critic == "privileged"
    obs, mask, priv = _inputs()
    (la, va), (lb, vb) = old(obs, mask, priv), wide(obs, mask, priv)
    assert torch.allclose(la, lb, atol=1e-4) and torch.allclose(va, vb, atol=1e-4)
    assert torch.equal(la.argmax(-1), lb.argmax(-1))


@torch.no_grad()
def test_a_shared_critic_reads_the_widened_trunk():
    torch.manual_seed(0)
    old = ActorCritic([32, 24], critic="shared", canonical_trump=True).eval()
    wide = _widened(old, [48, 40], noise=0.0)
    obs, mask, _ = _inputs()
    (la, va), (lb, vb) = old(obs, mask), wide(obs, mask)
    assert torch.allclose(la, lb, atol=1e-5) and torch.allclose(va, vb, atol=1e-5)


@torch.no_grad()
def test_the_noise_separates_the_copies_and_moves_the_function_only_a_little():
    old = _privileged()
    wide = _widened(old, [320, 256], noise=0.01)
    first = wide.trunk[0].weight
    assert torch.equal(first[:256], old.trunk[0].weight)  # the old units are kept as they were
    distinct = {tuple(r.tolist()) for r in first}
    assert len(distinct) == 320  # no two units alike: they can diverge under training
    obs, mask, _ = _inputs()
    pa, pb = torch.softmax(old.policy_logits(obs, mask), -1), torch.softmax(wide.policy_logits(obs, mask), -1)
    assert 0 < (pa - pb).abs().max() < 0.05


def test_only_a_same_depth_wider_network_is_widened():
    assert can_widen([256, 256], [512, 256]) and can_widen([256], [300])
    assert not can_widen([256, 256], [256, 256])  # nothing to do
    assert not can_widen([256, 256], [512])  # another depth
    assert not can_widen([256, 256], [512, 128])  # a narrower layer


def test_a_run_with_wider_hidden_layers_starts_from_the_widened_checkpoint(tmp_path):
    from training import Trainer
    from training.config import ConfigError, load_config

    shipped = load_checkpoint("checkpoints/default.pt")["state_dict"]
    sets = ["pretrain.init=checkpoints/default.pt", "pretrain.decisions=0", "model.hidden=[320, 288]",
            "rollout.backend=local"]
    trainer = Trainer(load_config("configs/smoke.yaml", sets), str(tmp_path / "r"), progress=False)
    mine = trainer.model.state_dict()
    assert mine["trunk.0.weight"].shape[0] == 320 and torch.equal(mine["trunk.0.weight"][:256],
                                                                  shipped["trunk.0.weight"])
    assert torch.equal(mine["policy.bias"], shipped["policy.bias"])
    with pytest.raises(ConfigError, match="or wider with as many layers"):
        Trainer(load_config("configs/smoke.yaml", sets[:-2] + ["model.hidden=[512]", "rollout.backend=local"]),
                str(tmp_path / "s"), progress=False)
