"""tarneeb-advise: a real game typed in move by move, the advice on your turn, one-line errors, no traceback."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import agents
from agents.explain import label, observation_of
from playing.advisor.terminal import SEATS, Advisor
from tarneeb_env import TarneebGame, make_rules
from tarneeb_env.view import make_view

ROOT = Path(__file__).resolve().parents[1]
HAND = "AS KS QS JS 10S 9S 8S AH KH QH 2C 3C 4D"


def test_a_whole_deal_typed_in_ends_as_the_real_deal_did():
    """The others' moves are typed from a real game; you press Enter (take the advice: the network's move, with
    samples=0), which the real game then plays for you. The advisor's account of the deal is the game's."""
    rules = make_rules("classic")
    net = agents.load("ppo", rules=rules)
    game = TarneebGame(rules, np.random.default_rng(11))
    game.new_game(3)
    game.start_deal()
    hand = " ".join(label(c) for c in make_view(game, 0).hand)
    answers = iter(["left", hand])
    out, prompts = [], []

    def read(prompt: str):
        prompts.append(prompt)
        if prompt.startswith(("Who dealt", "Your 13")):
            return next(answers, None)
        if game.phase == 3:
            return None  # the next deal's questions: stop
        view = make_view(game, game.current)
        assert prompt.startswith("You" if game.current == 0 else SEATS[game.current].capitalize()), prompt
        action = net.act(observation_of(view), view)
        result = game.apply(action)
        read.result = result or getattr(read, "result", None)
        return "" if view.seat == 0 else label(action).removeprefix("bid ").removeprefix("trump ")

    assert Advisor(rules, 0, 0, read, out.append).run() == 0
    result = read.result
    assert result is not None
    if result.thrown_in:
        assert "the deal is thrown in: deal again" in out
    else:
        won = result.record.tricks_won
        assert f"deal over: your side took {won[0]} tricks, theirs {won[1]}; points " \
               f"{result.score_delta[0]:+d} / {result.score_delta[1]:+d}" in out
    advice = [line for line in out if line.startswith("advice: ")]
    assert len(advice) >= 13  # a piece of advice on each of your turns, the cards at least
    assert not any(line.startswith("error") for line in out)


def scripted(lines: list[str], samples: int = 0):
    answers = iter(lines)
    out = []

    def read(prompt: str):
        out.append(prompt)
        return next(answers, None)

    code = Advisor(make_rules("classic"), samples, 0, read, out.append).run()
    return code, out


def test_bad_input_gets_one_line_and_the_prompt_again():
    code, out = scripted(["north", "left", "AS KS", "AS AS " + HAND[6:], "AS KS QS JS 10S 9S 8S AH KH QH 2C 3C ZZ",
                          HAND, "14", "", "6", "pass", "pass", "pass", "N", "S", "", "AS", "2C", "KS", "undo", "undo",
                          "undo", "undo", "2S", "quit"])
    assert code == 0
    assert [line for line in out if line.startswith("error: ")] == [
        "error: 'north' is not a player: type you, right, partner or left",
        "error: that is 2 cards: type all 13 of your cards, e.g. AS KS 10H 2C ...",
        "error: AS is twice in your hand: each card is dealt once",
        "error: 'ZZ' is not a card: type cards as QH, 10S, TS or Q♥, separated by spaces",
        "error: the call: 14 is not a call (write \"pass\" or a bid 1-13)",
        "error: auction[1]: seat 1 cannot call 6 now; the legal calls are pass, 8, 9, 10, 11, 12, 13",
        "error: 'N' is not a suit: name trump as S, H, D or C",
        "error: AS is in your hand and in the tricks: each card is dealt once",  # Right cannot play your cards
        "error: 2C is in your hand and in the tricks: each card is dealt once",
        "error: KS is in your hand and in the tricks: each card is dealt once",
        "error: the call: '2s' is not a call (write \"pass\" or a bid 1-13)",  # four undos: back to Partner's call
    ]
    assert out.count("took back the last move") == 4
    assert "You bid (a number or pass) [Enter: bid 7]: " in out and "You name trump [Enter: trump S]: " in out
    assert "known: trumps out 6 · tricks needed 7" in out
    assert out[-1] == "Partner bids (a number or pass): "


def test_the_command_reads_stdin_and_never_shows_a_traceback():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    text = f"left\n{HAND}\n7\npass\npass\npass\nS\n\n\xff\xfe\nhelp\n"  # then the end of the input
    run = subprocess.run([sys.executable, "-m", "playing.advisor.terminal", "--samples", "4"], input=text.encode(),
                         capture_output=True, cwd=ROOT, env=env, timeout=300)
    assert run.returncode == 0, run.stderr.decode()
    assert b"Traceback" not in run.stderr
    stdout = run.stdout.decode()
    assert "advice: trump " in stdout and "search over 4 layouts" in stdout
    assert "Right plays: " in stdout and "error: " in stdout  # the undecodable line is refused in one line
    bad = subprocess.run([sys.executable, "-m", "playing.advisor.terminal", "--samples", "999"], capture_output=True,
                         cwd=ROOT, env=env, timeout=300)
    assert bad.returncode == 2 and b"--samples: must be 0..256" in bad.stderr and b"Traceback" not in bad.stderr


TOKENS = ["left", "right", "you", "partner", HAND, "7", "8", "13", "pass", "S", "H", "", "undo", "hand", "help",
          "AS", "2S", "2D", "5H", "KC", "10S", "QH", "bid 9", "trump D", "AS KS", "-1", "1e9", "♠", "q of spades"]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(TOKENS), st.text(max_size=12)), max_size=40))
def test_any_typing_gets_answers_not_a_traceback(lines):
    code, out = scripted(["left", HAND, "7", "pass", "pass", "pass"] + lines)  # ends with the end of the input
    assert code == 0
    assert all(isinstance(line, str) for line in out)


def test_individual_bidding_with_the_turned_up_card():
    answers = iter(["you", "AS KS QS JS 10S 9S 8S AH KH QH 2C 3C 4D", "8D", "undo", "AS KS QS JS 10S 9S 8S AH KH QH "
                    "2C 3C 8D", "undo", "undo", "undo", "you", HAND, "4D", "3", "2", "pass", "3", "", "quit"])
    out = []

    def read(prompt: str):
        out.append(prompt)
        return next(answers, None)

    assert Advisor(make_rules("syrian41"), 0, 0, read, out.append).run() == 0
    assert [line for line in out if line.startswith("error: ")] == [
        "error: exposed_card 8D is your card (you dealt): it is in your hand until you play it",
        "error: nothing to take back yet",
        "error: auction[2]: seat 3 cannot call pass now; the legal calls are 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13",
    ]
    assert "Left bids (2-13): " in out and "You bid (2-13) [Enter: bid 2]: " in out
    assert "the deal is thrown in: deal again" in out  # 3 + 2 + 3 + 2 bid: under the 11 the rules ask for
    assert out[-1] == "Your 13 cards: "  # the next deal: right dealt
