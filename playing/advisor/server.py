"""``tarneeb-serve``'s ASGI app (Starlette): the strong player's advice for a position, as JSON, for any program.

Stateless: every request carries the whole position (:mod:`.position`) and gets :func:`agents.explain.explain`'s
answer, the same one the web table's hint shows. Bounded as the web table bounds itself: the body is read up to
:data:`MAX_BODY_BYTES` while it streams, at most :data:`MAX_INFLIGHT` pieces of advice are computed at once (one
more is answered at once with 429 and ``Retry-After``, as the table answers a tab's second move with 409), and a
request asks for at most ``max_samples`` layouts. Every error is ``{"error": "..."}`` with a 4xx status. The
OpenAPI document is served at ``/openapi.json`` (built by Starlette's schema generator from the docstrings below).
"""
from __future__ import annotations

import threading
from typing import Any, Sequence

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.schemas import SchemaGenerator

from agents.explain import MAX_SAMPLES, explain, network_for
from tarneeb_env import PRESETS

from ..web.bounds import read_body
from ..web.session import RequestError
from ..web.records import loads
from .openapi import COMPONENTS, INFO
from .position import KEYS, PositionError, build_view

API_VERSION = 1
MAX_BODY_BYTES = 64 * 1024  # a position is under 2 KB
MAX_INFLIGHT = 2  # pieces of advice computed at once (each takes one core for up to about a second)
OPTION_KEYS = ("samples", "seed")
MAX_SEED = 2**63 - 1


def _error(status: int, message: str, headers: dict | None = None) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status, headers=headers)


async def _json_body(request: Request) -> Any:
    """The request's JSON, read chunk by chunk up to :data:`MAX_BODY_BYTES`; 400/413 otherwise."""
    try:
        raw = await read_body(request, MAX_BODY_BYTES)
    except RequestError as e:
        raise PositionError(e.status, str(e) + (": a position is far smaller" if e.status == 413 else "")) from None
    try:
        return loads(raw)
    except (ValueError, UnicodeDecodeError) as e:
        raise PositionError(400, f"the request body must be a JSON object (a position): {str(e)[:80]}") from None


def _options(body: dict, max_samples: int) -> tuple[int, int]:
    samples, seed = body.pop("samples", 0), body.pop("seed", 0)
    if isinstance(samples, bool) or not isinstance(samples, int) or not 0 <= samples <= max_samples:
        raise PositionError(400, f"samples: expected an int 0-{max_samples} (layouts searched; 0: the network "
                                 f"alone), got {samples!r}"[:200])
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise PositionError(400, f"seed: expected an int 0-{MAX_SEED}, got {seed!r}"[:200])
    return samples, seed


def advise(body: Any, max_samples: int = MAX_SAMPLES) -> dict[str, Any]:
    """The answer to one request body (a position plus ``samples`` and ``seed``); :class:`PositionError` else."""
    if not isinstance(body, dict):
        raise PositionError(400, "the request body must be a JSON object (a position)")
    body = dict(body)
    samples, seed = _options(body, max_samples)
    view = build_view(body)
    try:
        network_for(view.rules)
    except ValueError:
        raise PositionError(422, "no shipped network is trained for these rules: the advisor plays the presets "
                                 f"({', '.join(PRESETS)}), each with any target_score") from None
    advice = explain(view, samples=samples, seed=seed).to_dict()
    return {"api": API_VERSION, "rules": view.rules.name, "seat": view.seat, "phase": view.phase, **advice}


def create_app(max_samples: int = MAX_SAMPLES, max_inflight: int = MAX_INFLIGHT,
               allowed_hosts: Sequence[str] = ("127.0.0.1", "localhost", "[::1]"),
               cors_origins: Sequence[str] = ()) -> Starlette:
    """The advisor app; ``allowed_hosts`` guards against DNS rebinding, as the web table's does; ``cors_origins``
    are the web pages (origins) whose scripts may call it from a browser (none by default)."""
    slots = threading.BoundedSemaphore(max_inflight)

    async def index(request: Request):
        """
        responses:
          200:
            description: What this server is and where its API is described.
        """
        return JSONResponse({"name": "tarneeb-rl advisor", "api": API_VERSION, "openapi": "/openapi.json",
                             "advice": "POST /v1/advice", "max_samples": max_samples})

    async def advice(request: Request):
        """
        summary: The strong player's advice for a position.
        description: >
          The body is a position (the seat's hand, the dealer, the auction so far, the trump, the tricks so far,
          the scores) plus optional samples and seed. With samples 0 the answer is the shipped network's
          (its probabilities over the legal actions and its greedy action); with samples N it is what
          search?samples=N seeded with seed plays, with each reasonable candidate's mean net points and
          make/set chance over N layouts of the unseen cards.
        requestBody:
          required: true
          content:
            application/json:
              schema: {$ref: '#/components/schemas/AdviceRequest'}
        responses:
          200:
            description: The advice.
            content:
              application/json:
                schema: {$ref: '#/components/schemas/Advice'}
          400:
            description: Not a position (malformed JSON, a wrong type, an unknown key, a card that does not read).
            content: {application/json: {schema: {$ref: '#/components/schemas/Error'}}}
          413:
            description: The body is over 64 KiB.
            content: {application/json: {schema: {$ref: '#/components/schemas/Error'}}}
          422:
            description: A position that cannot happen (the reason is in error), or not the seat's turn.
            content: {application/json: {schema: {$ref: '#/components/schemas/Error'}}}
          429:
            description: The server is computing as much advice as it may at once; retry after Retry-After seconds.
            content: {application/json: {schema: {$ref: '#/components/schemas/Error'}}}
        """
        body = await _json_body(request)
        if not slots.acquire(blocking=False):
            return _error(429, f"busy: {max_inflight} pieces of advice are being computed; retry in a second",
                          {"retry-after": "1"})
        try:
            return JSONResponse(await run_in_threadpool(advise, body, max_samples))
        finally:
            slots.release()

    async def openapi(request: Request):
        return JSONResponse(schemas.get_schema(routes=app.routes))

    async def position_error(request: Request, exc: PositionError):
        return _error(exc.status, exc.message)

    async def http_error(request: Request, exc: HTTPException):
        return _error(exc.status_code, exc.detail)

    async def server_error(request: Request, exc: Exception):
        return _error(500, f"server error: {type(exc).__name__}: {exc}"[:300])

    schemas = SchemaGenerator({"openapi": "3.0.3", "info": INFO, "components": COMPONENTS})
    routes = [
        Route("/", index, methods=["GET"]),
        Route("/v1/advice", advice, methods=["POST"]),
        Route("/openapi.json", openapi, methods=["GET"], include_in_schema=False),
    ]
    middleware = []
    if cors_origins:
        middleware.append(Middleware(CORSMiddleware, allow_origins=list(cors_origins), allow_methods=["GET", "POST"],
                                     allow_headers=["content-type"], max_age=600))
    if "*" not in allowed_hosts:
        middleware.append(Middleware(TrustedHostMiddleware, allowed_hosts=list(allowed_hosts)))
    app = Starlette(routes=routes, middleware=middleware,
                    exception_handlers={PositionError: position_error, HTTPException: http_error,
                                        Exception: server_error})
    return app


__all__ = ["API_VERSION", "KEYS", "MAX_BODY_BYTES", "MAX_INFLIGHT", "OPTION_KEYS", "advise", "create_app"]
