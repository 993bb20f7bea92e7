"""What the human at the terminal sees and types: the table drawn with rich, typed moves read against the legal actions.

The human sits at seat 0. Seats are named from there, as the table looks to
them: play goes counter-clockwise, so seat 1 is on their right, seat 2
(the partner) opposite and seat 3 on their left.
"""
from __future__ import annotations

import re
from typing import Optional, Sequence, Union

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from tarneeb_env.cards import (
    BID_BASE,
    NUM_CARDS,
    PASS,
    RANK_NAMES,
    SUIT_LETTERS,
    SUIT_SYMBOLS,
    SUITS,
    TRUMP_BASE,
    rank_of,
    suit_of,
)
from tarneeb_env.game import trick_winner
from tarneeb_env.record import HandRecord
from tarneeb_env.view import PlayerView

SEAT_NAMES = ("You", "Right", "Partner", "Left")
TEAM_NAMES = ("Us", "Them")
_COMMAND_WORDS = {"help": "help", "?": "help", "hint": "hint", "last": "last", "score": "score",
                  "quit": "quit", "exit": "quit", "q": "quit"}
# Spades, hearts, clubs, diamonds: black and red alternate in the hand.
HAND_SUIT_ORDER = (3, 2, 0, 1)
RED = "bold red"
BLACK = "bold"

_RANKS = {name.lower(): r for r, name in enumerate(RANK_NAMES)} | {"t": 8}
_SUIT_WORDS = {
    word: s
    for s in range(4)
    for word in (SUITS[s], SUITS[s][:-1], SUIT_LETTERS[s].lower(), SUIT_SYMBOLS[s], "♧♢♡♤"[s])
}
_CARD_RE = re.compile(r"^(10|[2-9tjqka])\s*(?:of\s+)?(\S+)$")
_BID_RE = re.compile(r"^(?:bid\s*)?(-?\d+)$")

Typed = Union[int, str]  # an action, or a command: help, hint, last, score, quit


class InputError(ValueError):
    """Typed text that is no legal move here; the message says why in one line."""


def team_name(team: int) -> str:
    return TEAM_NAMES[team]


def suit_style(suit: int) -> str:
    return RED if suit in (1, 2) else BLACK


def hand_order(cards: Sequence[int]) -> list[int]:
    """Cards as the hand shows them, by suit in :data:`HAND_SUIT_ORDER` and highest first; the prompt lists them so."""
    return sorted(cards, key=lambda c: (HAND_SUIT_ORDER.index(suit_of(c)), -c))


class Glyphs:
    """Suit marks and separators for the terminal: the symbols when its encoding can show them, else ASCII."""

    def __init__(self, encoding: Optional[str] = "utf-8"):
        try:
            (SUIT_SYMBOLS + "·–—→").encode(encoding or "ascii")
            self.fancy = True
        except (UnicodeEncodeError, LookupError):
            self.fancy = False
        self.suits = SUIT_SYMBOLS if self.fancy else SUIT_LETTERS
        # dot between items, dash inside a score ("Us 3 – Them 5"), long dash before a reason, arrow to a result
        fancy = ("·", "–", "—", "→")
        self.dot, self.dash, self.long_dash, self.arrow = fancy if self.fancy else ("|", "-", "-", "->")
        self.card_examples = "QS, 10h or Q♠" if self.fancy else "QS or 10h"

    def suit(self, suit: int) -> Text:
        return Text(self.suits[suit], style=suit_style(suit))

    def card(self, card: int) -> Text:
        suit = suit_of(card)
        return Text(RANK_NAMES[rank_of(card)] + self.suits[suit], style=suit_style(suit))

    def cards(self, cards: Sequence[int], sep: str = " ") -> Text:
        return Text(sep).join(self.card(c) for c in cards)

    def hand(self, cards: Sequence[int]) -> Text:
        """Cards grouped by suit (black and red alternating), highest first: ``♠ A K 4   ♥ Q 10``."""
        groups = []
        ordered = hand_order(cards)
        for suit in HAND_SUIT_ORDER:
            ranks = [RANK_NAMES[rank_of(c)] for c in ordered if suit_of(c) == suit]
            if ranks:
                groups.append(Text(self.suits[suit] + " " + " ".join(ranks), style=suit_style(suit)))
        return Text("   ").join(groups) if groups else Text("(no cards)")

    def action(self, action: int) -> Text:
        if action < NUM_CARDS:
            return self.card(action)
        if action == PASS:
            return Text("pass")
        if action < TRUMP_BASE:
            return Text(str(action - BID_BASE))
        return self.suit(action - TRUMP_BASE)


