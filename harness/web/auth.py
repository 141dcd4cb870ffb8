"""The credential gate, as plain ASGI middleware (it must not buffer SSE).

The credential is a random token kept in ``DSH_HOME/web-token`` (0600; made
when missing, rotated by ``harness serve --new-token``) and printed at each
launch in the URL's *fragment* (``/#token=…``): a browser never sends a fragment, so
it reaches no server, log or ``Referer``. The page moves it into
``localStorage``, which only its own origin (scheme, host and port) can read,
and sends it as ``Authorization: Bearer`` on every API request and on the event
stream (read with ``fetch``, which can send headers; ``EventSource`` cannot).

No cookie is set or read, and no query string is: a browser sends a host's
cookies to *every* port of that host, so another local app would receive
them (issue 19), and a query ends up in logs and ``Referer`` headers.

Only the static shell (the page, its scripts and stylesheets, which hold no
data) is served without the header. Writes also need an ``Origin`` naming this
server when the browser sends one, and every request a ``Host`` naming the
address the server bound (no DNS rebinding).
"""

from __future__ import annotations

import hmac
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

HEADER = "authorization"
SCHEME = "bearer "

Scope = dict[str, Any]
App = Callable[[Scope, Any, Any], Awaitable[None]]


def public(method: str, path: str) -> bool:
    """The static shell: readable without the credential, since it holds no data."""
    return method in ("GET", "HEAD") and (path in ("/", "/plugins.css") or path.startswith("/static/"))


class CredentialGate:
    def __init__(self, app: App, token: str, hosts: Iterable[str]) -> None:
        self._app = app
        self._token = token.encode()
        self._hosts = frozenset(hosts)

    def _valid(self, header: str | None) -> bool:
        if not header or not header.lower().startswith(SCHEME):
            return False
        return hmac.compare_digest(header[len(SCHEME) :].strip().encode(), self._token)

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        host = headers.get("host", "")
        if host not in self._hosts:
            await plain(send, 421, "unknown Host header: open the URL harness serve printed")
            return
        method = scope.get("method", "GET")
        if public(method, scope.get("path", "/")):
            await self._app(scope, receive, send)
            return
        if not self._valid(headers.get(HEADER)):
            extra = [(b"www-authenticate", b"Bearer")]
            if "text/html" in headers.get("accept", ""):  # a person opened an API address in the browser
                await page(send, 401, REFUSED_PAGE, extra)
            else:
                await plain(send, 401, "missing or wrong credential: open the URL harness serve printed", extra)
            return
        origin = headers.get("origin")
        if method not in ("GET", "HEAD") and origin is not None and origin != f"http://{host}":
            await plain(send, 403, "a write must come from the page itself (its Origin is not this server)")
            return
        await self._app(scope, receive, send)


#: what a browser opening a protected address without the credential is shown (fixed text, no script)
REFUSED_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>harness: access key needed</title><link rel="stylesheet" href="/static/app.css"></head>
<body><section id="credential-missing" role="alert">
<h1>This address needs the access key harness serve printed</h1>
<p>Open the URL harness serve printed (the one ending in <code>#token=…</code>) in this browser: find the terminal
where <code>harness serve</code> runs; its first line reads <code>harness serve: http://…/#token=…</code>.</p>
<p>The key stays the same across restarts with the same <code>DSH_HOME</code>, and changes when the server is
started with <code>--new-token</code>.</p>
</section></body></html>
"""


async def page(send: Any, status: int, html: str, extra: list[tuple[bytes, bytes]] | None = None) -> None:
    """A fixed HTML page (its own stylesheet, no script), never cached."""
    headers = [(b"content-security-policy", b"default-src 'none'; style-src 'self'"), (b"x-content-type-options", b"nosniff")]
    await _answer(send, status, b"text/html; charset=utf-8", html.encode(), headers + (extra or []))


async def plain(send: Any, status: int, text: str, extra: list[tuple[bytes, bytes]] | None = None) -> None:
    """A one-line ``text/plain`` answer, never cached."""
    await _answer(send, status, b"text/plain; charset=utf-8", (text + "\n").encode(), extra or [])


async def _answer(send: Any, status: int, content_type: bytes, body: bytes, extra: list[tuple[bytes, bytes]]) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", content_type),
                (b"content-length", str(len(body)).encode()),
                (b"cache-control", b"no-store"),
                *extra,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
