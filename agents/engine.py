"""``engine:COMMAND ARGS``: an agent in another process (any language) that speaks the engine protocol.

:class:`EngineAgent` starts ``COMMAND ARGS`` (split with :func:`shlex.split`, never run through a shell) in its
own process group, reads its ``hello``, and from then on acts like any agent: at each decision it sends the
events that seat has seen since its last decision and an ``act`` request, and checks the answer. The protocol
is ``docs/engine-protocol.md``; :mod:`agents.engine_protocol` holds its vocabulary.

The spec may carry settings between ``engine`` and the colon: ``engine?timeout=5&start=60:tarneeb-engine ppo``.
``timeout`` is the limit in seconds per decision (default :data:`DEFAULT_TIMEOUT`; a request for n decisions at
once gets n times that), ``start`` the limit for the engine's ``hello`` (default :data:`DEFAULT_START`). The
settings come before the command because the command's own arguments may hold ``?`` (``search?samples=8``).

Faults end the play with one :class:`EngineError` line naming the engine and what it did: no answer in time,
an answer that is not JSON, not an ``action``, for a deal not asked about, or not a legal action, an
``error`` message, or an exit. The engine's process group is killed before the error is raised, and when the
agent is closed or collected, so no process is left behind.

Which seat's deal a decision belongs to is read from the view (the seat, its hand with the cards it played,
the dealer, the exposed card and the scores): the agent interface passes views, not table numbers, and one agent
may sit at many tables at once. Each seat's deal is one protocol ``deal`` id; when a view does not continue what
was sent under that id, a new id replays it from its start, so the engine's state always equals the view's.
"""
from __future__ import annotations

import hashlib
import json
import os
import selectors
import shlex
import signal
import subprocess
import time
import urllib.parse
import weakref
from collections import OrderedDict
from typing import Any, Optional

from tarneeb_env import Rules, make_rules
from tarneeb_env.cards import mask_of
from tarneeb_env.game import trick_winner
from tarneeb_env.record import HandRecord
from tarneeb_env.rules_core import NO_SUIT, fixed_trump
from tarneeb_env.view import PlayerView

from .base import Agent
from .engine_protocol import (ACT, ACTION, CUSTOM, DEAL, END, ERROR, HELLO, PROTOCOL_VERSION, QUIT, action_event,
                              name_of, public_rules)
from .rules_check import RulesMismatchError, _label

PREFIX = "engine"
DEFAULT_TIMEOUT = 60.0  # seconds per decision: generous for a searching engine on a loaded machine
DEFAULT_START = 60.0  # seconds for the hello: an engine loading torch and a network on a loaded machine
MAX_OPEN_DEALS = 4096  # deals kept open at the engine; older ones are ended (record null) to bound its memory
MAX_LINE = 1 << 20  # bytes in one line from an engine
QUIT_GRACE = 1.0  # seconds an engine told to quit (or whose input ended) has to exit before it is killed
READ_CHUNK = 1 << 16


class EngineError(RuntimeError):
    """An external engine broke the protocol, ran out of time or exited; one line naming it and what it did."""


def is_engine_spec(spec: Any) -> bool:
    return isinstance(spec, str) and (spec.startswith(PREFIX + ":") or spec.startswith(PREFIX + "?"))


def parse_engine_spec(spec: str) -> tuple[list[str], dict[str, float]]:
    """``(argv, settings)`` of ``engine[?timeout=S&start=S]:COMMAND ARGS``; ValueError naming what is wrong."""
    head, colon, command = spec.partition(":")
    if not colon or not command.strip():
        raise ValueError(f"engine spec {spec!r}: give the command after the colon, e.g. 'engine:tarneeb-engine rule'")
    settings = {"timeout": DEFAULT_TIMEOUT, "start": DEFAULT_START}
    if head != PREFIX:
        query = head[len(PREFIX) + 1:]
        try:
            pairs = urllib.parse.parse_qsl(query, keep_blank_values=True, strict_parsing=True)
        except ValueError:
            raise ValueError(f"engine spec {spec!r}: settings must read 'engine?timeout=5&start=60:COMMAND'") from None
        for key, text in pairs:
            if key not in settings:
                raise ValueError(f"engine spec {spec!r}: no setting {key!r}; the settings are timeout and start")
            try:
                value = float(text)
            except ValueError:
                value = 0.0
            if not value > 0 or value == float("inf"):
                raise ValueError(f"engine spec {spec!r}: {key}= must be a number of seconds above 0, got {text!r}")
            settings[key] = value
    try:
        argv = shlex.split(command)
    except ValueError as e:
        raise ValueError(f"engine spec {spec!r}: cannot split the command ({e})") from None
    return argv, settings


