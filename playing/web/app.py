"""The web table's ASGI app (Starlette): one page, a JSON API, and nothing the browser can use to reach beyond it.

Each tab gets its own :class:`~playing.web.session.Session` (its id is kept in
the tab's ``sessionStorage`` and sent as ``X-Session``, so two tabs never share a
game). Agents are chosen by key from the list fixed at start; replay files come
from uploads or from names listed in ``replay_dir``; every error is JSON with a 4xx or 5xx status:
``{"error": English text, "key": message key, "params": {...}}``, the key one of
:data:`playing.messages.MESSAGES`, which the page words in the player's language (a parameter may itself be
``{"key", "params"}``: the reason inside "refused: ...").

Read top to bottom: :class:`TableServer` holds one server's state (its config, the open sessions, the
uploads' budget) and has one method a route, in the order of :meth:`TableServer.routes`; the error handlers
and :func:`create_app`, which wires them into Starlette, come last.
"""
from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from agents import EngineError
from tarneeb_env.rules import PRESETS

from ..messages import Message
from ..records import RecordError, validate_record
from .bounds import MAX_BODY_BYTES, MAX_UPLOADS, UploadBudget, json_body
from .levels import AGAINST_BELOW, LEVELS, MEASURED
from .records import listing, parse_records, summary
from .registry import Registry
from .review import review
from .session import MAX_TARGET, RequestError, ServerConfig, Session

STATIC = Path(__file__).resolve().parent / "static"
MAX_LISTED_FILES = 500
REPLAY_SUFFIXES = (".json", ".jsonl")
SECURITY_HEADERS = {
    "content-security-policy": "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
}
GAME_KEYS = ("partner", "opponents", "rules", "target")  # what a page may choose for a new game


