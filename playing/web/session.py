"""One browser tab's games. The engine is the authority: the page asks, this module checks and applies.

What leaves this module for the page is built from seat 0's ``PlayerView``
only (plus the records of deals that are over), so a card another seat still
holds is never sent. Every method that changes state runs under the session's
lock, in a worker thread (agents may be slow), never on the event loop.
"""
from __future__ import annotations

import dataclasses
import threading
from dataclasses import dataclass
from typing import Any, Optional

import numpy as np

import agents
from agents.base import Agent
from agents.seating import seated
from agents.table import Table
from evaluation import DuplicateDeal, duplicate_deal, play_lockstep
from tarneeb_env import Rules, make_rules
from tarneeb_env.cards import NUM_ACTIONS, action_str, suit_of
from tarneeb_env.game import trick_winner
from tarneeb_env.record import HandRecord
from tarneeb_env.view import make_view
from ..advice import advise, strong_player
from ..messages import MessageError
from ..screen import HAND_SUIT_ORDER, SEAT_NAMES

from .records import contract_info, describe

HUMAN = 0
_GAME, _DUPLICATE, _CHALLENGE, _HINT = 0, 1, 2, 3  # SeedSequence spawn-key purposes


class RequestError(MessageError):
    """A request the state does not allow; ``status`` is the HTTP code, the message (a key of
    :data:`playing.messages.MESSAGES` and its parameters) says what to do."""

    def __init__(self, status: int, key: str, /, **params):
        super().__init__(key, **params)
        self.status = status


@dataclass(frozen=True)
class ServerConfig:
    """What the server fixed at start: rules, the agent specs a page may choose (by key), defaults, pacing."""

    rules: Rules
    rules_label: str
    allowed: dict[str, str]  # key shown to the page -> agent spec
    partner: str  # keys into allowed
    opponents: str
    delay: float
    seed: int
    duplicate_deals: int = 8
    challenge_seed: Optional[int] = None  # one named deal set for every tab (else each challenge draws its own)
    presets: tuple[str, ...] = ()  # rule presets a page may start a game under, besides ``rules_label``
    hint_samples: Optional[int] = None  # layouts per Hint (None: explain's default, about a CPU second)

    def rule_choices(self) -> dict[str, Rules]:
        """Label -> rules a page may choose (the server's own first); a page never names a file."""
        return {self.rules_label: self.rules, **{p: make_rules(p) for p in self.presets if p != self.rules_label}}

    def offered(self, label: str) -> list[str]:
        """The keys of ``allowed`` that can sit at a table under the rules ``label`` (a network trained for
        other rules cannot), in the order given; checked once per server and rules."""
        return [k for k, spec in self.allowed.items() if _loads(spec, self.rule_choices()[label])]


_LOADABLE: dict[tuple[str, Rules], bool] = {}
MAX_TARGET = 500


def _loads(spec: str, rules: Rules) -> bool:
    if (spec, rules) not in _LOADABLE:
        try:
            agents.load(spec, rules=rules)
            _LOADABLE[spec, rules] = True
        except (ValueError, OSError, RuntimeError, ImportError, KeyError):
            _LOADABLE[spec, rules] = False
    return _LOADABLE[spec, rules]


def _seeds(*key: int, n: int) -> list[int]:
    return [int(x) for x in np.random.SeedSequence(key[0], spawn_key=key[1:]).generate_state(n)]


def _computer_move(table: Table) -> int:
    """The agent on turn's move at ``table``, applied; an illegal one stops the game with a server error."""
    seat = table.game.current
    action = table.agent_action()
    if not table.game.is_legal(action):
        raise RuntimeError(f"the agent at seat {seat} chose the illegal action {action!r}")
    table.apply(int(action))
    return int(action)


