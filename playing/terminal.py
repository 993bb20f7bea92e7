"""The terminal game: you at seat 0, agents at the other seats, rich text on the console."""
from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Optional

import numpy as np
from rich.console import Console
from rich.prompt import InvalidResponse, PromptBase
from rich.text import Text

import agents
from agents.seating import seated
from agents.table import Table
from tarneeb_env import Rules
from tarneeb_env.cards import BID_BASE, NUM_CARDS, PASS, TRUMP_BASE
from tarneeb_env.game import trick_winner
from tarneeb_env.record import HandRecord
from tarneeb_env.view import make_view

from .advice import advice_lines, hint, strong_player
from .records import RECORD_FORMAT
from .screen import (
    SEAT_NAMES,
    Glyphs,
    InputError,
    Screen,
    Typed,
    legal_hint,
    parse_input,
    team_name,
)

_LOAD_ERRORS = (ValueError, OSError, RuntimeError, ImportError, KeyError)


class MovePrompt(PromptBase):
    """Asks the human for one move; unreadable or illegal text is explained and asked again."""

    def __init__(self, view, glyphs: Glyphs, console: Console):
        what = {"play": "Your play", "bidding": "Your bid", "trump": "Name trump"}[view.phase]
        super().__init__(Text(what + " ", style="bold cyan").append_text(legal_hint(view, glyphs)), console=console)
        self.view = view
        self.glyphs = glyphs

    def process_response(self, value: str) -> Typed:
        try:
            return parse_input(value, self.view, self.glyphs)
        except InputError as e:
            raise InvalidResponse(Text(str(e), style="red")) from None


def spec_label(spec: str) -> str:
    if spec.endswith(".pt"):
        return Path(spec).stem
    return spec.rpartition(":")[2] if ":" in spec else spec


