"""PettingZoo's own conformance tests, for every preset and both episode kinds."""
import pytest
from pettingzoo.test import api_test, render_test, seed_test

import pettingzoo
import tarneeb_env

CASES = [("classic", "hand"), ("classic", "game"), ("syrian41", "game"), ("hearts41", "hand"), ("trump_by_card", "game")]


# api_test's own notes, each expected here: the observation is PettingZoo classic's Dict of "observation" and
# "action_mask" (not a Box, not one array), and api_test resets with a bogus option, which the env names and ignores.
API_TEST_NOTES = [
    "ignore:Observation space for each agent probably should be:UserWarning",
    "ignore:Observation is not a NumPy array:UserWarning",
    "ignore:reset options. ignoring unknown key.s. .'options'.:UserWarning",
]


@pytest.mark.parametrize("rules,episode", CASES)
@pytest.mark.filterwarnings(*API_TEST_NOTES)
def test_api(rules, episode):
    api_test(tarneeb_env.env(rules=rules, episode=episode), num_cycles=300)
    api_test(tarneeb_env.raw_env(rules=rules, episode=episode), num_cycles=300)


@pytest.mark.parametrize("rules,episode", CASES)
def test_seed(rules, episode):
    seed_test(lambda: tarneeb_env.env(rules=rules, episode=episode), num_cycles=300)


def test_render():
    render_test(lambda render_mode=None: tarneeb_env.env(render_mode=render_mode))


def test_ansi_render_shows_the_table():
    e = tarneeb_env.raw_env(render_mode="ansi")
    e.reset(seed=0, options={"dealer": 3})
    e.step(tarneeb_env.bid_action(7))
    text = e.render()
    assert "auction: p0 bid 7" in text and "player_1 to act" in text
    assert any(sym in text for sym in "♠♥♦♣")


@pytest.mark.skipif(not hasattr(pettingzoo, "make"), reason="PettingZoo < 1.27 has no registry")
def test_registered_with_pettingzoo():
    e = pettingzoo.make("aec", "tarneeb_v0", rules="syrian41")
    assert e.unwrapped.rules == tarneeb_env.PRESETS["syrian41"]


def test_wrapped_env_terminates_on_illegal_move():
    e = tarneeb_env.env()
    e.reset(seed=0, options={"dealer": 3})
    e.step(0)  # playing a card during the auction
    assert all(e.terminations.values())
    assert e.rewards["player_0"] == -1