class Session:
    """A tab's state: the current table (a game, or a duplicate deal), its uploads, its lock."""

    def __init__(self, config: ServerConfig, number: int):
        self.config = config
        self.number = number
        self.lock = threading.Lock()
        self.games = 0
        self.challenges = 0
        self.table: Optional[Table] = None
        self.labels: list[str] = []
        self.duplicate: Optional[dict[str, Any]] = None
        self.uploads: dict[str, list[dict]] = {}
        self.rules_label = config.rules_label
        self.rules = config.rules
        self.new_game()

    # ------------------------------------------------------------------ set-up
    def _rules(self, label: Any, target: Any) -> tuple[str, Rules]:
        """The rules a new game asks for (``None``: this tab's current ones), with its target score."""
        choices = self.config.rule_choices()
        label = self.rules_label if label is None else label
        if not isinstance(label, str) or label not in choices:
            raise RequestError(400, "srv.bad_rules", rules=str(label)[:40], offered=", ".join(choices))
        rules = choices[label]
        if target is not None:
            if type(target) is not int or not 1 <= target <= MAX_TARGET:
                raise RequestError(400, "srv.bad_target", max=MAX_TARGET, got=repr(target)[:40])
            rules = dataclasses.replace(rules, target_score=target)
        return label, rules

    def _specs(self, partner: Optional[str], opponents: Optional[str], label: Optional[str] = None) -> tuple[str, str]:
        label = self.rules_label if label is None else label
        offered = self.config.offered(label)
        partner = self.config.partner if partner is None else partner
        opponents = self.config.opponents if opponents is None else opponents
        for refusal, key in (("srv.bad_partner", partner), ("srv.bad_opponents", opponents)):
            if not isinstance(key, str) or key not in offered:
                raise RequestError(400, refusal, key=str(key)[:40], rules=label, offered=", ".join(offered))
        return partner, opponents

    def _players(self, partner: str, opponents: str, seeds: list[int], seats=(1, 2, 3)) -> dict[int, Agent]:
        spec = self.config.allowed
        keys = {0: partner, 1: opponents, 2: partner, 3: opponents}
        self.labels = ["you"] + [keys[s] for s in (1, 2, 3)]
        return {s: agents.load(spec[keys[s]], rules=self.rules, seed=seeds[s]) for s in seats}

    def new_game(self, partner: Optional[str] = None, opponents: Optional[str] = None,
                 rules: Optional[str] = None, target: Optional[int] = None) -> None:
        """A new game; ``rules`` (a label of :meth:`ServerConfig.rule_choices`) and ``target`` default to this
        tab's current game's, the players to the server's defaults. Nothing changes when any is refused."""
        label, chosen = self._rules(rules, target)
        partner, opponents = self._specs(partner, opponents, label)
        self.rules_label, self.rules = label, chosen
        seeds = _seeds(self.config.seed, _GAME, self.number, self.games, n=6)
        self.games += 1
        players = self._players(partner, opponents, seeds)
        dealer = int(np.random.default_rng(seeds[5]).integers(4))
        self.duplicate = None
        self.table = Table(self.rules, np.random.default_rng(seeds[0]), dealer, seated(players),
                           hint=strong_player(self.rules, seeds[4]))

    def start_duplicate(self, partner: Optional[str] = None, opponents: Optional[str] = None) -> None:
        partner, opponents = self._specs(partner, opponents)
        seed = self.config.challenge_seed
        if seed is None:  # drawn from the server's seed: no other tab, and no restart with another seed, has it
            seed = _seeds(self.config.seed, _CHALLENGE, self.number, self.challenges, n=1)[0]
        self.challenges += 1
        deals = [duplicate_deal(seed, i) for i in range(self.config.duplicate_deals)]
        self.duplicate = {"partner": partner, "opponents": opponents, "deals": deals, "index": 0, "results": [],
                          "pairs": [], "seed": seed}
        self._duplicate_table()

    def _duplicate_table(self, seats=(1, 2, 3)) -> Table:
        dup = self.duplicate
        d: DuplicateDeal = dup["deals"][dup["index"]]
        seeds = _seeds(dup["seed"], _DUPLICATE, d.index, n=5)  # the same agents' seeds at both tables
        players = self._players(dup["partner"], dup["opponents"], seeds, seats)
        table = Table(self.rules, np.random.default_rng(d.game_seed), d.dealer, seated(players), one_deal=True,
                      deal=[list(h) for h in d.hands], exposed_card=d.exposed_card,
                      hint=strong_player(self.rules, seeds[4]))
        if seats == (1, 2, 3):
            self.table = table
        return table

    def _finish_duplicate_deal(self) -> None:
        """The person's table is over: the computer plays the same deal from seat 0, and the margin is kept."""
        dup = self.duplicate
        computer = self._duplicate_table(seats=(0, 1, 2, 3))
        play_lockstep([computer], computer.seating)
        mine = self.table
        mine_records, computer_records = _dicts(mine.records), _dicts(computer.records)
        dup["pairs"].append((mine_records, computer_records))
        yours, its = mine_records[-1], computer_records[-1]
        dup["results"].append({
            "deal": dup["index"] + 1,
            "you": describe(yours)[0], "you_net": mine.net, "you_made": _made(yours), "you_info": contract_info(yours),
            "computer": describe(its)[0], "computer_net": computer.net, "computer_made": _made(its),
            "computer_info": contract_info(its),
            "margin": mine.net - computer.net,
        })

    # ------------------------------------------------------------------ moves
    def _table(self) -> Table:
        table = self.table
        if table.waiting:
            raise RequestError(409, "srv.game_over" if table.over else "srv.deal_over")
        return table

    def act(self, action: Any) -> None:
        """The person's move; anything but a legal action of seat 0 on turn is refused, changing nothing."""
        if type(action) is not int:
            raise RequestError(400, "srv.action_int", max=NUM_ACTIONS - 1, got=repr(action)[:40])
        table = self._table()
        game = table.game
        if game.current != HUMAN:
            raise RequestError(409, "srv.not_your_turn", who=self.seat_name(game.current))
        if not game.is_legal(action):
            legal = ", ".join(action_str(a) for a in game.legal_actions())
            what = action_str(action) if 0 <= action < NUM_ACTIONS else "no action"
            raise RequestError(422, "srv.illegal", action=action, move=what, legal=legal)
        table.apply(action)
        self._after_move()

    def advance(self) -> int:
        """One computer seat's move (the page calls this after its delay)."""
        table = self._table()
        if table.game.current == HUMAN:
            raise RequestError(409, "srv.your_turn")
        action = _computer_move(table)
        self._after_move()
        return action

    def _after_move(self) -> None:
        if self.duplicate is not None and self.table.over:
            self._finish_duplicate_deal()

    def next_deal(self) -> None:
        table = self.table
        if not table.waiting:
            raise RequestError(409, "srv.deal_playing")
        if not table.over:
            table.next_deal()
            return
        dup = self.duplicate
        if dup is None or dup["index"] + 1 >= len(dup["deals"]):
            raise RequestError(409, "srv.game_over" if dup is None else "srv.challenge_over")
        dup["index"] += 1
        self._duplicate_table()

    def hint(self) -> dict[str, Any]:
        table = self._table()
        if table.game.current != HUMAN:
            raise RequestError(409, "srv.not_your_turn", who=self.seat_name(table.game.current))
        view = make_view(table.game, HUMAN)
        seed = _seeds(self.config.seed, _HINT, self.number, self.games, table.game.deals,
                      len(view.auction) + len(view.played), n=1)[0]
        return advise(view, table.hint, seed, self.config.hint_samples)

    def seat_name(self, seat: int) -> str:
        return SEAT_NAMES[seat] if seat == HUMAN else f"{SEAT_NAMES[seat]} ({self.labels[seat]})"

    # ------------------------------------------------------------------ records
    def game_records(self) -> list[dict]:
        """Records of this tab's finished deals: the current game's, or the challenge's (the person's and the computer's)."""
        if self.duplicate is None:
            return [{"record": r, "players": [self.seat_name(s) for s in range(4)], "meta": {"deal_number": k + 1}}
                    for k, r in enumerate(_dicts(self.table.records))]
        out = []
        for k, (mine, computer) in enumerate(self.duplicate["pairs"]):
            for who, recs in (("you", mine), ("computer", computer)):
                names = [("You" if who == "you" else f"You (computer: {self.labels[2]})")] + \
                        [self.seat_name(s) for s in (1, 2, 3)]
                out.append({"record": recs[-1], "players": names, "meta": {"deal_number": k + 1, "seat0": who}})
        return out

    # ------------------------------------------------------------------ what the page sees
    def state(self) -> dict[str, Any]:
        table = self.table
        game = table.game
        view = make_view(game, HUMAN)
        rules = view.rules
        played = view.played
        done = len(played) // 4
        last = [list(p) for p in played[4 * done - 4: 4 * done]] if done else None
        on_turn = -1 if table.waiting else view.to_act
        result = None
        if table.waiting:
            rec = table.records[-1].to_dict()
            contract, outcome = describe(rec)
            result = {"contract": contract, "outcome": outcome, "thrown_in": rec["thrown_in"],
                      "tricks_won": rec["tricks_won"], "score_delta": rec["score_delta"], "scores": rec["scores"],
                      "bids": rec["bids"], "tricks_by_seat": rec["tricks_by_seat"],
                      "seat_score_delta": rec["seat_score_delta"], "made": _made(rec),
                      "declarer": rec.get("declarer"), "bid": rec.get("bid")}
        return {
            "mode": "duplicate" if self.duplicate is not None else "game",
            "seats": [self.seat_name(s) for s in range(4)],
            "agents": {"partner": self.labels[2], "opponents": self.labels[1]},
            "rules": {"label": self.rules_label, **rules.to_dict(), "target": rules.target_score},
            "deal_number": game.deals,
            "dealer": table.records[-1].dealer if table.waiting else view.dealer,
            "phase": view.phase,
            "to_act": on_turn,
            "hand": sorted(view.hand, key=lambda c: (HAND_SUIT_ORDER.index(suit_of(c)), -c)),
            "cards_left": [13 - sum(1 for s, _ in played if s == seat) for seat in range(4)],
            "auction": [list(a) for a in view.auction],
            "bids": list(view.bids),
            "declarer": view.declarer,
            "bid": view.bid,
            "trump": view.trump,
            "exposed_card": view.exposed_card,
            "trick": [list(p) for p in view.trick],
            "trick_winning": trick_winner(view.trick, view.trump) if view.trick else None,
            "last_trick": None if last is None else {"cards": last, "winner": trick_winner(last, view.trump),
                                                      "number": done},
            "tricks_won": list(view.tricks_won),
            "tricks_by_seat": list(view.tricks_by_seat),
            "scores": list(view.scores),
            "seat_scores": list(view.seat_scores),
            "legal": list(view.legal_actions) if on_turn == HUMAN else [],
            "waiting": table.waiting,
            "result": result,
            "game_over": table.over and self.duplicate is None,
            "winner": game.winner if table.over and self.duplicate is None else None,
            "records": len(self.game_records()),
            "sheet": [] if self.duplicate is not None else [_sheet_row(r) for r in _dicts(table.records)],
            "duplicate": self._duplicate_state(),
            "delay": self.config.delay,
        }

    def _duplicate_state(self) -> Optional[dict[str, Any]]:
        dup = self.duplicate
        if dup is None:
            return None
        results = dup["results"]
        done = len(results) == len(dup["deals"])
        named = self.config.challenge_seed is not None
        return {"deal": dup["index"] + 1, "of": len(dup["deals"]), "results": results,
                "total": sum(r["margin"] for r in results), "done": done, "named": named,
                "seed": dup["seed"] if done or named else None}  # a drawn set's seed is told once it is played


def _sheet_row(rec: dict) -> dict[str, Any]:
    """One line of the running score sheet: what was bid, by whom, what was taken, and the points."""
    return {"contract": describe(rec)[0], "declarer": rec.get("declarer"), "bid": rec.get("bid"),
            "trump": rec.get("trump"),
            "tricks": rec["tricks_won"], "made": _made(rec), "thrown_in": rec["thrown_in"],
            "delta": rec["score_delta"], "scores": rec["scores"]}


def _dicts(records: list[HandRecord]) -> list[dict]:
    """The JSON form of a table's records, as the page and the saved hands read them."""
    return [r.to_dict() for r in records]


def _made(rec: dict) -> Optional[bool]:
    return HandRecord.from_dict(rec).made
