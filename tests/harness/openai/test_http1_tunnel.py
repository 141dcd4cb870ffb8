"""The HTTP/1.1 client's CONNECT tunnel against proxies that answer oddly,
and connecting cut short: a scripted proxy on loopback answers each CONNECT
with raw bytes; what the adapter raises never holds the proxy's password, and
no connection is left open."""

from __future__ import annotations

import base64
import functools

import pytest
import trio

from harness.llm.openai_compat import OpenAICompatibleAdapter, parse_config
from hookspecs.errors import LlmError

from .outcome import outcome

PASSWORD = "hunter2-proxy-secret"


class RawProxy:
    """Reads one request head per connection, answers ``answer``, then waits
    for the client to close (counted in ``closed``)."""

    def __init__(self, answer: bytes | None) -> None:
        self.answer = answer
        self.heads: list[bytes] = []
        self.closed = 0
        self.closed_one = trio.Event()  # set when a connection ended (the client closed it)
        self.port = 0

    async def start(self, nursery: trio.Nursery) -> None:
        listeners = await nursery.start(functools.partial(trio.serve_tcp, self._handle, 0, host="127.0.0.1"))
        self.port = listeners[0].socket.getsockname()[1]

    async def _handle(self, stream: trio.SocketStream) -> None:
        data = b""
        try:
            while b"\r\n\r\n" not in data:
                piece = await stream.receive_some(65536)
                if not piece:
                    break
                data += piece
            self.heads.append(data)
            if self.answer is not None:
                await stream.send_all(self.answer)
            while await stream.receive_some(65536):
                pass
        except trio.BrokenResourceError:
            pass
        finally:
            self.closed += 1
            self.closed_one.set()
            await stream.aclose()


async def through(
    env: pytest.MonkeyPatch, nursery: trio.Nursery, answer: bytes | None, **config: object
) -> tuple[RawProxy, LlmError]:
    proxy = RawProxy(answer)
    await proxy.start(nursery)
    env.setenv("HTTPS_PROXY", f"http://user:{PASSWORD}@127.0.0.1:{proxy.port}")
    cfg = parse_config({"provider": "p", "base_url": "https://api.example.test/v1", "max_retries": 0, **config})
    _, error = await outcome(OpenAICompatibleAdapter(cfg, environ={}), close=True)
    assert error is not None and error.code == "CONNECTION_ERROR"
    assert PASSWORD not in error.message and "\n" not in error.message
    with trio.fail_after(5):
        await proxy.closed_one.wait()  # nothing left open
    assert proxy.closed == len(proxy.heads) == 1
    return proxy, error


async def test_bytes_after_the_proxys_200_are_refused(env: pytest.MonkeyPatch, nursery: trio.Nursery) -> None:
    _, error = await through(env, nursery, b"HTTP/1.1 200 Connection established\r\n\r\nnot TLS")
    assert "ProxyError" in error.message and "after its answer" in error.message


async def test_a_refusal_with_a_body_is_a_proxy_error(env: pytest.MonkeyPatch, nursery: trio.Nursery) -> None:
    body = b"<html>Proxy Authentication Required</html>"
    answer = b"HTTP/1.1 407 Proxy Authentication Required\r\ncontent-length: %d\r\n\r\n%s" % (len(body), body)
    _, error = await through(env, nursery, answer)
    assert "ProxyError: 407 Proxy Authentication Required" in error.message and error.retryable


async def test_a_proxy_that_echoes_the_request_is_a_proxy_error_without_the_password(
    env: pytest.MonkeyPatch, nursery: trio.Nursery
) -> None:
    class Echo(RawProxy):
        async def _handle(self, stream: trio.SocketStream) -> None:
            self.answer = await stream.receive_some(65536)  # the CONNECT head, Proxy-Authorization and all
            self.heads.append(self.answer)
            try:
                await stream.send_all(self.answer)
                while await stream.receive_some(65536):
                    pass
            finally:
                self.closed += 1
                self.closed_one.set()
                await stream.aclose()

    echo = Echo(None)
    await echo.start(nursery)
    env.setenv("HTTPS_PROXY", f"http://user:{PASSWORD}@127.0.0.1:{echo.port}")
    cfg = parse_config({"provider": "p", "base_url": "https://api.example.test/v1", "max_retries": 0})
    _, error = await outcome(OpenAICompatibleAdapter(cfg, environ={}), close=True)
    assert error is not None and "ProxyError" in error.message
    token = base64.b64encode(f"user:{PASSWORD}".encode()).decode()
    assert PASSWORD not in error.message and token not in error.message
    with trio.fail_after(5):
        await echo.closed_one.wait()


async def test_a_tls_handshake_that_never_ends_is_the_connect_timeout_and_closed(
    env: pytest.MonkeyPatch, nursery: trio.Nursery
) -> None:
    proxy = RawProxy(None)  # plays a TLS server that never answers the ClientHello
    await proxy.start(nursery)
    cfg = parse_config(
        {
            "provider": "p",
            "base_url": f"https://127.0.0.1:{proxy.port}/v1",
            "max_retries": 0,
            "connect_timeout_seconds": 0.2,
        }
    )
    _, error = await outcome(OpenAICompatibleAdapter(cfg, environ={}, trust_env=False), close=True)
    assert error is not None and "ConnectTimeout" in error.message
    with trio.fail_after(5):
        await proxy.closed_one.wait()  # the half-open TLS connection was closed
