"""What ``raw_env.step`` accepts as an action, and how ``tarneeb_v0`` reaches PettingZoo's registry."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import tarneeb_env
from tarneeb_env import PASS, IllegalActionError


def fresh_env():
    e = tarneeb_env.raw_env()
    e.reset(seed=0, options={"dealer": 3})
    return e


@pytest.mark.parametrize("action,named", [("7", "str '7'"), ("52", "str '52'"), (52.0, "float 52.0"),
                                          (None, "NoneType None"), ([52], "list [52]")])
def test_a_non_int_action_is_named_as_such(action, named):
    e = fresh_env()
    with pytest.raises(IllegalActionError) as info:
        e.step(action)
    assert str(info.value) == f"player_0: action must be an int, got {named}; legal actions: {e.game.legal_actions()}"
    assert e.agent_selection == "player_0" and e.game.auction == []  # state unchanged


@pytest.mark.parametrize("action", [PASS, np.int64(PASS), np.int8(PASS), np.array(PASS)])
def test_python_and_numpy_ints_are_accepted(action):
    e = fresh_env()
    e.step(action)
    assert e.game.auction == [(0, PASS)] and e.agent_selection == "player_1"


def test_an_illegal_int_still_names_the_card_and_the_legal_actions():
    e = fresh_env()
    with pytest.raises(IllegalActionError, match=r"illegal action 7 \(9♣\) for player_0 in phase bidding"):
        e.step(7)


def test_registration_needs_the_import():
    pettingzoo = pytest.importorskip("pettingzoo")
    if not hasattr(pettingzoo, "make"):
        pytest.skip("this PettingZoo has no registry (PettingZoo < 1.27)")
    code = ("import pettingzoo\n"
            "try:\n    pettingzoo.make('aec', 'tarneeb_v0')\nexcept Exception as e:\n    print('before:', type(e).__name__)\n"
            "import tarneeb_env\n"
            "print('after:', type(pettingzoo.make('aec', 'tarneeb_v0').unwrapped).__name__)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True).stdout
    assert out.splitlines() == ["before: NameNotFound", "after: raw_env"]