def _deal_seed(base: Optional[int], key: tuple) -> Optional[int]:
    """A seed per seat's deal, from the agent's seed and what identifies the deal: the same whatever order the
    deals are played in."""
    if base is None:
        return None
    return int.from_bytes(hashlib.blake2b(repr((base, key)).encode(), digest_size=4).digest(), "little")


class _Deal:
    __slots__ = ("id", "key", "auction", "played")

    def __init__(self, deal_id: int, key: tuple):
        self.id, self.key, self.auction, self.played = deal_id, key, (), ()


class HostDeals:
    """The host side's messages, from views alone: which ``deal`` id a view continues, and what to send so the
    engine knows what the view knows (nothing else: a view is exactly one seat's knowledge). No I/O here, so the
    hidden-card leak test reads exactly what would be written."""

    def __init__(self, max_open: int = MAX_OPEN_DEALS):
        self.max_open = max_open
        self.base_seed: Optional[int] = None
        self.open: "OrderedDict[tuple, _Deal]" = OrderedDict()
        self.orphans: list[_Deal] = []  # replaced while asked in the same batch: ended at the next one
        self.next_id = 0

    @staticmethod
    def _key(seat, hand: int, dealer, exposed, scores, seat_scores) -> tuple:
        return (seat, hand, dealer, exposed, tuple(scores), tuple(seat_scores))

    def catch_up(self, view: PlayerView, busy: set) -> tuple[_Deal, list[dict]]:
        """The deal ``view`` belongs to and the messages that bring the engine to it; ``busy``: the deal ids
        already asked about in this batch (never ended under an engine that owes their answer)."""
        seat = view.seat
        hand = mask_of(view.hand) | mask_of(c for s, c in view.played if s == seat)
        key = self._key(seat, hand, view.dealer, view.exposed_card, view.scores, view.seat_scores)
        out: list[dict] = []
        d = self.open.get(key)
        if d is not None and (d.id in busy or view.auction[:len(d.auction)] != d.auction
                              or view.played[:len(d.played)] != d.played):
            self.open.pop(key)
            if d.id in busy:
                self.orphans.append(d)
            else:
                out.append(self._end(d, None))
            d = None
        if d is None:
            d = self.open[key] = _Deal(self.next_id, key)
            self.next_id += 1
            out.append({
                "type": DEAL, "deal": d.id, "seat": seat, "rules": public_rules(view.rules), "dealer": view.dealer,
                "hand": sorted(_cards(hand)), "hand_names": [name_of(c) for c in sorted(_cards(hand))],
                "exposed_card": view.exposed_card,
                "exposed_name": None if view.exposed_card is None else name_of(view.exposed_card),
                "trump": _fixed_trump(view), "scores": list(view.scores), "seat_scores": list(view.seat_scores),
                "seed": _deal_seed(self.base_seed, key),
            })
            while len(self.open) > self.max_open:
                out.append(self._end(self.open.popitem(last=False)[1], None))
        else:
            self.open.move_to_end(key)
        out += self._events(d, view.auction, view.played, view.trump)
        return d, out

    @staticmethod
    def act(deal_id: int, view: PlayerView, pending: int) -> dict:
        """The request for ``view``'s seat to act in deal ``deal_id``; ``pending`` more requests follow it."""
        legal = list(view.legal_actions)
        return {"type": ACT, "deal": deal_id, "seat": view.seat, "phase": view.phase, "legal": legal,
                "legal_names": [name_of(a) for a in legal], "pending": pending}

    def _events(self, d: _Deal, auction, played, trump) -> list[dict]:
        out = []
        for s, a in auction[len(d.auction):]:
            out.append({**action_event(s, a), "deal": d.id})
        for k in range(len(d.played), len(played)):
            event = {**action_event(*played[k]), "deal": d.id}
            if k % 4 == 3:
                event["trick_winner"] = trick_winner(played[k - 3:k + 1], trump)
            out.append(event)
        d.auction, d.played = tuple(auction), tuple(played)
        return out

    def finish(self, seat: int, record: HandRecord) -> list[dict]:
        """The messages for the end of a deal at ``seat``: the events after its last decision and ``end`` with
        the public record (the dealt hands only when every card was played, so all were seen)."""
        hand = mask_of(record.deal[seat])
        scores = [a - b for a, b in zip(record.scores, record.score_delta)]
        seat_scores = [a - b for a, b in zip(record.seat_scores, record.seat_score_delta)]
        key = self._key(seat, hand, record.dealer, record.exposed_card, scores, seat_scores)
        d = self.open.pop(key, None)
        if d is None:
            return []
        out = self._events(d, tuple(map(tuple, record.auction)), tuple(map(tuple, record.plays)), record.trump)
        public = {k: v for k, v in record.to_dict().items() if not (k == "deal" and record.thrown_in)}
        out.append(self._end(d, public))
        return out

    def end_all(self) -> list[dict]:
        out = [self._end(d, None) for d in [*self.orphans, *self.open.values()]]
        self.open.clear()
        self.orphans.clear()
        return out

    def take_orphans(self) -> list[dict]:
        out = [self._end(d, None) for d in self.orphans]
        self.orphans.clear()
        return out

    @staticmethod
    def _end(d: _Deal, record: Optional[dict]) -> dict:
        return {"type": END, "deal": d.id, "record": record}


