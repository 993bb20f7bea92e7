"""``tarneeb-advise``: the strong player at your elbow in a real game. You type your hand and every move as it
happens at the table; on your turn it prints its advice and why (:func:`agents.explain.explain`), after every
move what the table has shown (voids, trumps out, tricks needed).

You are seat 0; the others are named as the table sits: ``right`` plays after you, then ``partner``, then
``left``. Cards are typed short (``QH``, ``10S``, ``TS``, ``Q♥``), bids as numbers or ``pass``, trumps as a
suit (``H``, ``hearts``). Every move is checked by replaying the deal (:mod:`.position`): a move that cannot
happen gets one line saying why, and the prompt again. ``undo`` takes back the last move, ``help`` lists the
commands, ``quit`` (or the end of the input) stops. On your turn an empty line plays the advice.
"""
from __future__ import annotations

import argparse
import sys
from typing import Callable, Optional

from agents.explain import DEFAULT_SAMPLES, MAX_SAMPLES, explain, label, network_for, table_facts
from tarneeb_env import PRESETS, make_rules
from tarneeb_env.cards import BID_BASE, NUM_TRICKS, PASS, SUIT_LETTERS, card_str
from tarneeb_env.rules_core import BIDDING, PLAY, TRUMP
from tarneeb_env.view import make_view

from ..advice import advice_lines
from ..screen import parse_card, parse_suit
from .position import PositionError, build_view, read_call, replay_position

SEATS = ("you", "right", "partner", "left")
HELP = ("Type the move of the player named in the prompt: a card (QH, 10S), a bid (8) or pass, a trump suit (H). "
        "Commands: undo (take back the last move), hand (show your cards), help, quit.")
UNDO = object()  # "undo" typed at a question of the deal's start


class Quit(Exception):
    """The person is done (quit, or the end of the input)."""


