"""The per-launch token gate, as plain ASGI middleware (it must not buffer SSE).

Every request carries the token: the launch URL's ``?token=`` once (it is
swapped for an ``HttpOnly``, ``SameSite=Strict`` cookie and a redirect that
drops it from the address bar), then the cookie. Writes (anything but GET and
HEAD) also need the ``X-DSH-Token`` header, which a cross-site form or image
cannot send, and a matching ``Origin`` when the browser sends one. The
``Host`` header must name the address the server bound (no DNS rebinding).
"""

from __future__ import annotations

import hmac
from collections.abc import Awaitable, Callable, Iterable
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qs, urlencode

COOKIE = "dsh_token"
HEADER = "x-dsh-token"

Scope = dict[str, Any]
App = Callable[[Scope, Any, Any], Awaitable[None]]


class TokenGate:
    def __init__(self, app: App, token: str, hosts: Iterable[str]) -> None:
        self._app = app
        self._token = token
        self._hosts = frozenset(hosts)

    def _valid(self, candidate: str | None) -> bool:
        return bool(candidate) and hmac.compare_digest(str(candidate).encode(), self._token.encode())

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        host = headers.get("host", "")
        if host not in self._hosts:
            await _plain(send, 421, "unknown Host header; open the URL harness serve printed")
            return
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        cookie = SimpleCookie(headers.get("cookie", ""))
        cookie_token = cookie[COOKIE].value if COOKIE in cookie else None
        method = scope.get("method", "GET")
        if method in ("GET", "HEAD") and self._valid((query.get("token") or [None])[0]):
            rest = {k: v for k, v in query.items() if k != "token"}
            location = scope.get("path", "/") + (("?" + urlencode(rest, doseq=True)) if rest else "")
            await _redirect(send, location, f"{COOKIE}={self._token}; HttpOnly; SameSite=Strict; Path=/")
            return
        if not (self._valid(cookie_token) or self._valid(headers.get(HEADER))):
            await _plain(send, 403, "missing or wrong token; open the URL harness serve printed")
            return
        if method not in ("GET", "HEAD"):
            origin = headers.get("origin")
            if not self._valid(headers.get(HEADER)) or (origin is not None and origin != f"http://{host}"):
                await _plain(send, 403, "a write needs the X-DSH-Token header from the page itself")
                return
        await self._app(scope, receive, send)


async def _plain(send: Any, status: int, text: str) -> None:
    body = (text + "\n").encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})


async def _redirect(send: Any, location: str, cookie: str) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": 303,
            "headers": [
                (b"location", location.encode("latin-1")),
                (b"set-cookie", cookie.encode("latin-1")),
                (b"content-length", b"0"),
                (b"cache-control", b"no-store"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": b""})