# ------------------------------------------------------------------ reading input
def parse_card(text: str) -> Optional[int]:
    """``QS``, ``Q♠``, ``10h``, ``th``, ``q of spades`` -> card, or None when it does not read as a card."""
    m = _CARD_RE.match(text.strip().lower().replace("\ufe0f", ""))
    if not m or m.group(2) not in _SUIT_WORDS:
        return None
    return _SUIT_WORDS[m.group(2)] * 13 + _RANKS[m.group(1)]


def parse_suit(text: str) -> Optional[int]:
    return _SUIT_WORDS.get(text.strip().lower().replace("\ufe0f", ""))


UNICODE_GLYPHS = Glyphs()


def parse_input(text: str, view: PlayerView, glyphs: Glyphs = UNICODE_GLYPHS) -> Typed:
    """Read one line typed by the seat on turn: a legal action or a command; otherwise :class:`InputError`.

    Bytes the terminal's encoding cannot decode reach here as surrogate escapes (the game reads stdin with
    ``errors="surrogateescape"``): they are refused here rather than crashing the read.
    """
    if any("\udc80" <= ch <= "\udcff" for ch in text):
        raise InputError("Could not read that input (not valid in this terminal's encoding); "
                         "type e.g. QS, 10h, 8, pass or help.")
    word = " ".join(text.strip().lower().split())
    if not word:
        raise InputError("Type your move (the legal ones are listed in the prompt), or help.")
    if word in _COMMAND_WORDS:
        return _COMMAND_WORDS[word]
    legal = set(view.legal_actions)
    if view.phase == "play":
        return _read_play(word, view, legal, glyphs)
    if view.phase == "bidding":
        return _read_bid(word, view, legal)
    if view.phase == "trump":
        suit = parse_suit(word)
        if suit is None:
            symbol = f" or {glyphs.suits[3]}" if glyphs.fancy else ""
            raise InputError(f"{text.strip()!r} is not a suit: name trump as spades, S{symbol} "
                             "(or hearts, diamonds, clubs).")
        return TRUMP_BASE + suit
    raise InputError("Nothing to do now: the deal is over.")


def _read_play(word: str, view: PlayerView, legal: set[int], glyphs: Glyphs) -> int:
    card = parse_card(word)
    if card is None:
        if word == "pass" or _BID_RE.match(word):
            raise InputError(f"No bidding now: play a card, e.g. {glyphs.card_examples}.")
        raise InputError(f"{word!r} is not a card or a command: type a card like {glyphs.card_examples}, or help.")
    if card in legal:
        return card
    if card not in view.hand:
        raise InputError(f"You don't hold {glyphs.card(card).plain}.")
    led = suit_of(view.trick[0][1])
    raise InputError(f"You must follow suit: {glyphs.suits[led]} was led and you hold {SUITS[led]}.")


def _read_bid(word: str, view: PlayerView, legal: set[int]) -> int:
    individual = view.rules.auction == "individual"
    bids = sorted(a - BID_BASE for a in legal if BID_BASE < a < TRUMP_BASE)
    if word in ("pass", "p"):
        if PASS in legal:
            return PASS
        if individual:
            raise InputError(f"There is no passing in individual bidding: bid {bids[0]} to {bids[-1]} tricks.")
        raise InputError("The other three passed, so the dealer must bid.")
    m = _BID_RE.match(word)
    if m is None:
        if parse_card(word) is not None:
            raise InputError("The auction is still on: bid a number of tricks" + ("." if individual else " or pass."))
        raise InputError(f"{word!r} is not a bid: type a number of tricks" + ("." if individual else " or pass."))
    n = int(m.group(1))
    if BID_BASE + n in legal:
        return BID_BASE + n
    if not bids or n > 13 or n < 1:
        raise InputError(f"Bids go from {bids[0] if bids else view.rules.min_bid} to 13 tricks.")
    high = max(view.bids)
    if not individual and high >= bids[0] - 1 and high > 0:
        holder = SEAT_NAMES[view.bids.index(high)]
        raise InputError(f"Too low: the highest bid is {high} by {holder}; bid at least {bids[0]} or pass.")
    raise InputError(f"The lowest bid is {bids[0]}.")


