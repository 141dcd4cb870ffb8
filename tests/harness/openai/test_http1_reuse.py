"""When the HTTP/1.1 client (``harness.llm.http1``) keeps a connection for
the next request, and when it must not: a request that was not all written,
bytes after the response, a trio run that ended, idle expiry, a response cut
off mid-way, a caller cancelled mid-read. Over in-memory streams on trio's
MockClock (autojump), so nothing waits for real."""

from __future__ import annotations

import trio
import trio.testing

from harness.llm import http1

OK = b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok"


class Peer:
    """One scripted connection per ``connect``: ``script(stream)`` plays the server."""

    def __init__(self, nursery: trio.Nursery, *scripts: object) -> None:
        self.nursery = nursery
        self.scripts = list(scripts)
        self.connections = 0
        self.closed_by_client = 0

    async def connect(self, _origin: http1.Origin) -> trio.abc.Stream:
        client, server = trio.testing.memory_stream_pair()
        self.nursery.start_soon(self.scripts[self.connections], self, server)  # type: ignore[arg-type]
        self.connections += 1
        return client

    async def requests(self, stream: trio.abc.Stream) -> int:
        """Reads what the client sends until it closes; the number of requests seen."""
        data = b""
        while piece := await stream.receive_some(65536):
            data += piece
        self.closed_by_client += 1
        return data.count(b"HTTP/1.1\r\n")


async def body(response: http1.Response) -> bytes:
    try:
        return b"".join([piece async for piece in response.aiter_bytes()])
    finally:
        await response.aclose()


async def get(client: http1.Client) -> bytes:
    return await body(await client.send("GET", "http://provider.test/x"))


async def answer_each(peer: Peer, stream: trio.abc.Stream) -> None:
    """A well-behaved server: one OK per request, until the client closes."""
    try:
        while True:
            data = b""
            while b"\r\n\r\n" not in data:
                piece = await stream.receive_some(65536)
                if not piece:
                    peer.closed_by_client += 1
                    return
                data += piece
            await stream.send_all(OK)
    except trio.BrokenResourceError:
        pass


async def test_a_connection_whose_request_was_not_all_written_is_not_kept(
    nursery: trio.Nursery, autojump_clock: trio.testing.MockClock
) -> None:
    async def answers_early(peer: Peer, stream: trio.StapledStream) -> None:
        # stops reading at once (a 413 for a body too large), answers, and keeps
        # its side open: a request written into it would never be answered
        await stream.receive_stream.aclose()
        await stream.send_all(b"HTTP/1.1 413 Too Large\r\ncontent-length: 0\r\n\r\n")
        await trio.sleep_forever()

    peer = Peer(nursery, answers_early, answer_each)
    client = http1.Client(connect=peer.connect)
    response = await client.send("POST", "http://provider.test/x", content=b"x" * 100)
    assert response.status_code == 413 and await body(response) == b""
    with trio.fail_after(60):
        assert await get(client) == b"ok"
    assert peer.connections == 2
    await client.aclose()


async def test_a_connection_with_bytes_after_the_response_is_not_kept(nursery: trio.Nursery) -> None:
    async def smuggles(peer: Peer, stream: trio.abc.Stream) -> None:
        # an answer, and a second one the client never asked for (yet)
        await stream.receive_some(65536)
        await stream.send_all(OK + b"HTTP/1.1 200 OK\r\ncontent-length: 4\r\n\r\nfake")
        await peer.requests(stream)

    peer = Peer(nursery, smuggles, answer_each)
    client = http1.Client(connect=peer.connect)
    assert await get(client) == b"ok"
    assert await get(client) == b"ok"  # not "fake": a fresh connection
    assert peer.connections == 2
    await client.aclose()


def test_a_client_kept_across_trio_runs_never_reuses_a_connection_of_an_ended_run() -> None:
    peers: list[Peer] = []

    async def connect(origin: http1.Origin) -> trio.abc.Stream:
        return await peers[-1].connect(origin)  # this run's network

    client = http1.Client(connect=connect)

    async def run() -> bytes:
        async with trio.open_nursery() as nursery:
            peers.append(Peer(nursery, answer_each))
            with trio.fail_after(60):
                got = await get(client)
            nursery.cancel_scope.cancel()
        return got

    clock = trio.testing.MockClock(autojump_threshold=0)
    assert trio.run(run, clock=clock) == b"ok"
    assert trio.run(run, clock=clock) == b"ok"
    assert [p.connections for p in peers] == [1, 1]


async def test_an_idle_connection_expires(nursery: trio.Nursery, autojump_clock: trio.testing.MockClock) -> None:
    peer = Peer(nursery, answer_each, answer_each)
    client = http1.Client(connect=peer.connect)
    await get(client)
    await trio.sleep(http1.KEEPALIVE_SECONDS - 1)
    await get(client)  # still fresh: reused
    assert peer.connections == 1
    await trio.sleep(http1.KEEPALIVE_SECONDS + 1)
    await get(client)
    await trio.testing.wait_all_tasks_blocked()
    assert (peer.connections, peer.closed_by_client) == (2, 1)  # the expired one closed
    await client.aclose()


