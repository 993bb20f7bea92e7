"""Play Tarneeb against the computer at the terminal, or replay a saved hand.

    python play.py [--partner SPEC] [--opponents SPEC] [--rules PRESET|file.yaml] [--target N]
                   [--seed S] [--delay SECONDS] [--save-dir DIR]
    python play.py --replay FILE

You sit at seat 0; your partner is opposite and play goes counter-clockwise.
Agent specs are those of ``agents.load``. Type ``help`` at any prompt.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import time
from pathlib import Path
from typing import Optional

import numpy as np
from rich.console import Console
from rich.prompt import InvalidResponse, PromptBase
from rich.text import Text

import agents
from tarneeb_env import Rules, make_rules, raw_env
from tarneeb_env.cards import BID_BASE, PASS, TRUMP_BASE
from tarneeb_env.game import trick_winner
from tui import SEAT_NAMES, Glyphs, InputError, Screen, Typed, legal_hint, parse_input, team_name

DEFAULT_CHECKPOINT = Path(__file__).resolve().parent / "checkpoints" / "default.pt"
RECORD_FORMAT = "tarneeb-hand"
_LOAD_ERRORS = (ValueError, OSError, RuntimeError, ImportError, KeyError)
MAX_DEALS = 1000  # a game that has not ended after this many deals stops (only endless redeals get there)


class MovePrompt(PromptBase):
    """Asks the human for one move; unreadable or illegal text is explained and asked again."""

    def __init__(self, view, glyphs: Glyphs, console: Console):
        what = {"play": "Your play", "bidding": "Your bid", "trump": "Name trump"}[view.phase]
        super().__init__(Text(what + " ", style="bold cyan").append_text(legal_hint(view, glyphs)), console=console)
        self.view = view

    def process_response(self, value: str) -> Typed:
        try:
            return parse_input(value, self.view)
        except InputError as e:
            raise InvalidResponse(Text(str(e), style="red")) from None


def default_agent_spec() -> str:
    """The shipped trained agent when present, else the rule player."""
    if DEFAULT_CHECKPOINT.is_file():
        return str(DEFAULT_CHECKPOINT)
    return "rule"


def spec_label(spec: str) -> str:
    if spec.endswith(".pt"):
        return Path(spec).stem
    return spec.rpartition(":")[2] if ":" in spec else spec


class TerminalGame:
    """One game at the terminal: the env, the three computer players and the human at seat 0."""

    def __init__(self, console: Console, rules: Rules, rules_label: str, specs: list[Optional[str]], seed: int,
                 delay: float = 0.0, save_dir: Optional[str] = None):
        self.console = console
        self.rules = rules
        self.rules_label = rules_label
        self.seed = seed
        self.delay = delay
        self.save_dir = save_dir
        seeds = np.random.SeedSequence(self.seed).generate_state(5)
        self.players = {s: agents.load(specs[s], seed=int(seeds[s])) for s in (1, 2, 3)}
        self.hint_agent = agents.RuleAgent(seed=int(seeds[4]))
        self.glyphs = Glyphs(console.encoding)
        self.screen = Screen(self.glyphs, ["you"] + [spec_label(specs[s]) for s in (1, 2, 3)])
        self.env = raw_env(rules=rules, episode="game", max_hands=MAX_DEALS)
        self.deal_number = 0
        self.last_trick: Optional[tuple[list, int]] = None
        self.stamp = time.strftime("%Y%m%d-%H%M%S")

    # ------------------------------------------------------------------ loop
    def run(self) -> int:
        env, console = self.env, self.console
        env.reset(seed=self.seed)
        rules = self.rules
        console.print(Text(f"Tarneeb · rules {self.rules_label} · target {rules.target_score} · seed {self.seed}"))
        console.print(Text("Partner: " + self.screen.labels[2] + " · opponents: "
                           + self.screen.labels[1] + ", " + self.screen.labels[3] + " · type help for commands"))
        self._new_deal()
        while True:
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                return self._game_over()
            seat = int(agent.rsplit("_", 1)[1])
            view = env.view(seat)
            if seat == 0:
                action = self._ask_human(view)
                if action is None:
                    console.print(Text(f"You left the game. Score: Us {view.scores[0]} – Them {view.scores[1]}."))
                    return 0
            else:
                if self.delay > 0:
                    time.sleep(self.delay)
                action = int(self.players[seat].act(env.observe(agent), view))
                if action not in view.legal_actions:
                    console.print(Text(f"{self.screen.seat(seat)} chose an illegal action {action}; stopping.", "red"))
                    return 1
                self._announce(seat, action)
            self._step(agent, action, view)

    def _step(self, agent: str, action: int, before) -> None:
        env = self.env
        env.step(action)
        record = env.infos[agent].get("hand_record")
        plays = record["plays"] if record else env.view(0).played
        trump = record["trump"] if record else before.trump
        if action < 52 and len(plays) % 4 == 0 and len(plays) > len(before.played):
            trick = [tuple(p) for p in plays[-4:]]
            winner = trick_winner(trick, trump)
            self.last_trick = (trick, winner)
            tricks = record["tricks_won"] if record else env.view(0).tricks_won
            self.console.print(Text(f"Trick {len(plays) // 4}: ").append_text(self.screen.trick_line(trick, winner))
                               .append(f"   (Us {tricks[0]} · Them {tricks[1]})"))
        if record:
            self._end_of_hand(record)
            if not (env.terminations[agent] or env.truncations[agent]):
                self._new_deal()

    def _new_deal(self) -> None:
        self.deal_number += 1
        self.last_trick = None
        for player in self.players.values():
            player.reset()
        self.hint_agent.reset()
        view = self.env.view(0)
        self.console.rule(f"Deal {self.deal_number} · dealer: {SEAT_NAMES[view.dealer]}")
        if view.exposed_card is not None:
            self.console.print(Text("The dealer's last card is ").append_text(self.glyphs.card(view.exposed_card))
                               .append(": trump is ").append_text(self.glyphs.suit(view.trump)))

    def _announce(self, seat: int, action: int) -> None:
        name = SEAT_NAMES[seat]
        if action < 52:
            text = Text(f"{name} plays ").append_text(self.glyphs.card(action))
        elif action == PASS:
            text = Text(f"{name} passes")
        elif action < TRUMP_BASE:
            text = Text(f"{name} bids {action - BID_BASE}")
        else:
            text = Text(f"{name} names trump ").append_text(self.glyphs.suit(action - TRUMP_BASE))
        self.console.print(text)

    def _ask_human(self, view) -> Optional[int]:
        """The human's legal action, or None when they quit (``quit``, end of input, Ctrl-C)."""
        console = self.console
        console.print(self.screen.table(view, self.rules_label, self.deal_number))
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
        action, reason = self.hint_agent.explain(view)
        text = Text("Hint: the rule player would ")
        if action == PASS:
            text.append("pass")
        else:
            verb = "play " if action < 52 else "bid " if action < TRUMP_BASE else "name trump "
            text.append(verb).append_text(self.glyphs.action(action))
        return text.append(f" — {reason}")

    def _end_of_hand(self, record: dict) -> None:
        self.console.print(self.screen.hand_result(record))
        if self.save_dir:
            path = Path(self.save_dir) / f"tarneeb-{self.stamp}-s{self.seed}-deal{self.deal_number:03d}.json"
            data = {"format": RECORD_FORMAT, "version": 1, "deal_number": self.deal_number, "seed": self.seed,
                    "players": [f"{SEAT_NAMES[s]} ({self.screen.labels[s]})" for s in range(4)], "record": record}
            path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")

    def _game_over(self) -> int:
        game = self.env.game
        scores = game.scores
        if not game.game_over:
            self.console.print(Text(f"The game stopped after {game.deals} deals without a winner. "
                                    f"Score: Us {scores[0]} – Them {scores[1]}."))
            return 0
        winner = team_name(game.winner)
        line = "You and your partner win!" if game.winner == 0 else "Right and Left win."
        self.console.rule("Game over")
        self.console.print(Text(line, style="bold green" if game.winner == 0 else "bold red"))
        self.console.print(Text(f"Final score: Us {scores[0]} – Them {scores[1]}. Winner: {winner}", style="bold"))
        return 0


