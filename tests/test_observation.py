"""The observation's ``voids`` block, and layout-1 checkpoints (before it) on today's layout."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from agents.checkpoint import load_checkpoint, model_from_checkpoint
from agents.model import ActorCritic
from tarneeb_env import OBS_SIZE, PASS, bid_action, raw_env, trump_action
from tarneeb_env.observation import OFFSETS
from tarneeb_env.privileged import hidden_hands

ROOT = Path(__file__).resolve().parent.parent
VOIDS = OFFSETS["voids"]
CLUBS, SPADES = 0, 3


def voids_seen(env, observer: int) -> np.ndarray:
    """(4, 4): [relative seat, suit] of ``observer``'s voids block."""
    obs = env.observe(f"player_{observer}")["observation"]
    return obs[VOIDS : VOIDS + 16].reshape(4, 4)


def test_a_seat_that_fails_to_follow_is_marked_void_in_the_suit_led_for_every_observer():
    deal = [list(range(13 * s, 13 * s + 13)) for s in range(4)]  # seat s holds all of suit s
    e = raw_env(rules="classic")
    e.reset(seed=0, options={"deal": deal, "dealer": 3})
    for a in (bid_action(7), PASS, PASS, PASS, trump_action(SPADES)):
        e.step(a)
    assert e.agent_selection == "player_0"
    e.step(CLUBS * 13 + 5)  # seat 0 leads a club
    assert all(not voids_seen(e, o).any() for o in range(4))  # leading shows nothing
    e.step(13)  # seat 1 has no club: it plays a diamond
    for o in range(4):
        expected = np.zeros((4, 4), np.float32)
        expected[(1 - o) % 4, CLUBS] = 1.0
        np.testing.assert_array_equal(voids_seen(e, o), expected, err_msg=f"observer {o}")
    e.step(26)
    e.step(39)  # seats 2 and 3 show out too; the block outlives the trick
    for o in range(4):
        expected = np.zeros((4, 4), np.float32)
        expected[[(s - o) % 4 for s in (1, 2, 3)], CLUBS] = 1.0
        np.testing.assert_array_equal(voids_seen(e, o), expected, err_msg=f"observer {o}")
    assert e.game.voids == [0, 1, 1, 1]


# the shipped files still on layout 1 (retrained ones are written on today's layout)
LAYOUT_1 = [p.stem for p in sorted((ROOT / "checkpoints").glob("*.pt"))
            if torch.load(p, map_location="cpu", weights_only=True)["obs_version"] == 1]


def test_the_baseline_is_still_a_layout_1_file():
    assert "default" in LAYOUT_1


@pytest.mark.parametrize("name", LAYOUT_1)
def test_a_layout_1_checkpoint_plays_exactly_as_before_on_the_new_layout(name):
    """The older shipped files were written on layout 1 (678 inputs, no voids block): loaded, their first layers get
    zero weights for the block, so the block changes nothing, and their choices and values on a layout-2
    observation are the old network's on the same observation without it (exactly: the sparse input layer adds
    a zero for each void bit). syrian41.pt reads the trump as hearts, with swap tables of today's layout only."""
    path = ROOT / "checkpoints" / f"{name}.pt"
    raw = torch.load(path, map_location="cpu", weights_only=True)
    assert raw["obs_version"] == 1 and raw["model"]["obs_size"] == VOIDS == 678
    old = None
    if not raw["model"].get("canonical_trump"):  # (the suit swap tables are today's layout's)
        old = ActorCritic.from_arch(raw["model"])
        old.load_state_dict(raw["state_dict"])
    new = model_from_checkpoint(load_checkpoint(str(path)))
    assert new.obs_size == OBS_SIZE
    e = raw_env(rules="classic" if name == "default" else name)
    e.reset(seed=4)
    voids = 0
    with torch.no_grad():
        while not all(e.terminations.values()):
            o = e.observe(e.agent_selection)
            x = torch.from_numpy(o["observation"])[None]
            m = torch.from_numpy(o["action_mask"].astype(bool))[None]
            voids += int(x[0, VOIDS:].sum())
            blind = x.clone()
            blind[:, VOIDS:] = 0.0
            assert torch.equal(new.policy_logits(x, m), new.policy_logits(blind, m))
            if old is not None:
                assert torch.equal(new.policy_logits(x, m), old.policy_logits(x[:, :VOIDS], m))
            if new.privileged:
                priv = torch.from_numpy(hidden_hands([e.game.hands], [e.game.current]))
                assert torch.equal(new(x, m, priv)[1], old(x[:, :VOIDS], m, priv)[1])
            e.step(int(new.policy_logits(x, m).argmax()))
    assert voids > 0  # the game showed voids, and the upgraded network ignored them
