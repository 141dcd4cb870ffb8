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
them, and a query ends up in logs and ``Referer`` headers.

Only the static shell (the page, its scripts and stylesheets, which hold no
data) and the proof (``GET /api/proof?nonce=HEX``) are served without the
header. The proof is how the page checks that whatever answers on this port
knows the credential *before* sending it: the page picks a fresh random nonce
and the server answers ``HMAC-SHA256(key=token, msg="dsh-web-proof:" + nonce)``,
which only a holder of the token can compute and which does not reveal it. So a
program that took the port while the server was down never gets the token from
a page left open (see docs/web.md, Security). Writes also need an ``Origin`` naming this
server when the browser sends one, and every request a ``Host`` naming the
address the server bound (no DNS rebinding).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

HEADER = "authorization"
SCHEME = "bearer "
#: the server's proof that it knows the credential, asked for without it
PROOF_PATH = "/api/proof"
PROOF_CONTEXT = b"dsh-web-proof:"
#: the page sends 32 random bytes; accept 16 to 64, in hex
NONCE = re.compile(r"[0-9a-fA-F]{32,128}")

Scope = dict[str, Any]
App = Callable[[Scope, Any, Any], Awaitable[None]]


def public(method: str, path: str) -> bool:
    """The static shell: readable without the credential, since it holds no data."""
    return method in ("GET", "HEAD") and (path in ("/", "/plugins.css") or path.startswith("/static/"))


def proof(token: str, nonce: str) -> str:
    """``hex(HMAC-SHA256(key=token, msg="dsh-web-proof:" + nonce))``: what the page expects of the server."""
    return hmac.new(token.encode(), PROOF_CONTEXT + nonce.encode("ascii"), hashlib.sha256).hexdigest()


def _nonce(query: bytes) -> str | None:
    """The one ``nonce`` parameter of a query string, when it is hex of a sane length."""
    values = [part[len(b"nonce=") :] for part in query.split(b"&") if part.startswith(b"nonce=")]
    if len(values) != 1:
        return None
    text = values[0].decode("latin-1")
    return text if NONCE.fullmatch(text) else None


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
        if scope.get("path") == PROOF_PATH and method in ("GET", "HEAD"):
            nonce = _nonce(scope.get("query_string", b""))
            if nonce is None:
                await plain(send, 400, "nonce must be 32 to 128 hex digits, given once")
                return
            body = json.dumps({"proof": proof(self._token.decode(), nonce)}).encode()
            await _answer(send, 200, b"application/json", body, [])
            return
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
