"""The web table's ASGI app (Starlette): one page, a JSON API, and nothing the browser can use to reach beyond it.

Each tab gets its own :class:`~playing.web.session.Session` (its id is kept in
the tab's ``sessionStorage`` and sent as ``X-Session``, so two tabs never share a
game). Agents are chosen by key from the list fixed at start; replay files come
from uploads or from names listed in ``replay_dir``; every error is a JSON
``{"error": ...}`` with a 4xx status.
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
BUSY = "the previous move of this game is still being decided: wait for its answer"


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


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


def create_app(config: ServerConfig, replay_dir: Optional[str] = None,
               allowed_hosts: Sequence[str] = ("127.0.0.1", "localhost", "[::1]")) -> Starlette:
    """The app for one server: ``config`` fixes the rules and agents; ``allowed_hosts`` guards against DNS rebinding."""
    root = Path(replay_dir).resolve() if replay_dir else None
    budget = UploadBudget()
    sessions = Registry(on_drop=lambda s: drop_uploads(s, len(s.uploads)))
    counter = itertools.count()

    def drop_uploads(session: Session, n: int) -> None:
        """Forget ``session``'s ``n`` oldest uploads and give their bytes back to the budget."""
        for name in list(session.uploads)[:n]:
            budget.give(len(session.uploads.pop(name)["text"]))

    async def locked(request: Request, work: Callable[[Session], Any]) -> Any:
        """Run ``work(session)`` in a worker thread, one request per session at a time: agents never block the
        event loop, and a second request while one is being decided is answered at once with 409 (so one tab
        cannot fill the thread pool that every tab shares)."""
        session = sessions.get(request.headers.get("x-session"))
        if not session.lock.acquire(blocking=False):
            raise RequestError(409, BUSY)

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

    async def answer(request: Request, work: Callable[[Session], Any]) -> JSONResponse:
        """Apply ``work`` and reply with the new state (plus whatever ``work`` returned)."""

        def work_then_state(s: Session):
            extra = work(s)
            return {**(extra or {}), "state": s.state()}

        return JSONResponse(await locked(request, work_then_state))

    # ------------------------------------------------------------------ pages and config
    async def index(request: Request):
        return FileResponse(STATIC / "index.html")

    async def get_config(request: Request):
        return JSONResponse(page_config)

    def config_for_page() -> dict[str, Any]:
        """What the page is told at start; built once here, where each level is tried under each preset."""
        choices = config.rule_choices()
        return {
            "agents": list(config.allowed), "partner": config.partner, "opponents": config.opponents,
            "rules": config.rules_label, "target": config.rules.target_score, "delay": config.delay,
            "duplicate_deals": config.duplicate_deals, "replay_dir": root is not None,
            "rule_choices": [{"label": label, "preset": label in PRESETS, "target": r.target_score, **r.to_dict()}
                             for label, r in choices.items()],
            "offered": {label: config.offered(label) for label in choices},
            "levels": list(LEVELS), "measured": MEASURED, "against_below": AGAINST_BELOW, "max_target": MAX_TARGET,
        }

    async def new_session(request: Request):
        data = await json_body(request)
        sessions.make_room()  # refuse before the agents are loaded
        session = await run_in_threadpool(Session, config, next(counter))
        if any(data.get(k) is not None for k in GAME_KEYS):
            await run_in_threadpool(session.new_game, *(data.get(k) for k in GAME_KEYS))
        sid = sessions.add(session)
        return JSONResponse({"session": sid, "state": await run_in_threadpool(session.state)})

    page_config = config_for_page()

    # ------------------------------------------------------------------ the table
    async def get_state(request: Request):
        return await answer(request, lambda s: None)

    async def new_game(request: Request):
        data = await json_body(request)
        return await answer(request, lambda s: s.new_game(*(data.get(k) for k in GAME_KEYS)))

    async def new_duplicate(request: Request):
        data = await json_body(request)
        return await answer(request, lambda s: s.start_duplicate(data.get("partner"), data.get("opponents")))

    async def act(request: Request):
        data = await json_body(request)
        if "action" not in data:
            raise RequestError(400, 'the body must be {"action": N}')
        return await answer(request, lambda s: s.act(data["action"]))

    async def advance(request: Request):
        return await answer(request, lambda s: {"action": s.advance()})

    async def next_deal(request: Request):
        return await answer(request, lambda s: s.next_deal())

    async def hint(request: Request):
        return JSONResponse(await locked(request, lambda s: s.hint()))

    # ------------------------------------------------------------------ replays
    def entries_of(session: Session, source: str) -> list[dict]:
        kind, _, name = source.partition(":")
        if kind == "game":
            return session.game_records()
        if kind == "upload":
            if name not in session.uploads:
                raise RequestError(404, f"no upload named {name!r} in this tab")
            return parse_records(session.uploads[name]["text"], name)
        if kind == "dir":
            if root is None:
                raise RequestError(404, "this server has no replay directory (start it with --replay-dir DIR)")
            if name not in list_replay_files(root):
                raise RequestError(404, f"{name!r} is not a record file in the replay directory")
            path = (root / name).resolve()
            if not path.is_relative_to(root) or path.stat().st_size > MAX_BODY_BYTES:
                raise RequestError(404, f"{name!r} is not a record file in the replay directory")
            return parse_records(path.read_text(encoding="utf-8", errors="replace"), name)
        raise RequestError(400, "source must be game, upload:NAME or dir:NAME")

    async def replay_files(request: Request):
        return JSONResponse({"files": await run_in_threadpool(list_replay_files, root), "dir": root is not None})

    async def replay_deals(request: Request):
        source = request.query_params.get("source", "")

        def work(s: Session):
            if source.startswith("upload:") and source[7:] in s.uploads:
                return {"source": source, "entries": s.uploads[source[7:]]["entries"]}
            return {"source": source, "entries": listing(entries_of(s, source))}

        return JSONResponse(await locked(request, work))

    async def replay_open(request: Request):
        source = request.query_params.get("source", "")
        try:
            index = int(request.query_params.get("index", ""))
        except ValueError:
            raise RequestError(400, "index must be an integer") from None

        def work(s: Session):
            entries = entries_of(s, source)
            if not 0 <= index < len(entries):
                raise RequestError(404, f"index {index} is out of range: the source holds {len(entries)} records")
            entry = entries[index]
            return {"record": validate_record(entry["record"]), "players": entry["players"], "meta": entry["meta"],
                    "title": summary(entry, index)}

        return JSONResponse(await locked(request, work))

    async def replay_review(request: Request):
        """Your decisions in one of this tab's finished hands, each beside the Hint's (see :mod:`.review`)."""
        try:
            index = int(request.query_params.get("index", ""))
        except ValueError:
            raise RequestError(400, "index must be an integer") from None

        def work(s: Session):
            entries = s.game_records()
            if not 0 <= index < len(entries):
                raise RequestError(404, f"index {index} is out of range: this tab has {len(entries)} finished deals")
            entry = entries[index]
            if entry["meta"].get("seat0") == "computer":
                raise RequestError(400, "that is the computer's play from your seat: review one of your own")
            return {"index": index, "decisions": review(validate_record(entry["record"]))}

        return JSONResponse(await locked(request, work))

    async def replay_upload(request: Request):
        data = await json_body(request)
        name, text = data.get("name"), data.get("text")
        if not isinstance(name, str) or not isinstance(text, str) or not name:
            raise RequestError(400, 'the body must be {"name": "file name", "text": "the file\'s contents"}')
        name = Path(name).name[:100] or "upload"

        def work(s: Session):
            entries = listing(parse_records(text, name))
            old = s.uploads.pop(name, None)  # the same name again replaces it
            try:
                budget.take(len(text) - (len(old["text"]) if old else 0))
            except RequestError:
                if old:
                    s.uploads[name] = old
                raise
            drop_uploads(s, len(s.uploads) + 1 - MAX_UPLOADS)
            s.uploads[name] = {"text": text, "entries": entries}
            return {"source": f"upload:{name}", "entries": entries}

        return JSONResponse(await locked(request, work))

    # ------------------------------------------------------------------ errors
    async def request_error(request: Request, exc: RequestError):
        return _error(exc.status, exc.message)

    async def record_error(request: Request, exc: RecordError):
        return _error(422, f"refused: {exc}")

    async def http_error(request: Request, exc: HTTPException):
        return _error(exc.status_code, exc.detail)

    async def engine_error(request: Request, exc: EngineError):  # an external engine failed; it was stopped
        return _error(503, f"{exc}: start a new game (a new game starts the engine again)")

    async def server_error(request: Request, exc: Exception):  # a failing agent, say: the page still gets JSON
        return _error(500, f"server error: {type(exc).__name__}: {exc}")

    routes = [
        Route("/", index),
        Route("/api/config", get_config),
        Route("/api/session", new_session, methods=["POST"]),
        Route("/api/state", get_state),
        Route("/api/new", new_game, methods=["POST"]),
        Route("/api/duplicate", new_duplicate, methods=["POST"]),
        Route("/api/act", act, methods=["POST"]),
        Route("/api/advance", advance, methods=["POST"]),
        Route("/api/next", next_deal, methods=["POST"]),
        Route("/api/hint", hint),
        Route("/api/replay/files", replay_files),
        Route("/api/replay/deals", replay_deals),
        Route("/api/replay/open", replay_open),
        Route("/api/replay/upload", replay_upload, methods=["POST"]),
        Route("/api/review", replay_review),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    middleware = [Middleware(_SecurityHeaders)]
    if "*" not in allowed_hosts:
        middleware.insert(0, Middleware(TrustedHostMiddleware, allowed_hosts=list(allowed_hosts)))
    app = Starlette(routes=routes, middleware=middleware,
                    exception_handlers={RequestError: request_error, RecordError: record_error,
                                        HTTPException: http_error, EngineError: engine_error,
                                        Exception: server_error})
    app.state.sessions = sessions
    app.state.uploads = budget
    app.state.config = config
    return app
