"""The server's open games: one per tab, expired when idle, and never taken from a player who is still playing.

A local client that opens sessions in a loop must not cost anyone their game: a session idle for
:data:`IDLE_EXPIRY_S` is dropped; when :data:`MAX_SESSIONS` are open, the longest-idle one is dropped only if it has
been idle for :data:`PROTECTED_S`, else the new session is refused with a 503 that says when to try again. The ids
of recently dropped sessions are remembered (a bounded set), so their page hears *why* its game is gone.
"""
from __future__ import annotations

import secrets
import time
from collections import OrderedDict
from typing import Callable, Optional

from .session import RequestError, Session

MAX_SESSIONS = 64
IDLE_EXPIRY_S = 30 * 60  # a game untouched this long is dropped
PROTECTED_S = 5 * 60  # a game touched this recently is never dropped to make room
REMEMBERED_GONE = 4096  # ids of dropped games kept so that their page can be told why

GONE_IDLE = ("srv.gone_idle", IDLE_EXPIRY_S // 60)  # the message key and its minutes
GONE_ROOM = ("srv.gone_room", PROTECTED_S // 60)


class Registry:
    """Session id -> :class:`Session`, least recently used first; ``clock`` is injectable so tests need not wait."""

    def __init__(self, on_drop: Callable[[Session], None] = lambda s: None, clock: Callable[[], float] = time.monotonic,
                 max_sessions: int = MAX_SESSIONS):
        self.on_drop = on_drop
        self.clock = clock
        self.max_sessions = max_sessions
        self._open: "OrderedDict[str, tuple[Session, float]]" = OrderedDict()
        self._gone: "OrderedDict[str, tuple[str, int]]" = OrderedDict()

    def __len__(self) -> int:
        return len(self._open)

    def __getitem__(self, sid: str) -> Session:  # tests reach a session's engine this way
        return self._open[sid][0]

    def _drop(self, sid: str, why: tuple[str, int]) -> None:
        self.on_drop(self._open.pop(sid)[0])
        self._gone[sid] = why
        while len(self._gone) > REMEMBERED_GONE:
            self._gone.popitem(last=False)

    def expire(self) -> None:
        """Drop every session idle for :data:`IDLE_EXPIRY_S` (the oldest are first, so stop at the first fresh one)."""
        now = self.clock()
        while self._open:
            sid, (_, seen) = next(iter(self._open.items()))
            if now - seen < IDLE_EXPIRY_S:
                break
            self._drop(sid, GONE_IDLE)

    def make_room(self) -> None:
        """Before a new session: expire, then drop the longest-idle one if it is past :data:`PROTECTED_S`, else 503."""
        self.expire()
        if len(self._open) < self.max_sessions:
            return
        sid, (_, seen) = next(iter(self._open.items()))
        idle = self.clock() - seen
        if idle < PROTECTED_S:
            wait = int(PROTECTED_S - idle) // 60 + 1
            raise RequestError(503, "srv.full" if wait > 1 else "srv.full_soon", max=self.max_sessions,
                               **({"wait": wait} if wait > 1 else {}))
        self._drop(sid, GONE_ROOM)

    def add(self, session: Session) -> str:
        """Register ``session`` (call :meth:`make_room` first) and return its new id."""
        self.make_room()
        sid = secrets.token_urlsafe(16)
        self._open[sid] = (session, self.clock())
        return sid

    def get(self, sid: Optional[str]) -> Session:
        """The session, marked as just used; 410 with the reason for a dropped one, 404 for an unknown id."""
        self.expire()
        entry = self._open.get(sid or "")
        if entry is None:
            if sid in self._gone:
                key, minutes = self._gone[sid]
                raise RequestError(410, key, minutes=minutes)
            raise RequestError(404, "srv.unknown_session")
        self._open[sid] = (entry[0], self.clock())
        self._open.move_to_end(sid)
        return entry[0]

    def sessions(self) -> list[Session]:
        return [s for s, _ in self._open.values()]