def _fixed_trump(view: PlayerView) -> Optional[int]:
    """The trump suit the rules fix before any call (hearts, or the exposed card's suit), else None."""
    suit = fixed_trump(view.rules.vector, NO_SUIT if view.exposed_card is None else view.exposed_card)
    return None if suit == NO_SUIT else suit


def _cards(mask: int) -> list[int]:
    return [c for c in range(52) if mask >> c & 1]


def _stop_group(proc: subprocess.Popen, grace: float) -> None:
    """End the engine: close its input (an engine exits at the end of its input), give it ``grace`` seconds, then
    kill its whole process group (what it started too) and reap it."""
    for f in (proc.stdin,):
        try:
            f.close()
        except OSError:
            pass
    if grace > 0:
        try:
            proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.stdout.close()
    except OSError:
        pass
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass


class EngineProcess:
    """The engine's process and pipes: lines out, lines in, each exchange under a deadline."""

    def __init__(self, argv: list[str], label: str, start_timeout: float):
        self.label = label
        try:
            self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0,
                                         start_new_session=True)
        except (FileNotFoundError, PermissionError, OSError) as e:
            raise EngineError(f"engine {label}: cannot start {argv[0]!r}: {e.strerror or e}") from None
        self._finalizer = weakref.finalize(self, _stop_group, self.proc, QUIT_GRACE)  # collected, or at exit
        self.pid = self.proc.pid
        os.set_blocking(self.proc.stdin.fileno(), False)
        os.set_blocking(self.proc.stdout.fileno(), False)
        self._buf = bytearray()
        self._lines: list[bytes] = []
        self.hello = self._read_hello(start_timeout)

    def _read_hello(self, limit: float) -> dict:
        line = self.exchange(b"", 1, limit, "its hello")[0]
        msg = _json(line)
        if not isinstance(msg, dict) or msg.get("type") != HELLO:
            self.fault(f"its first line must be a hello message, got {_show(line)}")
        if msg.get("protocol") != PROTOCOL_VERSION:
            self.fault(f"speaks protocol {msg.get('protocol')!r}; this host speaks protocol {PROTOCOL_VERSION}")
        presets = msg.get("presets")
        if not (isinstance(presets, list) and presets and all(isinstance(p, str) for p in presets)):
            self.fault(f"its hello must list the rules presets it plays ('presets'), got {presets!r}")
        return msg

    def fault(self, what: str) -> None:
        """Stop the engine and raise the one-line error."""
        code = self.proc.poll()
        self.close(kill=True)
        exited = f" (it had exited with code {code})" if code is not None and "exited" not in what else ""
        raise EngineError(f"engine {self.label}: {what}{exited}; it was stopped")

    def close(self, kill: bool = False) -> None:
        """Say quit and give the engine :data:`QUIT_GRACE` seconds to exit (``kill``: none), then kill its group."""
        if not self._finalizer.alive:
            return
        self._finalizer.detach()
        if not kill and self.proc.poll() is None:
            try:
                os.write(self.proc.stdin.fileno(), _line({"type": QUIT}))  # no wait: a full pipe is no excuse
            except OSError:
                pass
        _stop_group(self.proc, 0.0 if kill else QUIT_GRACE)

    def write_all(self, data: bytes, limit: float, what: str) -> None:
        self.exchange(data, 0, limit, what)

    def exchange(self, data: bytes, want: int, limit: float, what: str) -> list[bytes]:
        """Write ``data``, then read ``want`` lines; everything within ``limit`` seconds. Reads while writing,
        so an engine answering early never blocks on a full pipe."""
        deadline = time.monotonic() + limit
        out = memoryview(data)
        lines = self._lines
        with selectors.DefaultSelector() as sel:
            sel.register(self.proc.stdout, selectors.EVENT_READ)
            if out:
                sel.register(self.proc.stdin, selectors.EVENT_WRITE)
            while out or len(lines) < want:
                left = deadline - time.monotonic()
                if left <= 0:
                    self.fault(f"no answer within {limit:g} s to {what}" if not out
                               else f"did not read its input within {limit:g} s ({what})")
                for key, _ in sel.select(left):
                    if key.fileobj is self.proc.stdin:
                        try:
                            n = os.write(self.proc.stdin.fileno(), out)
                        except BrokenPipeError:
                            self._exited(what)
                        except BlockingIOError:
                            continue
                        out = out[n:]
                        if not out:
                            sel.unregister(self.proc.stdin)
                    else:
                        try:
                            chunk = os.read(self.proc.stdout.fileno(), READ_CHUNK)
                        except BlockingIOError:
                            continue
                        if not chunk:
                            self._exited(what)
                        self._buf += chunk
                        *done, rest = self._buf.split(b"\n")
                        lines += [bytes(x) for x in done]
                        self._buf = bytearray(rest)
                        if len(self._buf) > MAX_LINE:
                            self.fault(f"wrote a line longer than {MAX_LINE} bytes during {what}")
        taken, self._lines = lines[:want], lines[want:]
        return taken

    def _exited(self, what: str) -> None:
        try:
            code = self.proc.wait(timeout=2.0)
        except subprocess.TimeoutExpired:
            self.fault(f"closed its output during {what}")
        how = f"was killed by signal {-code}" if code < 0 else f"exited with code {code}"
        self.fault(f"{how} during {what}")