class Advisor:
    """One game at a real table, kept as the position the advisor API reads (:mod:`.position`)."""

    def __init__(self, rules, samples: int, seed: int, read: Callable[[str], str], write: Callable[[str], None]):
        self.rules = rules
        self.samples = samples
        self.seed = seed
        self.read = read
        self.write = write
        self.scores = [0, 0]
        self.seat_scores = [0, 0, 0, 0]

    # -------------------------------------------------------------------------------------------- input
    def ask(self, prompt: str, parse: Callable[[str], object]):
        """The first answer to ``prompt`` that ``parse`` accepts; one line of error for each other (never a
        traceback); :class:`Quit` on ``quit`` or the end of the input."""
        while True:
            text = self.read(prompt)
            if text is None:
                raise Quit
            word = " ".join(text.strip().split()).lower()
            if word in ("quit", "exit", "q"):
                raise Quit
            if word == "help":
                self.write(HELP)
                continue
            try:
                return parse(text)
            except (PositionError, ValueError) as e:
                self.write(f"error: {getattr(e, 'message', e)}")

    # --------------------------------------------------------------------------------------------- setup
    def new_deal(self, dealer: Optional[int]) -> dict:
        """Ask who dealt (unless known), your 13 cards and, under ``trump: last_card``, the turned-up card; ``undo``
        goes back one question."""
        position = {"rules": self.rules.name, "seat": 0, "dealer": dealer, "hand": [], "auction": [],
                    "tricks": [], "scores": list(self.scores), "seat_scores": list(self.seat_scores)}

        def hand(text: str) -> list[str]:
            cards = _cards(text)
            if len(cards) != NUM_TRICKS:
                raise ValueError(f"that is {len(cards)} cards: type all 13 of your cards, e.g. AS KS 10H 2C ...")
            twice = sorted({c for c in cards if cards.count(c) > 1})
            if twice:
                raise ValueError(f"{twice[0]} is twice in your hand: each card is dealt once")
            if self.rules.trump != "last_card":
                replay_position({**position, "hand": cards})
            return cards

        def exposed(text: str) -> str:
            card = _one_card(text)
            replay_position({**position, "exposed_card": card})
            return card

        def turned_up() -> str:
            who = "your" if position["dealer"] == 0 else f"{SEATS[position['dealer']]}'s"
            return f"The turned-up card ({who} last card, e.g. 7H; undo: retype your hand): "

        steps = [("dealer", lambda: "Who dealt? (you, right, partner, left): ", _seat),
                 ("hand", lambda: "Your 13 cards: ", hand)]
        if self.rules.trump == "last_card":
            steps.append(("exposed_card", turned_up, exposed))
        first = k = 0 if dealer is None else 1  # the dealer of a next deal is known
        while k < len(steps):
            key, prompt, parse = steps[k]
            value = self.ask(prompt(), lambda text: UNDO if text.strip().lower() == "undo" else parse(text))
            if value is UNDO:
                if k == first:
                    self.write("error: nothing to take back yet")
                else:
                    k -= 1
                continue
            position[key] = value
            k += 1
        return position

    # ------------------------------------------------------------------------------------------ the deal
    def play_deal(self, position: dict) -> Optional[int]:
        """Follow one deal to its end; returns the next dealer, or None when the game is over."""
        history: list[dict] = []
        while True:
            game, result = replay_position(position)
            if result is not None:
                return self.end_of_deal(game, result, position)
            seat = game.current
            default = self.advise(position) if seat == 0 else None
            move = self.ask(_prompt(game, seat, default), lambda text: self.move(position, game, seat, text, default))
            if move == "undo":
                if history:
                    position = history.pop()
                    self.write("took back the last move")
                else:
                    self.write("error: nothing to take back in this deal")
                continue
            if move == "hand":
                self.write("your hand: " + " ".join(position["hand"]))
                continue
            history.append(position)
            position = move
            self.tell_facts(position)

    def move(self, position: dict, game, seat: int, text: str, default: Optional[str]):
        """The position after ``seat`` makes the move ``text`` (checked by replaying it), or a command."""
        word = " ".join(text.strip().split()).lower()
        if word in ("undo", "hand"):
            return word
        if not word:
            if default is None:
                raise ValueError(f"type {SEATS[seat]}'s move (or help)")
            word = default.lower()
        new = {**position, "auction": list(position["auction"]), "tricks": [list(t) for t in position["tricks"]],
               "hand": list(position["hand"])}
        if game.phase == BIDDING:
            action = read_call(word, "the call")
            new["auction"].append("pass" if action == PASS else action - BID_BASE)
        elif game.phase == TRUMP:
            suit = parse_suit(word.removeprefix("trump ").strip())
            if suit is None:
                raise ValueError(f"{text.strip()!r} is not a suit: name trump as S, H, D or C")
            new["trump"] = SUIT_LETTERS[suit]
        else:
            card = parse_card(word)
            if card is None:
                raise ValueError(f"{text.strip()!r} is not a card: type it as QH, 10S, TS or Q♥")
            name = card_str(card, False)
            if seat == 0:
                if name not in new["hand"]:
                    raise ValueError(f"{name} is not in your hand ({' '.join(new['hand'])})")
                new["hand"].remove(name)
            if not new["tricks"] or len(new["tricks"][-1]) == 4:
                new["tricks"].append([])
            new["tricks"][-1].append(name)
        replay_position(new)
        return new

    def advise(self, position: dict) -> str:
        """Print the advice and its reasons for the seat's turn; returns the advised move's label."""
        view = build_view(position)
        if len(view.legal_actions) == 1:
            only = label(view.legal_actions[0])
            self.write(f"advice: {only} (the only legal move)")
            return only
        advice = explain(view, samples=self.samples, seed=self.seed)
        lines = advice_lines(view, advice, f"search over {self.samples} layouts" if self.samples else "the network")
        self.write("advice: " + lines[0])
        for line in lines[1:]:
            self.write(line)
        return advice.label

    def tell_facts(self, position: dict) -> None:
        game, result = replay_position(position)
        if result is not None:
            return
        facts = table_facts(make_view(game, 0))
        parts = []
        if facts.voids:
            parts.append("void: " + ", ".join(f"{SEATS[s]} {' '.join(v)}" for s, v in sorted(facts.voids.items())))
        if facts.trumps_out is not None and game.phase == PLAY:
            parts.append(f"trumps out {facts.trumps_out}")
        if facts.tricks_needed is not None and game.phase == PLAY:
            parts.append(f"tricks needed {facts.tricks_needed}")
        if parts:
            self.write("known: " + " · ".join(parts))

    def end_of_deal(self, game, result, position: dict) -> Optional[int]:
        if result.thrown_in:
            self.write("the deal is thrown in: deal again")
        else:
            won = result.record.tricks_won
            self.write(f"deal over: your side took {won[0]} tricks, theirs {won[1]}; points "
                       f"{result.score_delta[0]:+d} / {result.score_delta[1]:+d}")
        self.scores = list(game.scores)
        self.seat_scores = list(game.seat_scores)
        self.write(f"score: your side {self.scores[0]}, theirs {self.scores[1]}")
        if result.game_over:
            self.write("game over: " + ("your side wins" if result.winner == 0 else "their side wins"))
            return None
        return game.dealer

    def run(self, dealer: Optional[int] = None) -> int:
        try:
            while True:
                dealer = self.play_deal(self.new_deal(dealer))
                if dealer is None:
                    return 0
                self.write(f"next deal: {SEATS[dealer]} deal{'' if dealer == 0 else 's'}")
        except Quit:
            return 0


