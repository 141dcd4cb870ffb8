"""A tiny scripted HTTP/1.1 server on loopback, for the openai-compatible adapter.

It speaks just enough HTTP for an HTTP/1.1 client: one request at a time per connection,
``Content-Length`` request bodies, keep-alive, and responses framed as
``chunked``, ``length`` or close-delimited. Each request takes the next queued
:class:`Reply` (or ``default``) and is recorded as a :class:`Received`.

A reply body is a sequence of steps: ``bytes`` are sent (one HTTP chunk each
when chunked), :class:`Delay` sleeps (trio time), :class:`Disconnect` closes
the connection on the spot, mid-body. ``bench/adapter_overhead.py`` imports
this module too (by path), so the bench and the tests exercise one server.

:meth:`ScriptedServer.connect_in_memory` serves the same script without a
socket, over ``trio.testing.memory_stream_pair``: the adapter's ``connect``
for tests on trio's MockClock (no real I/O, so autojump is exact).
"""

from __future__ import annotations

import functools
import json
import ssl
from collections import deque
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from http import HTTPStatus
from typing import Any, Literal

import attrs
import trio
import trio.testing

MAX_HEAD = 64 * 1024


@attrs.frozen
class Delay:
    seconds: float


@attrs.frozen
class Disconnect:
    """Close the connection here: the client sees a body that never ended."""


Step = bytes | Delay | Disconnect
Framing = Literal["chunked", "length", "close"]


@attrs.frozen(kw_only=True)
class Reply:
    status: int = 200
    headers: Mapping[str, str] = attrs.field(factory=dict)
    body: Sequence[Step] = ()
    framing: Framing = "chunked"
    head_delay: float = 0.0  # before the status line

    @classmethod
    def sse(cls, body: Iterable[Step], **kwargs: Any) -> Reply:
        return cls(body=tuple(body), **kwargs)

    @classmethod
    def error(cls, status: int, payload: Any, headers: Mapping[str, str] | None = None) -> Reply:
        text = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        merged = {"content-type": "application/json", **(headers or {})}
        return cls(status=status, headers=merged, body=(text,), framing="length")


@attrs.frozen(kw_only=True)
class Received:
    method: str
    target: str
    headers: Mapping[str, str]  # names lower-cased
    body: bytes
    at: float = 0.0  # trio time the request was read

    def json(self) -> Any:
        return json.loads(self.body)


class ScriptedServer:
    """Serve queued replies on ``127.0.0.1:<ephemeral port>``; see the module docs."""

    def __init__(self, replies: Iterable[Reply] = (), *, default: Reply | None = None) -> None:
        self.replies: deque[Reply] = deque(replies)
        self.default = default
        self.requests: list[Received] = []
        self.connections = 0
        self.port = 0
        self.tls = False

    @property
    def base_url(self) -> str:
        return f"https://localhost:{self.port}/v1" if self.tls else f"http://127.0.0.1:{self.port}/v1"

    def add(self, *replies: Reply) -> None:
        self.replies.extend(replies)

    async def start(self, nursery: trio.Nursery, *, tls: ssl.SSLContext | None = None) -> None:
        """Listen on loopback; with ``tls``, HTTPS (``base_url`` names ``localhost``)."""
        handler = self._handle if tls is None else functools.partial(self._handle_tls, tls)
        listeners = await nursery.start(functools.partial(trio.serve_tcp, handler, 0, host="127.0.0.1"))
        self.port = listeners[0].socket.getsockname()[1]
        self.tls = tls is not None

    async def _handle_tls(self, context: ssl.SSLContext, stream: trio.SocketStream) -> None:
        tls = trio.SSLStream(stream, context, server_side=True)
        try:
            await tls.do_handshake()
        except trio.BrokenResourceError:  # the client refused the certificate
            await trio.aclose_forcefully(stream)
            return
        await self._handle(tls)

    def connect_in_memory(self, nursery: trio.Nursery) -> Callable[[object], Awaitable[trio.abc.Stream]]:
        """A ``connect`` for the adapter: each connection an in-memory stream
        pair whose far end this server serves in ``nursery``."""

        async def connect(_origin: object) -> trio.abc.Stream:
            client, server = trio.testing.memory_stream_pair()
            nursery.start_soon(self._handle, server)
            return client

        return connect

    # --- one connection -------------------------------------------------------------

    async def _handle(self, stream: trio.abc.Stream) -> None:
        self.connections += 1
        reader = _RequestReader(stream)
        try:
            while True:
                request = await reader.next()
                if request is None:
                    return
                self.requests.append(request)
                keep_alive = await self._respond(stream, self._take())
                if not keep_alive or request.headers.get("connection", "").lower() == "close":
                    return
        except (trio.BrokenResourceError, trio.ClosedResourceError, ConnectionError):
            return  # the client went away: normal for cancellation tests
        finally:
            await trio.aclose_forcefully(stream)

    def _take(self) -> Reply:
        if self.replies:
            return self.replies.popleft()
        if self.default is not None:
            return self.default
        return Reply.error(500, {"error": {"message": "test server: no scripted reply left"}})

    async def _respond(self, stream: trio.abc.Stream, reply: Reply) -> bool:
        """Send ``reply``; False when the connection must close afterwards."""
        if reply.head_delay:
            await trio.sleep(reply.head_delay)
        headers = {k.lower(): v for k, v in reply.headers.items()}
        if reply.status == 200:
            headers.setdefault("content-type", "text/event-stream")
        if reply.framing == "chunked":
            headers["transfer-encoding"] = "chunked"
        elif reply.framing == "length":
            headers["content-length"] = str(sum(len(s) for s in reply.body if isinstance(s, bytes)))
        else:
            headers["connection"] = "close"
        reason = HTTPStatus(reply.status).phrase if reply.status in HTTPStatus._value2member_map_ else "Status"
        head = f"HTTP/1.1 {reply.status} {reason}\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers.items())
        await stream.send_all(head.encode("latin-1") + b"\r\n")
        for step in reply.body:
            if isinstance(step, Delay):
                await trio.sleep(step.seconds)
            elif isinstance(step, Disconnect):
                return False
            elif step:
                data = b"%x\r\n%s\r\n" % (len(step), step) if reply.framing == "chunked" else step
                await stream.send_all(data)
        if reply.framing == "chunked":
            await stream.send_all(b"0\r\n\r\n")
        return reply.framing != "close"


class _RequestReader:
    def __init__(self, stream: trio.abc.Stream) -> None:
        self._stream = stream
        self._buffer = b""

    async def next(self) -> Received | None:
        while b"\r\n\r\n" not in self._buffer:
            if len(self._buffer) > MAX_HEAD:
                raise ConnectionError("request head too large")
            data = await self._stream.receive_some(65536)
            if not data:
                return None
            self._buffer += data
        head, self._buffer = self._buffer.split(b"\r\n\r\n", 1)
        request_line, *lines = head.decode("latin-1").split("\r\n")
        method, target, _version = request_line.split(" ", 2)
        headers: dict[str, str] = {}
        for line in lines:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        length = int(headers.get("content-length", "0"))
        while len(self._buffer) < length:
            data = await self._stream.receive_some(65536)
            if not data:
                return None
            self._buffer += data
        body, self._buffer = self._buffer[:length], self._buffer[length:]
        return Received(method=method, target=target, headers=headers, body=body, at=trio.current_time())
