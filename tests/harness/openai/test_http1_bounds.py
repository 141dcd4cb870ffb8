"""The HTTP/1.1 client (``harness.llm.http1``) against hostile or odd input:
compressed bodies that expand without bound, long chains of codings, URLs
whose host is no host name, and what of them reaches the adapter's caller."""

from __future__ import annotations

import gzip
import zlib

import pytest
import trio
import trio.testing

from harness.llm import http1
from harness.llm.openai_compat import OpenAICompatibleAdapter, parse_config

from .outcome import outcome
from .server import Reply, ScriptedServer


def client(nursery: trio.Nursery, server: ScriptedServer) -> http1.Client:
    return http1.Client(connect=server.connect_in_memory(nursery))


async def pieces(c: http1.Client, url: str = "http://provider.test/x") -> list[bytes]:
    response = await c.send("GET", url)
    try:
        return [piece async for piece in response.aiter_bytes()]
    finally:
        await response.aclose()


# --- compressed bodies ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("encoding", "pack"),
    [
        ("gzip", gzip.compress),
        ("deflate", zlib.compress),
        ("gzip, gzip", lambda data: gzip.compress(gzip.compress(data))),  # a bomb in a bomb
    ],
    ids=["gzip", "deflate", "gzip-in-gzip"],
)
async def test_a_compressed_body_is_inflated_a_bounded_piece_at_a_time(
    nursery: trio.Nursery, encoding: str, pack: object
) -> None:
    plain = b"\0" * (16 * 1024 * 1024)
    packed = pack(plain)  # type: ignore[operator]
    assert len(packed) < 100 * 1024
    server = ScriptedServer([Reply(headers={"content-encoding": encoding}, body=(packed,), framing="length")])
    got = await pieces(client(nursery, server))
    assert max(len(p) for p in got) <= 64 * 1024  # never the whole 16 MiB from one read
    assert sum(len(p) for p in got) == len(plain)


async def test_a_body_split_anywhere_still_decodes(nursery: trio.Nursery) -> None:
    plain = bytes(range(256)) * 2000
    packed = zlib.compress(gzip.compress(plain))
    steps = tuple(packed[i : i + 3] for i in range(0, len(packed), 3))
    server = ScriptedServer([Reply(headers={"content-encoding": "gzip, deflate"}, body=steps)])
    assert b"".join(await pieces(client(nursery, server))) == plain


async def test_more_than_five_codings_are_refused(nursery: trio.Nursery) -> None:
    packed = b"x"
    for _ in range(6):
        packed = gzip.compress(packed)
    server = ScriptedServer(
        [Reply(headers={"content-encoding": ", ".join(["gzip"] * 6)}, body=(packed,), framing="length")]
    )
    with pytest.raises(http1.DecodingError, match="more than 5"):
        await pieces(client(nursery, server))


async def test_a_corrupt_body_is_a_decoding_error(nursery: trio.Nursery) -> None:
    packed = gzip.compress(b"hello" * 100)
    corrupt = packed[:10] + b"\x07" + packed[11:]  # an invalid block type
    server = ScriptedServer([Reply(headers={"content-encoding": "gzip"}, body=(corrupt,), framing="length")])
    with pytest.raises(http1.DecodingError):
        await pieces(client(nursery, server))


# --- URLs ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "http://a..\u00fc/x",  # IDNA refuses an empty label (a UnicodeError)
        "http://" + "\u00fc" * 70 + ".test/x",  # and a label over 63 characters
        "http://" + "a" * 64 + ".test/x",  # the resolver's IDNA refuses it too (a UnicodeError)
        "https://.example.test/x",  # ssl refuses a server_hostname with a leading dot (a ValueError)
        "http://exa mple.test/x",
        "http://host\x00.test/x",
        "http://host:+80/x",
        "http://host:8_0/x",
    ],
)
async def test_a_url_whose_host_or_port_is_malformed_is_unsupported(url: str) -> None:
    async def connect(_origin: http1.Origin) -> trio.abc.Stream:
        raise AssertionError("no connection for a malformed URL")

    with pytest.raises(http1.UnsupportedURL):
        await http1.Client(connect=connect).send("GET", url)