async def test_a_kept_connection_cut_off_mid_response_is_not_retried(nursery: trio.Nursery) -> None:
    async def cuts_off(peer: Peer, stream: trio.abc.Stream) -> None:
        await stream.receive_some(65536)
        await stream.send_all(OK)
        await stream.receive_some(65536)
        await stream.send_all(b"HTTP/1.1 200 OK\r\ncontent-len")  # then closes
        await stream.aclose()

    peer = Peer(nursery, cuts_off, answer_each)
    client = http1.Client(connect=peer.connect)
    assert await get(client) == b"ok"
    try:
        await get(client)
    except http1.RemoteProtocolError:
        pass
    else:
        raise AssertionError("a response cut off after its first byte is the caller's to retry")
    assert peer.connections == 1
    await client.aclose()


async def test_cancelling_mid_read_closes_the_connection(
    nursery: trio.Nursery, autojump_clock: trio.testing.MockClock
) -> None:
    async def slow(peer: Peer, stream: trio.abc.Stream) -> None:
        await stream.receive_some(65536)
        await stream.send_all(b"HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nhalf")
        await peer.requests(stream)

    peer = Peer(nursery, slow, answer_each)
    client = http1.Client(connect=peer.connect)
    response = await client.send("GET", "http://provider.test/x")
    with trio.move_on_after(5):
        await body(response)
    await trio.testing.wait_all_tasks_blocked()
    assert peer.closed_by_client == 1  # closed, not kept
    assert await get(client) == b"ok" and peer.connections == 2
    await client.aclose()


async def test_a_header_refused_leaves_no_h11_error_on_the_chain() -> None:
    async def connect(_origin: http1.Origin) -> trio.abc.Stream:
        raise AssertionError("nothing is sent")

    try:
        await http1.Client(connect=connect).send("GET", "http://provider.test/", headers={"authorization": "k\nsecret"})
    except http1.HttpError as exc:
        # h11's own message quotes the value: not even an unshown __context__ holds it
        assert exc.__context__ is None and exc.__cause__ is None
    else:
        raise AssertionError("a header with a newline is refused")


class Tracked(trio.abc.Stream):
    """A stream that records whether it was closed (the connect seam's count of open streams)."""

    def __init__(self, inner: trio.abc.Stream) -> None:
        self.inner = inner
        self.closed = False

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        await self.inner.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self.inner.wait_send_all_might_not_block()

    async def receive_some(self, max_bytes: int | None = None) -> bytes | bytearray:
        return await self.inner.receive_some(max_bytes)

    async def aclose(self) -> None:
        self.closed = True
        await self.inner.aclose()


def test_the_adapter_closes_a_kept_connection_of_an_ended_run_in_the_next() -> None:
    from harness.llm.openai_compat import OpenAICompatibleAdapter, parse_config

    from . import shapes
    from .outcome import outcome
    from .server import Reply, ScriptedServer

    streams: list[Tracked] = []
    nurseries: list[trio.Nursery] = []
    server = ScriptedServer(default=Reply.sse(shapes.text_stream(["fine"])))

    async def connect(origin: http1.Origin) -> trio.abc.Stream:
        streams.append(Tracked(await server.connect_in_memory(nurseries[-1])(origin)))
        return streams[-1]

    cfg = parse_config({"provider": "p", "base_url": "http://provider.test/v1"})
    a = OpenAICompatibleAdapter(cfg, environ={}, connect=connect)

    async def run() -> None:
        async with trio.open_nursery() as nursery:
            nurseries.append(nursery)
            assert (await outcome(a))[1] is None
            nursery.cancel_scope.cancel()

    trio.run(run, clock=trio.testing.MockClock(autojump_threshold=0))
    trio.run(run, clock=trio.testing.MockClock(autojump_threshold=0))
    assert [s.closed for s in streams] == [True, False]  # the first run's, closed in the second
    trio.run(a.aclose)
    assert streams[1].closed


async def test_aclose_in_a_cancelled_scope_closes_every_kept_connection(nursery: trio.Nursery) -> None:
    peer = Peer(nursery, answer_each, answer_each, answer_each)
    client = http1.Client(connect=peer.connect)
    # three responses open at once: three connections
    responses = [await client.send("GET", "http://provider.test/x") for _ in range(3)]
    for response in responses:
        await body(response)
    assert peer.connections == 3
    with trio.CancelScope() as scope:
        scope.cancel()  # a host shutting down under cancellation
        await client.aclose()
    with trio.CancelScope(shield=True):
        await trio.testing.wait_all_tasks_blocked()
    assert peer.closed_by_client == 3
