"""The web client's routes: the page, its JSON API and the SSE stream.

Errors reach the page as ``{"error": "..."}`` with a 4xx status; only the
project's own error types are turned into messages (anything else is a 500
that names no internals).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from importlib import resources
from typing import Any

import trio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from hookspecs.errors import DshError
from hookspecs.protocols import Host
from hookspecs.values import Card, field_named

from .approvals import WebApprover
from .bodies import TOO_LARGE, read_json
from .conversations import Conversations
from .feed import Feed
from .forms import find_tab, form_payload, load_form, save_form, tab_payload
from .payloads import card_payload, clean

#: a comment line on an idle stream, so proxies and the browser keep it open
HEARTBEAT_SECONDS = 15.0
STATIC = resources.files("harness.web") / "static"


class WebClient:
    """The app's state: the host's conversations, the feed and the approver."""

    def __init__(self, host: Host, conversations: Conversations, feed: Feed, approver: WebApprover) -> None:
        self.host = host
        self.conversations = conversations
        self.feed = feed
        self.approver = approver

    def card_item(self, card: Card) -> dict[str, Any]:
        return {"kind": "card", "card": card_payload(card, self.host.client.view(card))}

    # --- page ------------------------------------------------------------------------------

    async def index(self, request: Request) -> Response:
        """The shell only, served without the credential: the page reads it from its fragment or storage."""
        return HTMLResponse((STATIC / "index.html").read_text(encoding="utf-8"), headers=_NO_STORE | _CSP)

    async def plugin_css(self, request: Request) -> Response:
        """Every plugin stylesheet, each under a comment naming its plugin (the
        values were checked when registered: plain CSS, nothing fetched)."""
        parts = [f"/* {clean(sheet.plugin, 80).replace('*/', '* /')} */\n{sheet.css}" for sheet in self.host.client.stylesheets()]
        return Response("\n\n".join(parts), media_type="text/css", headers=_NO_STORE)

    # --- sessions --------------------------------------------------------------------------

    async def sessions(self, request: Request) -> Response:
        if request.method == "POST":
            return _json({"id": await self.conversations.create()})
        return _json({"sessions": self.conversations.sessions()})

    async def events(self, request: Request) -> Response:
        session_id = request.path_params["session_id"]
        after = _int(request, "after", -1)
        events, payloads = self.conversations.read(session_id, after)
        cards = self.host.client.restore(session_id, events) if after < 0 else []
        return _json(
            {
                "events": payloads,
                "last_seq": events[-1].seq if events else after,
                "parent": self.conversations.parent(session_id) if after < 0 else None,
                "cards": [self.card_item(c)["card"] for c in cards],
                "approvals": self.approver.pending(),
                "notices": self.feed.notices.recent(session_id),
            }
        )

    async def stream(self, request: Request) -> Response:
        session_id = request.path_params["session_id"]
        after = _int(request, "after", -1)
        receive, unsubscribe = self.feed.subscribe(session_id)
        try:
            events, payloads = self.conversations.read(session_id, after)
        except BaseException:
            unsubscribe()
            raise
        # Approvals, cards and notices are pushed live only: one published before
        # this subscription (the page posts its first prompt without waiting for
        # the stream) would never reach the page. Taken with the subscription, no
        # await between, so nothing falls in a gap; the page ignores repeats.
        pending = [{"kind": "approval", "approval": a} for a in self.approver.pending()]
        cards = [self.card_item(c) for c in self.host.client.cards(session_id)]
        notices = [{"kind": "notice", **n} for n in self.feed.notices.recent(session_id)]

        async def body() -> AsyncIterator[str]:
            last = events[-1].seq if events else after
            try:
                for payload in payloads:
                    yield _sse({"kind": "event", "event": payload})
                for item in (*cards, *notices, *pending):
                    yield _sse(item)
                yield _sse({"kind": "ready", "last_seq": last})
                async with receive:
                    while True:
                        with trio.move_on_after(HEARTBEAT_SECONDS):
                            try:
                                item = await receive.receive()
                            except trio.EndOfChannel:
                                return
                            if item.get("kind") == "event":
                                if item["event"]["seq"] <= last:
                                    continue  # already replayed from the log
                                last = item["event"]["seq"]
                            yield _sse(item)
                            continue
                        yield ": heartbeat\n\n"
            finally:
                unsubscribe()

        return StreamingResponse(body(), media_type="text/event-stream", headers=_NO_STORE)

    async def send(self, request: Request) -> Response:
        text = str((await read_json(request)).get("text", ""))
        if not text.strip():
            raise DshError("text is empty", code="USAGE")
        return _json(await self.conversations.send(request.path_params["session_id"], text))

    async def card_action(self, request: Request) -> Response:
        command = str((await read_json(request)).get("command", ""))
        if not command.startswith("/"):
            raise DshError("command must be a slash command", code="USAGE")
        return _json(await self.conversations.send(request.path_params["session_id"], command))

    async def abort(self, request: Request) -> Response:
        return _json({"aborted": self.conversations.abort(request.path_params["session_id"])})

    async def commands(self, request: Request) -> Response:
        return _json({"commands": self.conversations.commands()})

    async def approvals(self, request: Request) -> Response:
        """Every pending approval, for a page that shows no session yet (it has no stream)."""
        return _json({"approvals": self.approver.pending()})

    async def approval(self, request: Request) -> Response:
        body = await read_json(request)
        session_id = body.get("session_id")
        if not isinstance(session_id, str) or not session_id:
            raise DshError("session_id must name the session the page shows", code="USAGE")
        self.approver.answer(request.path_params["request_id"], session_id, body.get("allow") is True)
        return _json({"ok": True})

    # --- settings --------------------------------------------------------------------------

    async def tabs(self, request: Request) -> Response:
        return _json({"tabs": [tab_payload(t) for t in self.host.client.settings_tabs()]})

    async def tab(self, request: Request) -> Response:
        tab = find_tab(self.host, request.path_params["namespace"])
        if request.method == "POST":
            values = (await read_json(request)).get("values")
            if not isinstance(values, dict) or not values:
                raise DshError("values must be a non-empty object", code="USAGE")
            try:
                errors = dict(await save_form(self.host, tab, values))
            except DshError as exc:  # a write the plugin could not place at a field
                errors = {field_named(exc.message, list(values)): exc.message}
            if errors:
                return _json({"ok": False, "errors": {clean(k, 200): clean(v, 1000) for k, v in errors.items()}}, 422)
        form = await load_form(self.host, tab)
        return _json({"ok": True, "tab": tab_payload(tab), "form": form_payload(form)})


_NO_STORE = {"cache-control": "no-store"}
_STATUS = {"NOT_FOUND": 404, "CONFLICT": 409, TOO_LARGE: 413}
# the page loads only its own script and style; nothing inline runs
_CSP = {
    "content-security-policy": "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
}


def _json(value: Any, status: int = 200) -> JSONResponse:
    return JSONResponse(value, status_code=status, headers=_NO_STORE)


def _sse(item: dict[str, Any]) -> str:
    return "data: " + json.dumps(item, ensure_ascii=False) + "\n\n"


def _int(request: Request, name: str, default: int) -> int:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    try:
        return int(raw)
    except ValueError:
        raise DshError(f"query parameter {name} must be an integer", code="USAGE") from None


def _errors(handler: Callable[[Request], Awaitable[Response]]) -> Callable[[Request], Awaitable[Response]]:
    async def wrapped(request: Request) -> Response:
        try:
            return await handler(request)
        except DshError as exc:
            status = _STATUS.get(exc.code, 400)
            return _json({"error": clean(exc.message, 1000)}, status)

    return wrapped


def build_app(client: WebClient) -> Starlette:
    def route(path: str, handler: Callable[[Request], Awaitable[Response]], methods: list[str]) -> Route:
        return Route(path, _errors(handler), methods=methods)

    return Starlette(
        routes=[
            route("/", client.index, ["GET"]),
            route("/plugins.css", client.plugin_css, ["GET"]),
            route("/api/sessions", client.sessions, ["GET", "POST"]),
            route("/api/sessions/{session_id}/events", client.events, ["GET"]),
            route("/api/sessions/{session_id}/stream", client.stream, ["GET"]),
            route("/api/sessions/{session_id}/send", client.send, ["POST"]),
            route("/api/sessions/{session_id}/card-action", client.card_action, ["POST"]),
            route("/api/sessions/{session_id}/abort", client.abort, ["POST"]),
            route("/api/commands", client.commands, ["GET"]),
            route("/api/approvals", client.approvals, ["GET"]),
            route("/api/approvals/{request_id}", client.approval, ["POST"]),
            route("/api/settings/tabs", client.tabs, ["GET"]),
            route("/api/settings/tabs/{namespace}", client.tab, ["GET", "POST"]),
            Mount("/static", app=StaticFiles(directory=str(STATIC)), name="static"),
        ]
    )
