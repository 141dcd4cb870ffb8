"""A small HTTP/1.1 client on trio and h11, for the LLM adapters (in place of
httpx, whose import cost a tenth of ``harness run``'s start).

What it does: :meth:`Client.send` sends one request (method, URL, headers,
a ``bytes`` body with ``Content-Length``; a caller's ``Content-Length`` or
``Transfer-Encoding`` is dropped) and returns a :class:`Response` as
soon as the status line and headers arrived; its body is streamed
(:meth:`Response.aiter_bytes`), decoded from ``gzip`` or ``deflate`` a
bounded piece at a time (:mod:`.http1_decode`; any other content-encoding is
a ``DecodingError``). Framing is h11's: ``Content-Length``, ``chunked`` or
close-delimited; ``1xx`` answers are skipped. A connection whose response was
read to its end is kept for the next request to the same origin (at most
:data:`KEEPALIVE_SECONDS` idle) and closed by :meth:`Client.aclose`; a kept
connection that fails before any byte of the response arrived (the server
closed it meanwhile) is retried on a fresh one. Connecting (TCP, TLS, a proxy
tunnel) is bounded by ``connect_timeout``; reads and writes by the caller's
cancel scopes. Connections, proxies and TLS: :mod:`.http1_transport`.

What it does not: HTTP/2, redirects (a 3xx is returned as is), cookies,
authentication beyond the headers the caller sets, ``Expect: 100-continue``,
streamed request bodies, trailers (ignored), connection limits.

Errors are :class:`HttpError`; :class:`TransportError` (connect, read, write,
proxy, timeouts, a peer closing mid-response, malformed HTTP) is what a
caller may retry. Messages never hold the request's headers.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING

import h11
import trio

from .http1_transport import (
    Connect,
    ConnectError,
    ConnectTimeout,
    DecodingError,
    HttpError,
    Origin,
    Proxy,
    ProxyError,
    ReadError,
    RemoteProtocolError,
    TransportError,
    UnsupportedURL,
    WriteError,
    default_tls_context,
    environment_proxy,
    open_stream,
    parse_url,
)

if TYPE_CHECKING:
    import ssl

    from .http1_decode import Decoder

__all__ = [
    "Client",
    "Connect",
    "ConnectError",
    "ConnectTimeout",
    "DecodingError",
    "HttpError",
    "Origin",
    "ProxyError",
    "ReadError",
    "RemoteProtocolError",
    "Response",
    "TransportError",
    "UnsupportedURL",
    "WriteError",
]

#: how long an idle kept connection may be reused (httpx's keep-alive expiry)
KEEPALIVE_SECONDS = 5.0
#: idle connections kept per origin
MAX_IDLE = 8
READ_SIZE = 64 * 1024
#: largest response head accepted (httpcore's limit)
MAX_HEAD = 100 * 1024

_Key = tuple[Origin, Origin | None]  # the origin, and the proxy it is reached through
_BROKEN = (trio.BrokenResourceError, trio.ClosedResourceError, OSError)


class _Connection:
    __slots__ = ("stream", "h11", "idle_since", "received", "written")

    def __init__(self, stream: trio.abc.Stream) -> None:
        self.stream = stream
        self.h11 = h11.Connection(h11.CLIENT, max_incomplete_event_size=MAX_HEAD)
        self.idle_since = 0.0
        self.received = False  # any byte of the current response
        self.written = True  # the whole request went out (else the stream is not fit for another)

    async def next_event(self) -> object:
        """The next h11 event of the response, reading as needed."""
        while True:
            try:
                event = self.h11.next_event()
            except h11.RemoteProtocolError as exc:
                raise RemoteProtocolError(str(exc)) from None
            if event is h11.PAUSED:  # a 101 to an Upgrade header: h11 would say PAUSED forever
                raise RemoteProtocolError("the server switched protocols (not HTTP/1.1 any more)")
            if event is not h11.NEED_DATA:
                return event
            try:
                data = await self.stream.receive_some(READ_SIZE)
            except _BROKEN as exc:
                raise ReadError(str(exc) or type(exc).__name__) from None
            if not data and self.h11.their_state is h11.SEND_RESPONSE:
                raise RemoteProtocolError("Server disconnected without sending a response.")  # httpcore's words
            self.received = self.received or bool(data)
            self.h11.receive_data(bytes(data))  # the same object when it is bytes already


class Client:
    """Sends requests; see the module docs. ``headers`` go on every request
    (the request's own win); ``verify`` makes the TLS context, called at the
    first TLS connection (None: certifi's bundle, or ``SSL_CERT_FILE`` /
    ``SSL_CERT_DIR`` with ``trust_env``); ``trust_env`` also takes proxies
    from the environment; ``connect`` replaces the network (tests)."""

    def __init__(
        self,
        *,
        connect_timeout: float | None = None,
        headers: Mapping[str, str] | None = None,
        verify: Callable[[], ssl.SSLContext | None] | None = None,
        trust_env: bool = True,
        connect: Connect | None = None,
    ) -> None:
        self._connect_timeout = connect_timeout
        self._headers = {k.lower(): v for k, v in (headers or {}).items()}
        self._verify = verify
        self._context: ssl.SSLContext | None = None
        self._trust_env = trust_env
        self._connect = connect
        self._idle: dict[_Key, list[_Connection]] = {}
        self._run: object = None  # the trio run the kept connections belong to
        self._closed = False

    async def send(
        self, method: str, url: str, *, headers: Mapping[str, str] | None = None, content: bytes = b""
    ) -> Response:
        """Send the request; the response once its head arrived (close it)."""
        target = parse_url(url)
        origin = target.origin
        proxy = environment_proxy(origin, os.environ) if self._trust_env and self._connect is None else None
        path = target.target
        merged = {"host": origin.authority, "accept": "*/*", "accept-encoding": "gzip, deflate"}
        merged["connection"] = "keep-alive"
        merged.update(self._headers)
        merged.update((k.lower(), v) for k, v in (headers or {}).items())
        # the framing is the client's own: a caller's would contradict the body sent
        merged.pop("transfer-encoding", None)
        merged.pop("content-length", None)
        if content or method not in ("GET", "HEAD"):
            merged["content-length"] = str(len(content))
        if proxy is not None and origin.scheme == "http":  # forwarded in absolute form
            path = f"http://{origin.authority}{path}"
            merged.update(proxy.headers)
        key = (origin, proxy.url.origin if proxy else None)
        try:
            request: h11.Request | None = h11.Request(method=method, target=path, headers=list(merged.items()))
        except (h11.LocalProtocolError, UnicodeError):
            request = None
        # raised out here: h11's error quotes the value (maybe a credential) and would be its __context__
        if request is None:
            raise HttpError("a request header is not valid HTTP/1.1 (not ASCII, or a control character)")
        while True:
            conn = await self._take_idle(key)
            kept = conn is not None
            if conn is None:
                conn = await self._open(origin, proxy)
            try:
                event = await self._exchange(conn, request, content)
            except TransportError:
                if kept and not conn.received:
                    continue  # the server had closed the kept connection: a fresh one
                raise
            return Response(self, conn, key, event)

    async def aclose(self) -> None:
        """Close the kept connections; responses still open close their own."""
        self._closed = True
        idle, self._idle = self._idle, {}
        await _close_all(conn for conns in idle.values() for conn in conns)

    # --- connections ---------------------------------------------------------------------

    async def _open(self, origin: Origin, proxy: Proxy | None) -> _Connection:
        with trio.move_on_after(self._connect_timeout if self._connect_timeout is not None else float("inf")) as scope:
            return _Connection(await open_stream(origin, proxy, self._tls, self._connect))
        assert scope.cancelled_caught
        raise ConnectTimeout(f"no connection within {self._connect_timeout:g}s")

    def _tls(self) -> ssl.SSLContext:
        if self._context is None:
            import ssl

            context = (self._verify() if self._verify is not None else None) or default_tls_context(
                trust_env=self._trust_env
            )
            # a context that skips the certificate or hostname check is a slip, never honoured
            if context.verify_mode != ssl.CERT_REQUIRED or not context.check_hostname:
                raise HttpError("the TLS context does not check certificates and host names")
            context.set_alpn_protocols(["http/1.1"])
            self._context = context
        return self._context

    async def _take_idle(self, key: _Key) -> _Connection | None:
        run = trio.lowlevel.current_trio_token()
        if run is not self._run:  # a stream of an ended run is never reused; closed here
            self._run, stale, self._idle = run, self._idle, {}
            await _close_all(conn for conns in stale.values() for conn in conns)
        conns = self._idle.get(key)
        while conns:
            conn = conns.pop()
            if trio.current_time() - conn.idle_since <= KEEPALIVE_SECONDS:
                return conn
            await trio.aclose_forcefully(conn.stream)
        return None

    def _keep(self, key: _Key, conn: _Connection) -> bool:
        """Keep ``conn`` (its response was read to the end) if it can serve another request:
        the whole request was written, and nothing came after the response (else
        the next request would read it as its answer)."""
        if self._closed or conn.h11.our_state is not h11.DONE or conn.h11.their_state is not h11.DONE:
            return False
        if not conn.written or conn.h11.trailing_data[0] or trio.lowlevel.current_trio_token() is not self._run:
            return False
        conns = self._idle.setdefault(key, [])
        if len(conns) >= MAX_IDLE:
            return False
        conn.h11.start_next_cycle()
        conn.idle_since = trio.current_time()
        conn.received = False
        conns.append(conn)
        return True

    async def _exchange(self, conn: _Connection, request: h11.Request, content: bytes) -> h11.Response:
        """Send ``request`` on ``conn`` and read up to the response head; ``conn`` is closed on failure."""
        try:
            data = conn.h11.send(request) or b""
            if content:
                data += conn.h11.send(h11.Data(data=content)) or b""
            data += conn.h11.send(h11.EndOfMessage()) or b""
            try:
                await conn.stream.send_all(data)
            except _BROKEN as exc:
                conn.written = False
                failed = WriteError(str(exc) or type(exc).__name__)
                try:  # a server may answer (then close) before reading the whole request
                    return await self._head(conn)
                except HttpError:
                    raise failed from None
            return await self._head(conn)
        except BaseException:
            await trio.aclose_forcefully(conn.stream)
            raise

    @staticmethod
    async def _head(conn: _Connection) -> h11.Response:
        while True:
            event = await conn.next_event()
            if isinstance(event, h11.Response):
                return event
            # an informational (1xx) answer: the real one follows


async def _close_all(conns: Iterable[_Connection]) -> None:
    """Close each stream: shielded, or a cancelled caller would stop at the
    first and leave the rest open (each close is prompt: forceful)."""
    with trio.CancelScope(shield=True):
        for conn in conns:
            await trio.aclose_forcefully(conn.stream)


class Response:
    """A response whose body is still on the wire: ``status_code``, ``reason``,
    ``headers`` (names lower-case, repeated ones joined with ``", "``)."""

    def __init__(self, client: Client, conn: _Connection, key: _Key, head: h11.Response) -> None:
        self.status_code: int = head.status_code
        self.reason = head.reason.decode("latin-1")
        self.headers: dict[str, str] = {}
        for raw_name, raw_value in head.headers:
            name, value = raw_name.decode("latin-1"), raw_value.decode("latin-1")
            self.headers[name] = f"{self.headers[name]}, {value}" if name in self.headers else value
        self._client = client
        self._conn: _Connection | None = conn
        self._key = key

    def aiter_bytes(self) -> _Body:
        """The body as it arrives, decoded (see the module docs); iterate once."""
        return _Body(self)

    async def aclose(self) -> None:
        """Release the connection: kept when the body was read to its end, else closed."""
        conn, self._conn = self._conn, None
        if conn is not None:
            await trio.aclose_forcefully(conn.stream)

    async def _next_raw(self) -> bytes | None:
        """The next piece of the body as sent, or None at its end."""
        conn = self._conn
        if conn is None:
            return None
        try:
            while True:
                event = await conn.next_event()
                if isinstance(event, h11.Data):
                    return bytes(event.data)
                if isinstance(event, h11.EndOfMessage | h11.ConnectionClosed):
                    break
        except BaseException:
            await self.aclose()
            raise
        self._conn = None
        if not self._client._keep(self._key, conn):
            await trio.aclose_forcefully(conn.stream)
        return None


class _Body:
    """The async iterator of :meth:`Response.aiter_bytes` (a class, not a
    generator: an abandoned one needs no finalizing)."""

    def __init__(self, response: Response) -> None:
        self._response = response
        self._started = False  # the content-encoding is read at the first read: an unknown one fails there
        self._decoder: Decoder | None = None  # None: identity

    def __aiter__(self) -> _Body:
        return self

    async def __anext__(self) -> bytes:
        if not self._started:
            coding = self._response.headers.get("content-encoding", "")
            if coding.strip().lower() not in ("", "identity"):
                from .http1_decode import Decoder  # for a compressed body only (the adapter asks for none)

                layered = Decoder(coding)
                self._decoder = layered if layered.layers else None
            self._started = True
        decoder = self._decoder
        while True:
            if decoder is None:  # identity: as it arrives
                raw = await self._response._next_raw()
                if raw is None:
                    raise StopAsyncIteration
                if raw:
                    return raw
                continue
            out = decoder.next()  # at most MAX_STEP bytes, however much the input expands
            if out:
                return out
            if decoder.ended:
                raise StopAsyncIteration
            raw = await self._response._next_raw()
            if raw is None:
                decoder.end()
            else:
                decoder.feed(raw)
