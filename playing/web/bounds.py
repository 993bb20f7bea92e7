"""What one request, or all uploads together, may cost the server: each limit is refused with a JSON message.

The body limit is enforced while the body streams in (a chunked body has no Content-Length to check first);
JSON that Python refuses to build (a 5,000-digit integer, nesting past the recursion limit) is a 400, not a 500;
uploads are held as text (a tenth of their parsed size) under one budget for the whole server.
"""
from __future__ import annotations

import threading
from typing import Any

from starlette.requests import Request

from .records import loads
from .session import RequestError

MAX_BODY_BYTES = 32 * 2**20
MAX_HELD_UPLOAD_BYTES = 128 * 2**20  # all tabs' uploads together
MAX_UPLOADS = 8  # per session; the oldest is dropped past this


async def read_body(request: Request, limit: int) -> bytes:
    """The request's body, read chunk by chunk: :class:`RequestError` 413 past ``limit`` bytes whatever the
    Content-Length claims, 400 for a Content-Length that is not an integer. Both servers' bodies come through
    here (the web table's and the advisor's, each with its own limit)."""
    try:
        declared = int(request.headers.get("content-length") or 0)
    except ValueError:
        raise RequestError(400, "srv.content_length") from None
    size = f"{limit // 2**20} MiB" if limit >= 2**20 else f"{limit // 1024} KiB"
    too_big = RequestError(413, "srv.too_big", size=size)
    if declared > limit:
        raise too_big
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise too_big
        chunks.append(chunk)
    return b"".join(chunks)


async def json_body(request: Request) -> dict[str, Any]:
    """The request's JSON object (``{}`` for no body), read chunk by chunk up to :data:`MAX_BODY_BYTES`."""
    raw = await read_body(request, MAX_BODY_BYTES)
    if not raw:
        return {}
    try:
        data = loads(raw)
    except (ValueError, UnicodeDecodeError) as e:
        raise RequestError(400, "srv.body_json", detail=str(e)[:80]) from None
    if not isinstance(data, dict):
        raise RequestError(400, "srv.body_object")
    return data


class UploadBudget:
    """Bytes of upload text held by all sessions together; :meth:`take` refuses past :data:`MAX_HELD_UPLOAD_BYTES`."""

    def __init__(self, limit: int = MAX_HELD_UPLOAD_BYTES):
        self.limit = limit
        self.held = 0
        self._lock = threading.Lock()

    def take(self, n: int) -> None:
        with self._lock:
            if self.held + n > self.limit:
                raise RequestError(503, "srv.uploads_full", held=self.held // 2**20, limit=self.limit // 2**20)
            self.held += n

    def give(self, n: int) -> None:
        with self._lock:
            self.held -= n