def legal_hint(view: PlayerView, glyphs: Glyphs) -> Text:
    """The legal moves as they may be typed, for the prompt: ``[legal: K♣ 5♣ 2♣]`` (cards in the hand's order)."""
    actions = hand_order(view.legal_actions) if view.phase == "play" else view.legal_actions
    return Text("[legal: ").append(Text(" ").join(glyphs.action(a) for a in actions)).append("]")


# ------------------------------------------------------------------ drawing
class Screen:
    """Draws the human's view of the table; ``labels[s]`` names the player at seat s (agent labels)."""

    def __init__(self, glyphs: Glyphs, labels: Sequence[str]):
        self.g = glyphs
        self.labels = list(labels)

    def seat(self, seat: int) -> str:
        return SEAT_NAMES[seat] if seat == 0 else f"{SEAT_NAMES[seat]} ({self.labels[seat]})"

    def score_line(self, view: PlayerView) -> Text:
        rules = view.rules
        text = Text.assemble(
            ("Us ", "bold"), (str(view.scores[0]), "bold green"), "  ", ("Them ", "bold"),
            (str(view.scores[1]), "bold magenta"), f"   (target {rules.target_score})",
        )
        if rules.auction == "individual":
            text.append("   players: " + ", ".join(f"{SEAT_NAMES[s]} {view.seat_scores[s]}" for s in range(4)))
        return text

    def auction(self, auction: Sequence[tuple[int, int]]) -> Text:
        """The calls of an auction (``(seat, action)`` pairs; the trump call left out)."""
        text = Text()
        for seat, action in auction:
            if action >= TRUMP_BASE:
                continue
            if text:
                text.append(f" {self.g.dot} ")
            text.append(f"{SEAT_NAMES[seat]} ").append(self.g.action(action))
        return text

    def contract(self, view: PlayerView) -> Text:
        """Contract, declarer and trump, as far as known."""
        text = Text()
        if view.declarer is not None:
            text.append(f"{view.bid} by {SEAT_NAMES[view.declarer]} ({team_name(view.declarer & 1)})")
        if view.trump is not None:
            if text:
                text.append("   ")
            text.append("trump ").append(self.g.suit(view.trump))
            if view.exposed_card is not None:
                text.append(" (the dealer's last card: ").append(self.g.card(view.exposed_card)).append(")")
        return text

    def _seat_cell(self, view: PlayerView, seat: int) -> Text:
        text = Text(self.seat(seat), style="bold cyan" if seat == 0 else "bold")
        if seat == view.dealer:
            text.append(" [D]", style="yellow")
        rules = view.rules
        info = []
        if rules.auction == "team" and view.phase == "bidding":
            said = [a for s, a in view.auction if s == seat]
            if said:
                info.append("pass" if said[-1] == PASS else f"bid {said[-1] - BID_BASE}")
        elif rules.auction == "individual":
            if view.bids[seat]:
                info.append(f"bid {view.bids[seat]}")
        if view.phase == "play":
            n = view.tricks_by_seat[seat]
            info.append(f"{n} trick" + ("" if n == 1 else "s"))
        if info:
            text.append("\n" + ", ".join(info), style="dim")
        card = next((c for s, c in view.trick if s == seat), None)
        text.append("\n")
        text.append_text(Text.assemble("[ ", self.g.card(card), " ]") if card is not None else Text("[    ]", "dim"))
        return text

    def table(self, view: PlayerView, rules_label: str, deal_number: int) -> RenderableType:
        """The whole table as seat 0 sees it, in one panel."""
        grid = Table.grid(expand=True)
        for _ in range(3):
            grid.add_column(justify="center", ratio=1)
        centre = Text(justify="center")
        if view.phase == "play":
            centre.append(f"trick {sum(view.tricks_won) + 1}\n", style="dim")
            centre.append("tricks: ").append(f"Us {view.tricks_won[0]}", "green").append(f" {self.g.dot} ")
            centre.append(f"Them {view.tricks_won[1]}", "magenta")
            if view.trick:
                centre.append("\n").append_text(self.winning(view.trick, view.trump))
        grid.add_row("", self._seat_cell(view, 2), "")
        grid.add_row(self._seat_cell(view, 3), centre, self._seat_cell(view, 1))
        grid.add_row("", self._seat_cell(view, 0), "")
        lines: list[RenderableType] = [self.score_line(view)]
        if view.auction and view.rules.auction != "none":
            lines.append(Text("Auction: ").append_text(self.auction(view.auction)))
        contract = self.contract(view)
        if contract:
            lines.append(Text("Contract: " if view.declarer is not None else "").append_text(contract))
        lines += [grid, Text("Your hand: ", style="bold").append_text(self.g.hand(view.hand))]
        dot = self.g.dot
        return Panel(Group(*lines), title=f"Tarneeb {dot} {rules_label} {dot} deal {deal_number}", title_align="left",
                     subtitle="[D] dealer", subtitle_align="right")

    def winning(self, trick: Sequence[tuple[int, int]], trump: Optional[int]) -> Text:
        """Who holds the trick in progress so far: ``Right is winning with K♠``."""
        seat = trick_winner(trick, trump)
        card = dict(trick)[seat]
        return Text(f"{SEAT_NAMES[seat]} {'are' if seat == 0 else 'is'} winning with ", style="bold").append_text(
            self.g.card(card))

    def trick_line(self, trick: Sequence[tuple[int, int]], winner: int) -> Text:
        text = Text()
        for i, (seat, card) in enumerate(trick):
            text.append(f" {self.g.dot} " if i else "").append(f"{SEAT_NAMES[seat]} ").append_text(self.g.card(card))
        return text.append(f"  {self.g.arrow} {SEAT_NAMES[winner]} {'win' if winner == 0 else 'wins'}", style="bold")

    def hand_result(self, record: HandRecord) -> RenderableType:
        """End-of-hand summary: tricks, whether the contract was made, points and the running score."""
        delta, scores = record.score_delta, record.scores
        rules = record.rules
        lines: list[RenderableType] = []
        if record.thrown_in:
            if rules["auction"] == "individual":
                lines.append(Text(f"The bids total {sum(record.bids)}, less than {rules['min_total_bids']}: "
                                  "the deal is thrown in and the next player deals."))
            else:
                lines.append(Text("Everyone passed: the same dealer deals again."))
        elif rules["auction"] == "team":
            declarer, bid, team, made = record.declarer, record.bid, record.declaring_team, record.made
            taken = record.tricks_won[team]
            verdict = ("made" if made else f"down {bid - taken}")
            who = f"{SEAT_NAMES[declarer]} ({team_name(team)})"
            lines.append(Text.assemble(
                f"Contract {bid} by {who}: {('we', 'they')[team]} took {taken} {self.g.long_dash} ",
                (f"contract {verdict}", "bold green" if made else "bold red"),
            ))
        elif rules["auction"] == "individual":
            table = Table("Player", "Bid", "Tricks", "Points", box=None)
            for s in range(4):
                d = record.seat_score_delta[s]
                table.add_row(SEAT_NAMES[s], str(record.bids[s]), str(record.tricks_by_seat[s]),
                              Text(f"{d:+d}", "green" if d > 0 else "red"))
            lines.append(table)
        if not record.thrown_in:
            won = record.tricks_won
            lines.append(Text(f"Tricks: Us {won[0]} {self.g.dot} Them {won[1]}"))
            lines.append(Text(f"Points: Us {delta[0]:+d} {self.g.dot} Them {delta[1]:+d}"))
        lines.append(Text(self.score(scores), style="bold"))
        if rules["auction"] == "individual":
            lines.append(Text("Players: " + ", ".join(f"{SEAT_NAMES[s]} {record.seat_scores[s]}" for s in range(4))))
        return Panel(Group(*lines), title="Hand over", title_align="left")

    def score(self, scores: Sequence[int]) -> str:
        """``Score: Us 12 – Them 5``."""
        return f"Score: Us {scores[0]} {self.g.dash} Them {scores[1]}"

    def help(self) -> RenderableType:
        trump_forms = (f"name, letter or symbol (spades, s, {self.g.suits[3]})" if self.g.fancy
                       else "name or letter (spades, s)")
        return Panel(
            Text(
                f"Play a card: {self.g.card_examples} (rank then suit, any case; T or 10 for ten: th).\n"
                "A card that is your only legal one is played for you.\n"
                "Bid: a number of tricks (e.g. 8), or pass.\n"
                f"Trump: a suit by {trump_forms}.\n"
                "hint   what the strong player would do here, and why\n"
                "last   the last completed trick\n"
                "score  the game score\n"
                "quit   leave the game (Ctrl-D too)\n"
                "Seats: your partner sits opposite; play goes counter-clockwise, Right plays after you.\n"
                "[D] marks the dealer; the player on the dealer's right bids first."
            ),
            title="Help",
            title_align="left",
        )
