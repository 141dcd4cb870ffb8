"""Backoff and deadlines on trio's MockClock, with the scripted server served
in memory (the adapter's ``connect``) instead of over sockets.

Autojump advances virtual time whenever every task is blocked, which would
also fire while a real socket waits for data; with in-memory streams there is
no real I/O, so long sleeps and timeouts run instantly and exactly.
"""

from __future__ import annotations

import itertools
import time

import pytest
import trio
import trio.testing

from harness.llm.openai_compat import OpenAICompatibleAdapter, parse_config
from hookspecs.errors import LlmError
from hookspecs.values.cancel import CancelToken
from hookspecs.values.llm import LlmRequest, RetryNotice, StreamChunk, TextDelta
from hookspecs.values.messages import create_user_message

from . import shapes
from .server import Delay, Reply, ScriptedServer


def adapter(server: ScriptedServer, nursery: trio.Nursery, **config: object) -> OpenAICompatibleAdapter:
    cfg = parse_config({"provider": "deepseek", "base_url": "https://api.example.test/v1", **config})
    return OpenAICompatibleAdapter(cfg, connect=server.connect_in_memory(nursery))  # real trio.sleep


def request() -> LlmRequest:
    return LlmRequest(provider="deepseek", model="m", system="", messages=(create_user_message("hi"),))


async def collect(a: OpenAICompatibleAdapter) -> list[StreamChunk]:
    try:
        return [chunk async for chunk in a.stream(request(), CancelToken())]
    finally:
        await a.aclose()


async def test_long_retry_after_sleeps_on_virtual_time(autojump_clock: trio.testing.MockClock, nursery: trio.Nursery) -> None:
    server = ScriptedServer(
        [
            Reply.error(429, {"error": {"message": "slow"}}, {"retry-after": "20"}),
            Reply.error(503, {"error": {"message": "busy"}}, {"retry-after": "25"}),
            Reply.sse(shapes.text_stream(["ok"])),
        ]
    )
    start, wall = trio.current_time(), time.monotonic()
    chunks = await collect(adapter(server, nursery))
    assert [(c.delay_seconds, c.code) for c in chunks if isinstance(c, RetryNotice)] == [
        (20.0, "RATE_LIMITED"),
        (25.0, "SERVER_ERROR"),
    ]
    assert TextDelta(text="ok") in chunks
    assert trio.current_time() - start == pytest.approx(45.0)
    assert time.monotonic() - wall < 5
    assert server.connections == 3  # a kept connection idle longer than 5 s (the backoff) is not reused


async def test_default_timeout_bounds_the_whole_call(autojump_clock: trio.testing.MockClock, nursery: trio.Nursery) -> None:
    # a provider that stalls forever after its first event
    server = ScriptedServer([Reply.sse([shapes.event(shapes.chunk(content="thinking")), Delay(10_000), shapes.DONE])])
    a = adapter(server, nursery)
    start = trio.current_time()
    seen: list[StreamChunk] = []
    with pytest.raises(LlmError) as info:
        async for chunk in a.stream(request(), CancelToken()):
            seen.append(chunk)
    await a.aclose()
    assert seen == [TextDelta(text="thinking")]
    assert info.value.code == "TIMEOUT" and "300s" in info.value.message
    assert trio.current_time() - start == pytest.approx(300.0)


async def test_backoff_schedule_on_virtual_time(autojump_clock: trio.testing.MockClock, nursery: trio.Nursery) -> None:
    server = ScriptedServer(default=Reply(status=502, headers={"content-type": "text/plain"}, body=(b"bad gateway",), framing="length"))
    with pytest.raises(LlmError) as info:
        await collect(adapter(server, nursery, max_retries=4, retry_base_seconds=2.0, retry_max_seconds=10.0))
    gaps = [b.at - a.at for a, b in itertools.pairwise(server.requests)]
    for gap, step in zip(gaps, [2.0, 4.0, 8.0, 10.0], strict=True):
        assert step / 2 <= gap <= step + 1e-6
    assert (info.value.code, info.value.status) == ("SERVER_ERROR", 502)