# ------------------------------------------------------------------------------------------------ reading
def _seat(text: str) -> int:
    word = text.strip().lower()
    if word in SEATS:
        return SEATS.index(word)
    if word in ("0", "1", "2", "3"):
        return int(word)
    raise ValueError(f"{text.strip()!r} is not a player: type you, right, partner or left")


def _cards(text: str) -> list[str]:
    cards = []
    for token in text.replace(",", " ").split():
        card = parse_card(token)
        if card is None:
            raise ValueError(f"{token!r} is not a card: type cards as QH, 10S, TS or Q♥, separated by spaces")
        cards.append(card_str(card, False))
    return cards


def _one_card(text: str) -> str:
    cards = _cards(text)
    if len(cards) != 1:
        raise ValueError("type one card, e.g. 7H")
    return cards[0]


def _prompt(game, seat: int, default: Optional[str]) -> str:
    """``You bid (a number or pass) [Enter: bid 8]: ``, ``Right plays: ``, ``Left names trump: ``."""
    verbs = {BIDDING: ("bid", "bids"), TRUMP: ("name trump", "names trump"), PLAY: ("play", "plays")}[game.phase]
    how = " (2-13)" if game.rules.auction == "individual" else " (a number or pass)"
    what = verbs[seat != 0] + (how if game.phase == BIDDING else "")
    suffix = f" [Enter: {default}]" if default else ""
    return f"{'You' if seat == 0 else SEATS[seat].capitalize()} {what}{suffix}: "


# ------------------------------------------------------------------------------------------------- main
def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="tarneeb-advise", description=__doc__.split("\n\n")[0])
    p.add_argument("--rules", default="classic", choices=list(PRESETS), help="the rules you play (default classic)")
    p.add_argument("--samples", type=int, default=DEFAULT_SAMPLES, metavar="N",
                   help=f"layouts searched for each piece of advice (default {DEFAULT_SAMPLES}, about 1 CPU s; "
                        "0: the network alone, instant)")
    p.add_argument("--seed", type=int, default=0, help="seed of the search (default 0)")
    p.add_argument("--dealer", choices=SEATS, help="who deals the first deal (asked when not given)")
    return p


def main(argv: Optional[list[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not 0 <= args.samples <= MAX_SAMPLES:
        parser.error(f"--samples: must be 0..{MAX_SAMPLES}, got {args.samples}")
    if args.seed < 0:
        parser.error(f"--seed: must be 0 or more, got {args.seed}")
    import torch

    torch.set_num_threads(1)
    if hasattr(sys.stdin, "reconfigure"):
        sys.stdin.reconfigure(errors="replace")  # bytes the terminal's encoding cannot read: refused, not a crash
    rules = make_rules(args.rules)
    try:
        network_for(rules)
    except ValueError as e:
        parser.error(str(e))

    def read(prompt: str) -> Optional[str]:
        sys.stdout.write(prompt)
        sys.stdout.flush()
        line = sys.stdin.readline()
        if not line:
            sys.stdout.write("\n")
            return None
        if not sys.stdin.isatty():
            sys.stdout.write(line if line.endswith("\n") else line + "\n")  # a piped input shows what was read
        return line.rstrip("\n")

    advisor = Advisor(rules, args.samples, args.seed, read, print)
    try:
        return advisor.run(None if args.dealer is None else SEATS.index(args.dealer))
    except KeyboardInterrupt:
        print()
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
