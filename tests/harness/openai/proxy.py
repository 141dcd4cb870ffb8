"""A tiny forward proxy on loopback, for the HTTP client's proxy tests.

``CONNECT host:port`` opens a tunnel (answered ``200``, or ``refuse`` as the
status when set); a request in absolute form (``POST http://host:port/path``)
is sent on to its origin in origin form, without ``Proxy-Authorization``.
Either way the bytes are then relayed both ways until one side closes. Each
request head the proxy read is recorded in :attr:`LoopbackProxy.heads`. With
``tls``, the proxy itself is reached over TLS (an ``https://`` proxy).
"""

from __future__ import annotations

import functools
import ssl

import attrs
import trio


@attrs.frozen
class Head:
    method: str
    target: str
    headers: dict[str, str]  # names lower-cased


class LoopbackProxy:
    def __init__(self, *, refuse: int | None = None, tls: ssl.SSLContext | None = None) -> None:
        self.refuse = refuse
        self.tls = tls
        self.heads: list[Head] = []
        self.port = 0

    @property
    def url(self) -> str:
        return f"https://localhost:{self.port}" if self.tls else f"http://127.0.0.1:{self.port}"

    async def start(self, nursery: trio.Nursery) -> None:
        listeners = await nursery.start(functools.partial(trio.serve_tcp, self._handle, 0, host="127.0.0.1"))
        self.port = listeners[0].socket.getsockname()[1]

    async def _handle(self, socket: trio.SocketStream) -> None:
        buffer = b""
        client: trio.abc.Stream = socket
        try:
            if self.tls is not None:
                client = trio.SSLStream(socket, self.tls, server_side=True)
            while b"\r\n\r\n" not in buffer:
                data = await client.receive_some(65536)
                if not data:
                    return
                buffer += data
            raw_head, rest = buffer.split(b"\r\n\r\n", 1)
            request_line, *lines = raw_head.decode("latin-1").split("\r\n")
            method, target, version = request_line.split(" ", 2)
            headers = {name.strip().lower(): value.strip() for name, _, value in (line.partition(":") for line in lines)}
            self.heads.append(Head(method, target, headers))
            if method == "CONNECT":
                if self.refuse is not None:
                    await client.send_all(b"HTTP/1.1 %d Refused\r\ncontent-length: 0\r\n\r\n" % self.refuse)
                    return
                host, _, port = target.rpartition(":")
                upstream = await trio.open_tcp_stream(host.strip("[]"), int(port))
                await client.send_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
            else:
                authority, _, path = target.removeprefix("http://").partition("/")
                host, _, port = authority.rpartition(":")
                upstream = await trio.open_tcp_stream(host, int(port))
                kept = "".join(f"{k}: {v}\r\n" for k, v in headers.items() if k != "proxy-authorization")
                await upstream.send_all(f"{method} /{path} {version}\r\n{kept}\r\n".encode("latin-1") + rest)
            async with upstream, trio.open_nursery() as nursery:
                nursery.start_soon(_relay, client, upstream, nursery.cancel_scope)
                nursery.start_soon(_relay, upstream, client, nursery.cancel_scope)
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            return
        finally:
            await trio.aclose_forcefully(client)


async def _relay(source: trio.abc.Stream, sink: trio.abc.Stream, done: trio.CancelScope) -> None:
    try:
        while data := await source.receive_some(65536):
            await sink.send_all(data)
    except (trio.BrokenResourceError, trio.ClosedResourceError):
        pass
    done.cancel()  # one side closed: the tunnel is over
