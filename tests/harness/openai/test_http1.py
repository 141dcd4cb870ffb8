"""The HTTP/1.1 client (``harness.llm.http1``): what httpx did for the adapter
that the loopback tests of ``test_adapter_http.py`` do not reach: kept
connections the server closed, malformed answers, the connect timeout,
content-encodings, the request head. Mostly over in-memory streams (the
client's ``connect``), on trio's MockClock where time matters."""

from __future__ import annotations

import functools
import zlib
from collections.abc import Awaitable, Callable

import pytest
import trio
import trio.testing

from harness.llm import http1
from harness.llm.openai_compat import OpenAICompatibleAdapter, parse_config
from hookspecs.values.llm import RetryNotice, TextDelta

from . import shapes
from .outcome import outcome
from .server import Reply, ScriptedServer

SSE = b"".join(shapes.text_stream(["fine"]))
OK = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: %d\r\n\r\n%s" % (len(SSE), SSE)


def adapter(connect: http1.Connect, **config: object) -> OpenAICompatibleAdapter:
    cfg = parse_config({"provider": "p", "base_url": "http://provider.test/v1", "retry_base_seconds": 0, **config})
    return OpenAICompatibleAdapter(cfg, environ={}, connect=connect)


async def read_request(stream: trio.abc.Stream) -> bytes | None:
    """One request (head and Content-Length body) off ``stream``; None at its end."""
    data = b""
    while b"\r\n\r\n" not in data:
        piece = await stream.receive_some(65536)
        if not piece:
            return None
        data += piece
    head, body = data.split(b"\r\n\r\n", 1)
    length = next((int(line.split(b":")[1]) for line in head.lower().split(b"\r\n") if line.startswith(b"content-length:")), 0)
    while len(body) < length:
        body += await stream.receive_some(65536)
    return head


class RawServer:
    """Each connection (``connect``, in memory) answers with the next script:
    a list of raw answers, one per request, then the connection is closed
    (a ``None`` last: once the client closed it, counted)."""

    def __init__(self, nursery: trio.Nursery, scripts: list[list[bytes | None]]) -> None:
        self.nursery = nursery
        self.scripts = scripts
        self.heads: list[bytes] = []
        self.connections = 0
        self.closed_by_client = 0

    async def connect(self, _origin: http1.Origin) -> trio.abc.Stream:
        client, server = trio.testing.memory_stream_pair()
        self.nursery.start_soon(self._serve, server, self.scripts[self.connections])
        self.connections += 1
        return client

    async def _serve(self, stream: trio.abc.Stream, answers: list[bytes | None]) -> None:
        try:
            for answer in answers:
                head = await read_request(stream)
                if head is None:
                    self.closed_by_client += 1
                    return
                assert answer is not None, "a request after the last answer"
                self.heads.append(head)
                await stream.send_all(answer)
        except trio.BrokenResourceError:
            pass
        finally:
            await stream.aclose()


# --- kept connections -------------------------------------------------------------------------


async def test_a_kept_connection_the_server_closed_is_retried_on_a_fresh_one(nursery: trio.Nursery) -> None:
    # each connection answers once, then closes without saying so (an idle timeout)
    server = RawServer(nursery, [[OK], [OK]])
    a = adapter(server.connect, max_retries=0)
    for _ in range(2):
        chunks, error = await outcome(a)
        assert error is None and TextDelta(text="fine") in chunks
    assert (server.connections, len(server.heads)) == (2, 2)  # no RetryNotice: the client's own retry


async def test_a_kept_connection_closed_while_waiting_for_the_answer_is_retried(nursery: trio.Nursery) -> None:
    """Over TCP the request is written into the dead connection; the EOF comes
    instead of the status line."""
    answers = [OK, None, OK]

    async def handle(stream: trio.SocketStream) -> None:
        async with stream:
            while await read_request(stream) is not None:
                answer = answers.pop(0)
                if answer is None:
                    return  # read the request, close without a word
                await stream.send_all(answer)

    listeners = await nursery.start(functools.partial(trio.serve_tcp, handle, 0, host="127.0.0.1"))
    port = listeners[0].socket.getsockname()[1]
    cfg = parse_config({"provider": "p", "base_url": f"http://127.0.0.1:{port}/v1", "max_retries": 0})
    a = OpenAICompatibleAdapter(cfg, environ={}, trust_env=False)
    try:
        for _ in range(2):
            chunks, error = await outcome(a)
            assert error is None and TextDelta(text="fine") in chunks, error
    finally:
        await a.aclose()
    assert answers == []


async def test_a_fresh_connection_failing_is_not_retried_by_the_client(nursery: trio.Nursery) -> None:
    server = RawServer(nursery, [[b""]])  # reads the request, closes without a word
    _, error = await outcome(adapter(server.connect, max_retries=0))
    assert error is not None and (error.code, error.retryable) == ("CONNECTION_ERROR", True)
    assert "Server disconnected without sending a response." in error.message
    assert server.connections == 1


async def test_aclose_closes_the_kept_connection(nursery: trio.Nursery) -> None:
    server = RawServer(nursery, [[OK, None]])
    a = adapter(server.connect)
    assert (await outcome(a))[1] is None
    await trio.testing.wait_all_tasks_blocked()
    assert server.closed_by_client == 0  # kept
    await a.aclose()
    await trio.testing.wait_all_tasks_blocked()
    assert server.closed_by_client == 1