class _SecurityHeaders:
    """Adds :data:`SECURITY_HEADERS` to every response (the CSP also proves the page needs nothing off-site)."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                message.setdefault("headers", [])
                message["headers"] = list(message["headers"]) + [
                    (k.encode(), v.encode()) for k, v in SECURITY_HEADERS.items()]
            await send(message)

        await self.app(scope, receive, send_with_headers)


def list_replay_files(root: Optional[Path]) -> list[str]:
    """Record files under ``root`` (relative names, sorted); links that lead outside it are left out."""
    if root is None:
        return []
    names = []
    for path in sorted(root.rglob("*")):
        if path.suffix in REPLAY_SUFFIXES and path.is_file() and path.resolve().is_relative_to(root):
            names.append(path.relative_to(root).as_posix())
            if len(names) >= MAX_LISTED_FILES:
                break
    return names


class TableServer:
    """One server's state, and one method a route: the page and its config, the table, the replays."""

    def __init__(self, config: ServerConfig, replay_dir: Optional[str] = None):
        self.config = config
        self.root = Path(replay_dir).resolve() if replay_dir else None
        self.budget = UploadBudget()
        self.sessions = Registry(on_drop=lambda s: self.drop_uploads(s, len(s.uploads)))
        self.counter = itertools.count()
        self.page_config = self.config_for_page()

    def routes(self) -> list:
        return [
            Route("/", self.index),
            Route("/api/config", self.get_config),
            Route("/api/session", self.new_session, methods=["POST"]),
            Route("/api/state", self.get_state),
            Route("/api/new", self.new_game, methods=["POST"]),
            Route("/api/duplicate", self.new_duplicate, methods=["POST"]),
            Route("/api/act", self.act, methods=["POST"]),
            Route("/api/advance", self.advance, methods=["POST"]),
            Route("/api/next", self.next_deal, methods=["POST"]),
            Route("/api/hint", self.hint),
            Route("/api/replay/files", self.replay_files),
            Route("/api/replay/deals", self.replay_deals),
            Route("/api/replay/open", self.replay_open),
            Route("/api/replay/upload", self.replay_upload, methods=["POST"]),
            Route("/api/review", self.replay_review),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ]

    # ------------------------------------------------------------------ sessions
    def drop_uploads(self, session: Session, n: int) -> None:
        """Forget ``session``'s ``n`` oldest uploads and give their bytes back to the budget."""
        for name in list(session.uploads)[:n]:
            self.budget.give(len(session.uploads.pop(name)["text"]))

    async def locked(self, request: Request, work: Callable[[Session], Any]) -> Any:
        """Run ``work(session)`` in a worker thread, one request per session at a time: agents never block the
        event loop, and a second request while one is being decided is answered at once with 409 (so one tab
        cannot fill the thread pool that every tab shares)."""
        session = self.sessions.get(request.headers.get("x-session"))
        if not session.lock.acquire(blocking=False):
            raise RequestError(409, "srv.busy")

        started = False

        def run():
            nonlocal started
            started = True
            try:
                return work(session)
            finally:
                session.lock.release()

        try:
            return await run_in_threadpool(run)
        finally:
            if not started:  # cancelled while waiting for a worker thread
                session.lock.release()

    async def answer(self, request: Request, work: Callable[[Session], Any]) -> JSONResponse:
        """Apply ``work`` and reply with the new state (plus whatever ``work`` returned)."""

        def work_then_state(s: Session):
            extra = work(s)
            return {**(extra or {}), "state": s.state()}

        return JSONResponse(await self.locked(request, work_then_state))

    # ------------------------------------------------------------------ the page and its config
    async def index(self, request: Request):
        return FileResponse(STATIC / "index.html")

    async def get_config(self, request: Request):
        return JSONResponse(self.page_config)

    def config_for_page(self) -> dict[str, Any]:
        """What the page is told at start; built once, where each level is tried under each preset."""
        config = self.config
        choices = config.rule_choices()
        return {
            "agents": list(config.allowed), "partner": config.partner, "opponents": config.opponents,
            "rules": config.rules_label, "target": config.rules.target_score, "delay": config.delay,
            "duplicate_deals": config.duplicate_deals, "replay_dir": self.root is not None,
            "rule_choices": [{"label": label, "preset": label in PRESETS, "target": r.target_score, **r.to_dict()}
                             for label, r in choices.items()],
            "offered": {label: config.offered(label) for label in choices},
            "levels": list(LEVELS), "measured": MEASURED, "against_below": AGAINST_BELOW, "max_target": MAX_TARGET,
        }

    async def new_session(self, request: Request):
        data = await json_body(request)
        self.sessions.make_room()  # refuse before the agents are loaded
        session = await run_in_threadpool(Session, self.config, next(self.counter))
        if any(data.get(k) is not None for k in GAME_KEYS):
            await run_in_threadpool(session.new_game, *(data.get(k) for k in GAME_KEYS))
        sid = self.sessions.add(session)
        return JSONResponse({"session": sid, "state": await run_in_threadpool(session.state)})

    # ------------------------------------------------------------------ the table
    async def get_state(self, request: Request):
        return await self.answer(request, lambda s: None)

    async def new_game(self, request: Request):
        data = await json_body(request)
        return await self.answer(request, lambda s: s.new_game(*(data.get(k) for k in GAME_KEYS)))

    async def new_duplicate(self, request: Request):
        data = await json_body(request)
        return await self.answer(request, lambda s: s.start_duplicate(data.get("partner"), data.get("opponents")))

    async def act(self, request: Request):
        data = await json_body(request)
        if "action" not in data:
            raise RequestError(400, "srv.body_action")
        return await self.answer(request, lambda s: s.act(data["action"]))

    async def advance(self, request: Request):
        return await self.answer(request, lambda s: {"action": s.advance()})

    async def next_deal(self, request: Request):
        return await self.answer(request, lambda s: s.next_deal())

    async def hint(self, request: Request):
        return JSONResponse(await self.locked(request, lambda s: s.hint()))

    # ------------------------------------------------------------------ replays
    def entries_of(self, session: Session, source: str) -> list[dict]:
        """The entries of ``source``: ``game`` (this tab's deals), ``upload:NAME`` or ``dir:NAME``."""
        kind, _, name = source.partition(":")
        if kind == "game":
            return session.game_records()
        if kind == "upload":
            if name not in session.uploads:
                raise RequestError(404, "srv.no_upload", name=name[:100])
            return parse_records(session.uploads[name]["text"], name)
        if kind == "dir":
            return parse_records(self.read_listed(name), name)
        raise RequestError(400, "srv.bad_source")

    def read_listed(self, name: str) -> str:
        """The text of ``name`` if it is listed in the replay directory (never a path the page made up)."""
        root = self.root
        if root is None:
            raise RequestError(404, "srv.no_replay_dir")
        if name not in list_replay_files(root):  # before any path is made of it (a NUL byte, "..")
            raise RequestError(404, "srv.not_in_dir", name=name[:100])
        path = (root / name).resolve()
        if not path.is_relative_to(root) or path.stat().st_size > MAX_BODY_BYTES:
            raise RequestError(404, "srv.not_in_dir", name=name[:100])
        return path.read_text(encoding="utf-8", errors="replace")

    async def replay_files(self, request: Request):
        files = await run_in_threadpool(list_replay_files, self.root)
        return JSONResponse({"files": files, "dir": self.root is not None})

    async def replay_deals(self, request: Request):
        source = request.query_params.get("source", "")

        def work(s: Session):
            if source.startswith("upload:") and source[7:] in s.uploads:
                return {"source": source, "entries": s.uploads[source[7:]]["entries"]}
            return {"source": source, "entries": listing(self.entries_of(s, source))}

        return JSONResponse(await self.locked(request, work))

    async def replay_open(self, request: Request):
        source = request.query_params.get("source", "")
        index = _index(request)

        def work(s: Session):
            entries = self.entries_of(s, source)
            if not 0 <= index < len(entries):
                raise RequestError(404, "srv.index_range", index=index, n=len(entries))
            entry = entries[index]
            return {"record": validate_record(entry["record"]), "players": entry["players"], "meta": entry["meta"],
                    "title": summary(entry, index)}

        return JSONResponse(await self.locked(request, work))

    async def replay_review(self, request: Request):
        """Your decisions in one of this tab's finished hands, each beside the Hint's (see :mod:`.review`)."""
        index = _index(request)

        def work(s: Session):
            entries = s.game_records()
            if not 0 <= index < len(entries):
                raise RequestError(404, "srv.review_range", index=index, n=len(entries))
            entry = entries[index]
            if entry["meta"].get("seat0") == "computer":
                raise RequestError(400, "srv.review_computer")
            return {"index": index, "decisions": review(validate_record(entry["record"]))}

        return JSONResponse(await self.locked(request, work))

    async def replay_upload(self, request: Request):
        data = await json_body(request)
        name, text = data.get("name"), data.get("text")
        if not isinstance(name, str) or not isinstance(text, str) or not name:
            raise RequestError(400, "srv.body_upload")
        name = Path(name).name[:100] or "upload"

        def work(s: Session):
            entries = listing(parse_records(text, name))
            self.hold_upload(s, name, text, entries)
            return {"source": f"upload:{name}", "entries": entries}

        return JSONResponse(await self.locked(request, work))

    def hold_upload(self, session: Session, name: str, text: str, entries: list[dict]) -> None:
        """Keep an upload in ``session`` (the same name again replaces it), within the server's budget and
        :data:`MAX_UPLOADS` a session (the oldest goes); a refusal leaves the old one in place."""
        old = session.uploads.pop(name, None)
        try:
            self.budget.take(len(text) - (len(old["text"]) if old else 0))
        except RequestError:
            if old:
                session.uploads[name] = old
            raise
        self.drop_uploads(session, len(session.uploads) + 1 - MAX_UPLOADS)
        session.uploads[name] = {"text": text, "entries": entries}


