"""Request bodies, bounded while they stream (a body is refused before it is
buffered, not after).

Two places, one limit. ``BodyLimit`` answers 413 at once, before the app runs,
when ``Content-Length`` says the body is over the limit (or is no number), so
not a byte of it is read. ``read_json`` counts a body without one (chunked) as
its pieces arrive and stops at the first piece past the limit, so a route
holds at most the limit plus one piece (hypercorn hands over one socket read,
64 KiB at most, per piece, and its queue to the app is bounded, so it stops
reading the socket too). The connection then closes; the rest is never read.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request

from hookspecs.errors import DshError

BODY_LIMIT = 1_000_000
#: the ``DshError`` code ``read_json`` raises; the routes answer it with 413
TOO_LARGE = "TOO_LARGE"

Scope = dict[str, Any]
App = Callable[[Scope, Any, Any], Awaitable[None]]


def too_large(limit: int) -> str:
    return f"request body over {limit} bytes"


class BodyLimit:
    """Refuses a declared ``Content-Length`` over the limit before reading any of it."""

    def __init__(self, app: App, limit: int = BODY_LIMIT) -> None:
        self._app = app
        self._limit = limit

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            declared = [v for k, v in scope.get("headers", []) if k.lower() == b"content-length"]
            if declared and not (declared[0].strip().isdigit() and int(declared[0]) <= self._limit):
                body = json.dumps({"error": too_large(self._limit)}).encode()
                await send(
                    {
                        "type": "http.response.start",
                        "status": 413,
                        "headers": [
                            (b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()),
                            (b"cache-control", b"no-store"),
                            (b"connection", b"close"),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": body})
                return
        await self._app(scope, receive, send)


async def read_json(request: Request, limit: int = BODY_LIMIT) -> dict[str, Any]:
    """The body as a JSON object, refused (``TOO_LARGE``) at the first piece past the limit."""
    pieces: list[bytes] = []
    size = 0
    async for piece in request.stream():
        size += len(piece)
        if size > limit:
            raise DshError(too_large(limit), code=TOO_LARGE)
        pieces.append(piece)
    try:
        value = json.loads(b"".join(pieces) or b"{}")
    except ValueError:
        raise DshError("request body is not JSON", code="USAGE") from None
    if not isinstance(value, dict):
        raise DshError("request body must be a JSON object", code="USAGE")
    return value