async def test_an_answer_that_says_close_is_not_kept(nursery: trio.Nursery) -> None:
    closing = OK.replace(b"content-length", b"connection: close\r\ncontent-length")
    server = RawServer(nursery, [[closing], [closing]])
    a = adapter(server.connect)
    for _ in range(2):
        assert (await outcome(a))[1] is None
    assert server.connections == 2


# --- malformed answers and the connect timeout --------------------------------------------------------


async def test_malformed_http_is_a_retried_connection_error(nursery: trio.Nursery) -> None:
    server = RawServer(nursery, [[b"NOT HTTP AT ALL\r\n\r\n"], [OK]])
    chunks, error = await outcome(adapter(server.connect, max_retries=1))
    assert error is None and TextDelta(text="fine") in chunks
    [notice] = [c for c in chunks if isinstance(c, RetryNotice)]
    assert notice.code == "CONNECTION_ERROR"
    _, error = await outcome(adapter(RawServer(nursery, [[b"HTTP/1.1 2000 Huh\r\n\r\n"]]).connect, max_retries=0))
    assert error is not None and "RemoteProtocolError" in error.message and error.retryable


async def test_the_connect_timeout(autojump_clock: trio.testing.MockClock) -> None:
    async def never(_origin: http1.Origin) -> trio.abc.Stream:
        await trio.sleep_forever()
        raise AssertionError

    start = trio.current_time()
    chunks, error = await outcome(adapter(never, connect_timeout_seconds=7, max_retries=1))
    assert [c.code for c in chunks if isinstance(c, RetryNotice)] == ["CONNECTION_ERROR"]
    assert error is not None and "ConnectTimeout" in error.message
    assert trio.current_time() - start == pytest.approx(14.0)


# --- content-encodings ------------------------------------------------------------------------------


def raw_deflate(data: bytes) -> bytes:
    packer = zlib.compressobj(wbits=-zlib.MAX_WBITS)
    return packer.compress(data) + packer.flush()


@pytest.mark.parametrize(
    ("encoding", "pack"),
    [
        ("deflate", zlib.compress),
        ("deflate", raw_deflate),  # what some servers send as deflate
        ("gzip, deflate", lambda data: zlib.compress(__import__("gzip").compress(data))),
        ("identity", lambda data: data),
    ],
    ids=["deflate", "raw-deflate", "gzip-then-deflate", "identity"],
)
async def test_content_encodings_are_decoded(
    nursery: trio.Nursery, encoding: str, pack: Callable[[bytes], bytes]
) -> None:
    packed = pack(SSE)
    server = ScriptedServer([Reply(headers={"content-encoding": encoding}, body=(packed[:7], packed[7:]), framing="length")])
    chunks, error = await outcome(adapter(server.connect_in_memory(nursery)))
    assert error is None and TextDelta(text="fine") in chunks


async def test_an_unknown_content_encoding_is_a_malformed_stream(nursery: trio.Nursery) -> None:
    server = ScriptedServer([Reply(headers={"content-encoding": "br"}, body=(SSE,), framing="length")])
    _, error = await outcome(adapter(server.connect_in_memory(nursery), max_retries=2))
    assert error is not None and (error.code, error.retryable) == ("MALFORMED_STREAM", False)
    assert "br" in error.message and len(server.requests) == 1


# --- the request ----------------------------------------------------------------------------------


async def test_the_request_head(nursery: trio.Nursery) -> None:
    server = ScriptedServer(default=Reply(body=(b"hello",), framing="length"))
    client = http1.Client(headers={"User-Agent": "probe/1"}, connect=server.connect_in_memory(nursery))
    response = await client.send("POST", "http://Provider.test:8080/v1/x?q=1", headers={"X-Extra": "1"}, content=b"{}")
    assert (response.status_code, response.reason) == (200, "OK")
    assert [part async for part in response.aiter_bytes()] == [b"hello"]
    await response.aclose()
    response = await client.send("GET", "https://[::1]/")
    await response.aclose()
    await client.aclose()
    first, second = server.requests
    assert (first.method, first.target, first.body) == ("POST", "/v1/x?q=1", b"{}")
    assert first.headers == {
        "host": "provider.test:8080",
        "accept": "*/*",
        "accept-encoding": "gzip, deflate",
        "connection": "keep-alive",
        "user-agent": "probe/1",
        "x-extra": "1",
        "content-length": "2",
    }
    assert (second.target, second.headers["host"], "content-length" in second.headers) == ("/", "[::1]", False)


@pytest.mark.parametrize("url", ["ftp://host/x", "http://", "http://host:0/", "http://host:99999/", "http://host:x/"])
async def test_urls_it_cannot_send_to(url: str) -> None:
    connect: Callable[[http1.Origin], Awaitable[trio.abc.Stream]] = pytest.fail  # type: ignore[assignment]
    with pytest.raises(http1.UnsupportedURL):
        await http1.Client(connect=connect).send("GET", url)


@pytest.mark.parametrize("key", ["sk-caf\u00e9-secret", "sk-line\nx-injected: 1-secret"])
async def test_a_key_that_is_no_header_value_is_refused_without_quoting_it(nursery: trio.Nursery, key: str) -> None:
    server = ScriptedServer()
    cfg = parse_config({"provider": "p", "base_url": "http://provider.test/v1", "api_key_env": "K", "max_retries": 2})
    a = OpenAICompatibleAdapter(cfg, environ={"K": key}, connect=server.connect_in_memory(nursery))
    _, error = await outcome(a)
    assert error is not None and (error.code, error.retryable) == ("CONNECTION_ERROR", False)
    assert "secret" not in error.message and "not valid HTTP/1.1" in error.message
    assert server.requests == []