def _line(msg: dict) -> bytes:
    return (json.dumps(msg, separators=(",", ":")) + "\n").encode()


def _json(line: bytes) -> Any:
    try:
        return json.loads(line)
    except ValueError:
        return None


def _show(line: bytes) -> str:
    text = line.decode("utf-8", "replace").strip()
    return repr(text if len(text) <= 80 else text[:77] + "...")


def supports(hello: dict, rules: Rules) -> bool:
    """Whether an engine's ``presets`` cover ``rules`` (a preset's rules with another target score count as it)."""
    return _label(rules) in hello["presets"] or CUSTOM in hello["presets"]


class EngineAgent(Agent):
    """An agent played by an external engine (see the module docstring)."""

    reads_observation = False  # the host sends what the view holds

    def __init__(self, command, seed: Optional[int] = None, rules=None, timeout: float = DEFAULT_TIMEOUT,
                 start: float = DEFAULT_START, label: Optional[str] = None):
        """``command``: the engine's argv (a list), or a string split with :func:`shlex.split`."""
        self.deals = HostDeals()
        super().__init__(seed)
        argv = shlex.split(command) if isinstance(command, str) else list(command)
        self.spec = label or f"{PREFIX}:{shlex.join(argv)}"
        self.timeout = timeout
        self.process = EngineProcess(argv, repr(self.spec), start)
        hello = self.process.hello
        self.name = f"{hello.get('name', argv[0])} {hello.get('version', '')}".strip()
        self.deterministic = hello.get("deterministic") is True  # then the evaluator asks its tables in one batch
        if rules is not None:
            rules = make_rules(rules)
            if not supports(hello, rules):
                self.close()
                raise RulesMismatchError(f"engine {self.spec!r} does not play rules {_label(rules)}: it plays "
                                         f"{', '.join(hello['presets'])}")

    def seed(self, seed: Optional[int] = None) -> None:
        super().seed(seed)
        self.deals.base_seed = None if seed is None else int(seed)

    def reset(self) -> None:
        """A new chunk or game: the deals still open at the engine are ended (their records unknown here)."""
        if getattr(self, "process", None) is not None:
            self._send(self.deals.end_all(), "end")

    def act(self, observation, view) -> int:
        return self.act_batch([observation], [view])[0]

    def act_batch(self, observations, views) -> list[int]:
        views = list(views)
        busy: set = set()
        msgs = self.deals.take_orphans()
        asked = []
        for view in views:
            if view.to_act != view.seat or view.rules is None:
                raise ValueError(f"engine {self.spec!r}: asked to act for seat {view.seat}, which is not on turn")
            if not supports(self.process.hello, view.rules):
                self.process.fault(f"does not play rules {_label(view.rules)} (its hello lists "
                                   f"{', '.join(self.process.hello['presets'])})")
            d, events = self.deals.catch_up(view, busy)
            busy.add(d.id)
            msgs += events
            asked.append(d.id)
        n = len(views)
        msgs += [self.deals.act(d_id, view, n - 1 - k) for k, (d_id, view) in enumerate(zip(asked, views))]
        what = (f"act (deal {asked[0]}, seat {views[0].seat}, {views[0].phase})" if n == 1
                else f"{n} act requests, {self.timeout:g} s each")
        lines = self.process.exchange(b"".join(map(_line, msgs)), n, self.timeout * n, what)
        slot = {d_id: k for k, d_id in enumerate(asked)}
        out: list[Optional[int]] = [None] * n
        for line in lines:
            self._answer(line, slot, views, out)
        return out  # type: ignore[return-value]

    def _answer(self, line: bytes, slot: dict, views: list, out: list) -> None:
        """Check one answer line and store its action in ``out``."""
        msg = _json(line)
        if not isinstance(msg, dict):
            self.process.fault(f"answered {_show(line)}, which is not a JSON object")
        if msg.get("type") == ERROR:
            self.process.fault(f"reported an error: {str(msg.get('message', ''))[:200]!r}")
        if msg.get("type") != ACTION:
            self.process.fault(f"answered {_show(line)}, which is not an action message")
        k = slot.get(msg.get("deal")) if isinstance(msg.get("deal"), int) else None
        if k is None or out[k] is not None:
            self.process.fault(f"answered {_show(line)}: deal {msg.get('deal')!r} was not asked about"
                               + (" (or was answered twice)" if k is not None else ""))
        action, legal = msg.get("action"), views[k].legal_actions
        if not (isinstance(action, int) and not isinstance(action, bool) and action in legal):
            shown = name_of(action) if isinstance(action, int) and 0 <= action < 70 else None
            self.process.fault(f"answered action {action!r}{f' ({shown})' if shown else ''} in deal {msg['deal']}, "
                               f"which is not legal there; legal: {' '.join(name_of(a) for a in legal)}")
        out[k] = action

    def deal_over(self, seat: int, record: HandRecord) -> None:
        """The deal at which this agent held ``seat`` ended: the engine gets the rest of it and its record."""
        self._send(self.deals.finish(seat, record), "end")

    def _send(self, msgs: list[dict], what: str) -> None:
        if msgs:
            self.process.write_all(b"".join(map(_line, msgs)), self.timeout, what)

    def close(self) -> None:
        """Say quit, give the engine a second to exit, then kill its process group."""
        if getattr(self, "process", None) is not None:
            self.process.close()

    def __getstate__(self):
        raise TypeError(f"engine {self.spec!r} runs a process and cannot be copied to another process; "
                        "pass its spec instead")


def load_engine(spec: str, rules: Optional[Rules] = None, seed: Optional[int] = None, **_options) -> EngineAgent:
    """The agent of an ``engine:`` spec (see the module docstring)."""
    argv, settings = parse_engine_spec(spec)
    return EngineAgent(argv, seed=seed, rules=rules, timeout=settings["timeout"],
                       start=settings["start"], label=spec)