async def test_a_proxy_whose_host_is_malformed_is_an_llm_error(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("https_proxy", "all_proxy", "no_proxy", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTPS_PROXY", "http://user:hunter2@a..\u00fc:3128")
    cfg = parse_config({"provider": "p", "base_url": "https://api.example.test/v1", "max_retries": 2})
    _, error = await outcome(OpenAICompatibleAdapter(cfg, environ={}), close=True)
    assert error is not None and (error.code, error.retryable) == ("CONNECTION_ERROR", False)
    assert "UnsupportedURL" in error.message and "hunter2" not in error.message


# --- request framing -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "headers"),
    [
        ("POST", {"Transfer-Encoding": "chunked"}),  # with Content-Length too: two framings, a smuggling shape
        ("POST", {"Transfer-Encoding": "gzip"}),  # h11 refuses to frame it (a raw LocalProtocolError)
        ("GET", {"Content-Length": "99"}),  # a length no body follows
    ],
)
async def test_framing_headers_are_the_clients_own(nursery: trio.Nursery, method: str, headers: dict[str, str]) -> None:
    server = ScriptedServer(default=Reply(body=(b"hello",), framing="length"))
    c = client(nursery, server)
    content = b"{}" if method == "POST" else b""
    response = await c.send(method, "http://provider.test/x", headers=headers, content=content)
    assert await response.aiter_bytes().__anext__() == b"hello"
    await response.aclose()
    [received] = server.requests
    assert "transfer-encoding" not in received.headers and received.body == content
    assert received.headers.get("content-length", "0") == str(len(content))


async def test_a_non_ascii_body_is_framed_by_its_bytes(nursery: trio.Nursery) -> None:
    server = ScriptedServer(default=Reply(body=(b"ok",), framing="length"))
    content = '{"text": "caf\u00e9 \U0001f600"}'.encode()
    response = await client(nursery, server).send("POST", "http://provider.test/x", content=content)
    await response.aclose()
    [received] = server.requests
    assert (received.headers["content-length"], received.body) == (str(len(content)), content)


# --- answers the client does not speak -------------------------------------------------------------


async def test_a_switch_of_protocols_is_a_protocol_error_not_a_spin(
    nursery: trio.Nursery, autojump_clock: trio.testing.MockClock
) -> None:
    async def connect(_origin: http1.Origin) -> trio.abc.Stream:
        ours, theirs = trio.testing.memory_stream_pair()

        async def serve() -> None:
            await theirs.receive_some(65536)
            await theirs.send_all(b"HTTP/1.1 101 Switching Protocols\r\nupgrade: h2c\r\nconnection: upgrade\r\n\r\n")
            await trio.sleep_forever()

        nursery.start_soon(serve)
        return ours

    c = http1.Client(connect=connect)
    with trio.fail_after(60), pytest.raises(http1.RemoteProtocolError, match="switched protocols"):
        # an Upgrade header (a profile's extra_headers may set one) lets h11 accept the 101
        await c.send("GET", "http://provider.test/x", headers={"upgrade": "h2c"})


async def test_a_path_with_non_ascii_or_spaces_is_percent_encoded_as_httpx_did(nursery: trio.Nursery) -> None:
    server = ScriptedServer(default=Reply(body=(b"ok",), framing="length"))
    response = await client(nursery, server).send("GET", "http://provider.test/\u00fc/v1 x?q=\u00e4&r=%41")
    await response.aclose()
    assert server.requests[0].target == "/%C3%BC/v1%20x?q=%C3%A4&r=%41"


@pytest.mark.parametrize(
    "answer",
    [
        b"HTTP/1.1 200 OK\r\nx-big: " + b"a" * (200 * 1024),  # a head that never ends
        b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n" + b"f" * (200 * 1024),  # a chunk-size line
    ],
    ids=["head", "chunk-size-line"],
)
async def test_a_head_or_chunk_line_past_the_bound_is_a_protocol_error(
    nursery: trio.Nursery, autojump_clock: trio.testing.MockClock, answer: bytes
) -> None:
    async def connect(_origin: http1.Origin) -> trio.abc.Stream:
        ours, theirs = trio.testing.memory_stream_pair()

        async def serve() -> None:
            await theirs.receive_some(65536)
            await theirs.send_all(answer)
            await trio.sleep_forever()

        nursery.start_soon(serve)
        return ours

    with trio.fail_after(60), pytest.raises(http1.RemoteProtocolError):
        await pieces(http1.Client(connect=connect))