def _index(request: Request) -> int:
    try:
        return int(request.query_params.get("index", ""))
    except ValueError:
        raise RequestError(400, "srv.index_int") from None


# ---------------------------------------------------------------------- errors: always JSON
def _error(status: int, message: Message) -> JSONResponse:
    return JSONResponse({"error": str(message), **message.to_dict()}, status_code=status)


async def request_error(request: Request, exc: RequestError):
    return _error(exc.status, exc.message)


async def record_error(request: Request, exc: RecordError):
    return _error(422, Message("srv.refused", why=exc.message))


async def http_error(request: Request, exc: HTTPException):  # an unknown path or method
    return _error(exc.status_code, Message("srv.http", detail=str(exc.detail)))


async def engine_error(request: Request, exc: EngineError):  # an external engine failed; it was stopped
    return _error(503, Message("srv.engine", why=str(exc)))


async def server_error(request: Request, exc: Exception):  # a failing agent, say: the page still gets JSON
    return _error(500, Message("srv.server", error=type(exc).__name__, detail=str(exc)))


ERROR_HANDLERS = {RequestError: request_error, RecordError: record_error, HTTPException: http_error,
                  EngineError: engine_error, Exception: server_error}


def create_app(config: ServerConfig, replay_dir: Optional[str] = None,
               allowed_hosts: Sequence[str] = ("127.0.0.1", "localhost", "[::1]")) -> Starlette:
    """The app for one server: ``config`` fixes the rules and agents; ``allowed_hosts`` guards against DNS rebinding."""
    server = TableServer(config, replay_dir)
    middleware = [Middleware(_SecurityHeaders)]
    if "*" not in allowed_hosts:
        middleware.insert(0, Middleware(TrustedHostMiddleware, allowed_hosts=list(allowed_hosts)))
    app = Starlette(routes=server.routes(), middleware=middleware, exception_handlers=ERROR_HANDLERS)
    app.state.sessions = server.sessions
    app.state.uploads = server.budget
    app.state.config = config
    return app