# ------------------------------------------------------------------ replay
def load_record(path: str) -> tuple[dict, list[str]]:
    """A saved hand (or a bare ``hand_record``) and the seat labels; ValueError names what is wrong."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except OSError as e:
        raise ValueError(f"cannot read {path}: {e.strerror}") from None
    except json.JSONDecodeError as e:
        raise ValueError(f"{path} is not JSON: {e}") from None
    if isinstance(data, dict) and data.get("format") == RECORD_FORMAT:
        record, players = data.get("record"), data.get("players") or list(SEAT_NAMES)
    else:
        record, players = data, list(SEAT_NAMES)
    needed = ("dealer", "deal", "auction", "plays", "trump", "tricks_won", "score_delta", "scores", "rules",
              "thrown_in")
    missing = [k for k in needed if not isinstance(record, dict) or k not in record]
    if missing:
        raise ValueError(f"{path} is not a Tarneeb hand record: missing {', '.join(missing)}")
    return record, players


def replay(path: str, console: Console, delay: float) -> int:
    """Show a saved hand again: the four hands, the auction, then trick by trick, then the result."""
    try:
        record, players = load_record(path)
    except ValueError as e:
        console.print(Text(str(e), style="red"))
        return 2
    glyphs = Glyphs(console.encoding)
    screen = Screen(glyphs, ["you", "", "", ""])
    console.rule(f"Replay of {os.path.basename(path)} · dealer: {SEAT_NAMES[record['dealer']]}")
    for seat in range(4):
        console.print(Text(f"{players[seat]:<22}").append_text(glyphs.hand(record["deal"][seat])))
    if record.get("exposed_card") is not None:
        console.print(Text("The dealer's last card: ").append_text(glyphs.card(record["exposed_card"])))
    calls = screen.auction(record["auction"])
    if calls:
        console.print(Text("Auction: ").append_text(calls))
    if record.get("declarer") is not None:
        console.print(Text(f"Contract: {record['bid']} by {SEAT_NAMES[record['declarer']]}"))
    if record["trump"] is not None:
        console.print(Text("Trump: ").append_text(glyphs.suit(record["trump"])))
    plays = [tuple(p) for p in record["plays"]]
    for i in range(0, len(plays) - len(plays) % 4, 4):
        if delay > 0:
            time.sleep(delay)
        trick = plays[i:i + 4]
        winner = trick_winner(trick, record["trump"])
        console.print(Text(f"Trick {i // 4 + 1}: ").append_text(screen.trick_line(trick, winner)))
    console.print(screen.hand_result(record))
    return 0


# ------------------------------------------------------------------ command line
def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description="Play Tarneeb against the computer (you are seat 0).")
    p.add_argument("--partner", metavar="SPEC", help="agent at seat 2 (default: the shipped agent, else rule)")
    p.add_argument("--opponents", metavar="SPEC", help="agent at seats 1 and 3 (default: as for --partner)")
    p.add_argument("--rules", default="classic", metavar="PRESET|FILE.yaml", help="rule preset or YAML file")
    p.add_argument("--target", type=int, metavar="N", help="points to win (overrides the rules' target_score)")
    p.add_argument("--seed", type=int, metavar="S", help="seed for the deals and the computer players")
    p.add_argument("--delay", type=float, default=0.6, metavar="SECONDS", help="pause before each computer move")
    p.add_argument("--save-dir", metavar="DIR", help="save each deal's record as JSON here")
    p.add_argument("--replay", metavar="FILE", help="show a saved deal trick by trick, then exit")
    p.add_argument("--web", action="store_true", help="play in the browser instead (python -m playing.web -h)")
    return p


def main(argv: Optional[list[str]] = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if "--web" in argv:  # the web table takes these options and its own
        from playing.web.cli import main as web_main

        return web_main([a for a in argv if a != "--web"])
    parser = build_parser()
    args = parser.parse_args(argv)
    import torch

    torch.set_num_threads(1)  # one decision at a time: extra threads only add latency on a busy machine
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="replace")  # a terminal that cannot show a glyph gets '?', not a crash
    console = Console(highlight=False)
    if args.delay < 0:
        parser.error(f"--delay: must be 0 or more, got {args.delay}")
    if args.replay:
        return replay(args.replay, console, args.delay)
    if args.seed is None:
        args.seed = int(np.random.SeedSequence().generate_state(1)[0])
    elif args.seed < 0:
        parser.error(f"--seed: must be 0 or more, got {args.seed}")
    try:
        rules = make_rules(args.rules)
        if args.target is not None:
            rules = dataclasses.replace(rules, target_score=args.target)
    except ValueError as e:
        parser.error(str(e))
    rules_label = Path(args.rules).name if args.rules.endswith((".yaml", ".yml")) else args.rules
    if args.save_dir:
        try:
            os.makedirs(args.save_dir, exist_ok=True)
        except OSError as e:
            parser.error(f"--save-dir: cannot create {args.save_dir}: {e.strerror}")
    default = default_agent_spec()
    if default == str(DEFAULT_CHECKPOINT) and not (args.partner and args.opponents):
        try:
            agents.load(default)
        except _LOAD_ERRORS as e:
            default = "rule"
            console.print(Text(f"Cannot load the shipped agent ({e}); playing with {default!r} instead.", "yellow"))
    partner = args.partner or default
    opponents = args.opponents or default
    try:
        game = TerminalGame(console, rules, rules_label, [None, opponents, partner, opponents], args.seed,
                            args.delay, args.save_dir)
    except _LOAD_ERRORS as e:
        parser.error(f"--partner/--opponents: {e}")
    try:
        return game.run()
    except KeyboardInterrupt:
        console.print("\nYou left the game.")
        return 130


if __name__ == "__main__":
    sys.exit(main())
