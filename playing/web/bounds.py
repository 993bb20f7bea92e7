"""What one request, or all uploads together, may cost the server: each limit is refused with a JSON message.

The body limit is enforced while the body streams in (a chunked body has no Content-Length to check first);
JSON that Python refuses to build (a 5,000-digit integer, nesting past the recursion limit) is a 400, not a 500;
uploads are held as text (a tenth of their parsed size) under one budget for the whole server.
"""
from __future__ import annotations

import threading
from typing import Any, Callable

from starlette.requests import Request

from .records import loads
from .session import RequestError

MAX_BODY_BYTES = 32 * 2**20
MAX_HELD_UPLOAD_BYTES = 128 * 2**20  # all tabs' uploads together
MAX_UPLOADS = 8  # per session; the oldest is dropped past this


async def read_body(request: Request, limit: int, error: Callable[[int, str], Exception], too_big: str) -> bytes:
    """The request's body, read chunk by chunk: ``error(413, too_big)`` past ``limit`` bytes whatever the
    Content-Length claims, ``error(400, ...)`` for a Content-Length that is not an integer. Both servers' bodies
    come through here (the web table's and the advisor's, each with its own limit and error type)."""
    try:
        declared = int(request.headers.get("content-length") or 0)
    except ValueError:
        raise error(400, "Content-Length must be an integer") from None
    if declared > limit:
        raise error(413, too_big)
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise error(413, too_big)
        chunks.append(chunk)
    return b"".join(chunks)


async def json_body(request: Request) -> dict[str, Any]:
    """The request's JSON object (``{}`` for no body), read chunk by chunk up to :data:`MAX_BODY_BYTES`."""
    raw = await read_body(request, MAX_BODY_BYTES, RequestError, f"the request is over {MAX_BODY_BYTES // 2**20} MiB")
    if not raw:
        return {}
    try:
        data = loads(raw)
    except (ValueError, UnicodeDecodeError) as e:
        raise RequestError(400, f"the request body must be a JSON object: {str(e)[:80]}") from None
    if not isinstance(data, dict):
        raise RequestError(400, "the request body must be a JSON object")
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
                raise RequestError(503, f"the server already holds {self.held // 2**20} MiB of opened files "
                                        f"(at most {self.limit // 2**20} MiB for all tabs): open a smaller file, "
                                        "or try again when other tabs have closed")
            self.held += n

    def give(self, n: int) -> None:
        with self._lock:
            self.held -= n