class TerminalGame:
    """One game at the terminal: the table (:class:`agents.table.Table`), the three computer players and the
    human at seat 0."""

    def __init__(self, console: Console, rules: Rules, rules_label: str, specs: list[Optional[str]], seed: int,
                 delay: float = 0.0, save_dir: Optional[str] = None):
        self.console = console
        self.rules = rules
        self.rules_label = rules_label
        self.seed = seed
        self.delay = delay
        self.save_dir = save_dir
        seeds = np.random.SeedSequence(self.seed).generate_state(5)
        # specs were checked for the rules by playing.cli
        self.seating = seated({s: agents.load(specs[s], seed=int(seeds[s])) for s in (1, 2, 3)})
        self.hint_seed = int(seeds[4])
        self.hint_agent = strong_player(rules, self.hint_seed)  # the shipped network (else rule), as on the web
        self.glyphs = Glyphs(console.encoding)
        self.screen = Screen(self.glyphs, ["you"] + [spec_label(specs[s]) for s in (1, 2, 3)])
        self.table: Optional[Table] = None  # dealt by run()
        self.deal_number = 0
        self.last_trick: Optional[tuple[list, int]] = None
        self.stamp = time.strftime("%Y%m%d-%H%M%S")

    # ------------------------------------------------------------------ loop
    def run(self) -> int:
        console = self.console
        rng = np.random.default_rng(self.seed)  # the dealer and then the deals, as the env's reset(seed) draws them
        table = self.table = Table(self.rules, rng, int(rng.integers(4)), self.seating, hint=self.hint_agent)
        game = table.game
        rules = self.rules
        dot, labels = self.glyphs.dot, self.screen.labels
        console.print(Text(f"Tarneeb {dot} rules {self.rules_label} {dot} target {rules.target_score} {dot} "
                           f"seed {self.seed}"))
        console.print(Text(f"Partner: {labels[2]} {dot} opponents: {labels[1]}, {labels[3]} {dot} "
                           "type help for commands"))
        self._new_deal()
        while True:
            if table.over:
                return self._game_over()
            seat = game.current
            view = make_view(game, seat)
            if seat == 0:
                action = self._ask_human(view)
                if action is None:
                    console.print(Text(f"You left the game. {self.screen.score(view.scores)}."))
                    return 0
            else:
                if self.delay > 0:
                    time.sleep(self.delay)
                action = int(table.agent_action())
                if action not in view.legal_actions:
                    console.print(Text(f"{self.screen.seat(seat)} chose an illegal action {action}; stopping.", "red"))
                    return 1
                self._announce(seat, action)
            self._step(action, view)

    def _step(self, action: int, before) -> None:
        table = self.table
        result = table.apply(action)
        record = result.record if result else None
        plays = record.plays if record else table.game.played
        trump = record.trump if record else before.trump
        if action < NUM_CARDS and len(plays) % 4 == 0 and len(plays) > len(before.played):
            trick = [tuple(p) for p in plays[-4:]]
            winner = trick_winner(trick, trump)
            self.last_trick = (trick, winner)
            tricks = record.tricks_won if record else table.game.tricks_won
            self.console.print(Text(f"Trick {len(plays) // 4}: ").append_text(self.screen.trick_line(trick, winner))
                               .append(f"   (Us {tricks[0]} {self.glyphs.dot} Them {tricks[1]})"))
        if record:
            self._end_of_hand(record)
            if not table.over:
                table.next_deal()
                self._new_deal()

    def _new_deal(self) -> None:
        self.deal_number += 1
        self.last_trick = None
        view = make_view(self.table.game, 0)
        self.console.rule(f"Deal {self.deal_number} {self.glyphs.dot} dealer: {SEAT_NAMES[view.dealer]}")
        if view.exposed_card is not None:
            self.console.print(Text("The dealer's last card is ").append_text(self.glyphs.card(view.exposed_card))
                               .append(": trump is ").append_text(self.glyphs.suit(view.trump)))

    def _announce(self, seat: int, action: int) -> None:
        name = SEAT_NAMES[seat]
        if action < NUM_CARDS:
            text = Text(f"{name} plays ").append_text(self.glyphs.card(action))
        elif action == PASS:
            text = Text(f"{name} passes")
        elif action < TRUMP_BASE:
            text = Text(f"{name} bids {action - BID_BASE}")
        else:
            text = Text(f"{name} names trump ").append_text(self.glyphs.suit(action - TRUMP_BASE))
        self.console.print(text)

    def _ask_human(self, view) -> Optional[int]:
        """The human's legal action, or None when they quit (``quit``, end of input, Ctrl-C).

        A card that is the only legal one is played at once, with a line saying so: there is nothing to choose.
        """
        console = self.console
        console.print(self.screen.table(view, self.rules_label, self.deal_number))
        if view.phase == "play" and len(view.legal_actions) == 1:
            (card,) = view.legal_actions
            console.print(Text("You play ").append_text(self.glyphs.card(card)).append(" (your only legal card)."))
            return card
        prompt = MovePrompt(view, self.glyphs, console)
        while True:
            try:
                typed = prompt()
            except (EOFError, KeyboardInterrupt):
                console.print()
                return None
            if isinstance(typed, int):
                return typed
            if typed == "quit":
                return None
            if typed == "help":
                console.print(self.screen.help())
            elif typed == "hint":
                console.print(self._hint(view))
            elif typed == "score":
                console.print(self.screen.score_line(view))
            elif typed == "last":
                if self.last_trick is None:
                    console.print("No trick has been completed yet in this deal.")
                else:
                    console.print(Text("Last trick: ").append_text(self.screen.trick_line(*self.last_trick)))

    def _hint(self, view) -> Text:
        """The strong player's choice: with a network, what ``search`` plays there and the numbers behind it
        (:func:`playing.advice.advice_lines`); under rules no network is trained for, ``rule``'s and its reason."""
        got = hint(view, self.hint_agent, self.hint_seed)
        if not isinstance(got, tuple):
            lines = advice_lines(view, got, f"the strong player: search over {got.samples} layouts")
            return Text("Hint: " + "\n".join(lines))
        action, reason = got
        text = Text("Hint: the rule player would ")
        if action == PASS:
            text.append("pass")
        else:
            verb = "play " if action < NUM_CARDS else "bid " if action < TRUMP_BASE else "name trump "
            text.append(verb).append_text(self.glyphs.action(action))
        return text.append(f" {self.glyphs.long_dash} {reason}")

    def _end_of_hand(self, record: HandRecord) -> None:
        self.console.print(self.screen.hand_result(record))
        if self.save_dir:
            path = Path(self.save_dir) / f"tarneeb-{self.stamp}-s{self.seed}-deal{self.deal_number:03d}.json"
            data = {"format": RECORD_FORMAT, "version": 1, "deal_number": self.deal_number, "seed": self.seed,
                    "players": [f"{SEAT_NAMES[s]} ({self.screen.labels[s]})" for s in range(4)],
                    "record": record.to_dict()}
            path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")

    def _game_over(self) -> int:
        game = self.table.game
        scores = game.scores
        if not game.game_over:
            self.console.print(Text(f"The game stopped after {game.deals} deals without a winner. "
                                    f"{self.screen.score(scores)}."))
            return 0
        winner = team_name(game.winner)
        line = "You and your partner win!" if game.winner == 0 else "Right and Left win."
        self.console.rule("Game over")
        self.console.print(Text(line, style="bold green" if game.winner == 0 else "bold red"))
        self.console.print(Text(f"Final score: Us {scores[0]} {self.glyphs.dash} Them {scores[1]}. Winner: {winner}",
                                style="bold"))
        return 0
