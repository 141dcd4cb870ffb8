"""Backoff and deadlines on trio's MockClock, with httpx.MockTransport instead of sockets.

Autojump advances virtual time whenever every task is blocked, which would
also fire while a real socket waits for data; with an in-memory transport
there is no real I/O, so long sleeps and timeouts run instantly and exactly.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import AsyncIterator, Callable

import httpx
import pytest
import trio
import trio.testing

from harness.llm.openai_compat import OpenAICompatibleAdapter, parse_config
from hookspecs.errors import LlmError
from hookspecs.values.cancel import CancelToken
from hookspecs.values.llm import LlmRequest, RetryNotice, StreamChunk, TextDelta
from hookspecs.values.messages import create_user_message

from . import shapes

Handler = Callable[[httpx.Request], httpx.Response]


def adapter(handler: Handler, **config: object) -> OpenAICompatibleAdapter:
    cfg = parse_config({"provider": "deepseek", "base_url": "https://api.example.test/v1", **config})
    return OpenAICompatibleAdapter(cfg, transport=httpx.MockTransport(handler))  # real trio.sleep


def request() -> LlmRequest:
    return LlmRequest(provider="deepseek", model="m", system="", messages=(create_user_message("hi"),))


async def collect(a: OpenAICompatibleAdapter) -> list[StreamChunk]:
    try:
        return [chunk async for chunk in a.stream(request(), CancelToken())]
    finally:
        await a.aclose()


async def test_long_retry_after_sleeps_on_virtual_time(autojump_clock: trio.testing.MockClock) -> None:
    answers = iter(
        [
            httpx.Response(429, headers={"retry-after": "20"}, json={"error": {"message": "slow"}}),
            httpx.Response(503, headers={"retry-after": "25"}, json={"error": {"message": "busy"}}),
            httpx.Response(200, headers={"content-type": "text/event-stream"}, content=b"".join(shapes.text_stream(["ok"]))),
        ]
    )
    start, wall = trio.current_time(), time.monotonic()
    chunks = await collect(adapter(lambda _r: next(answers)))
    assert [(c.delay_seconds, c.code) for c in chunks if isinstance(c, RetryNotice)] == [
        (20.0, "RATE_LIMITED"),
        (25.0, "SERVER_ERROR"),
    ]
    assert TextDelta(text="ok") in chunks
    assert trio.current_time() - start == pytest.approx(45.0)
    assert time.monotonic() - wall < 5


async def test_default_timeout_bounds_the_whole_call(autojump_clock: trio.testing.MockClock) -> None:
    async def body() -> AsyncIterator[bytes]:
        yield shapes.event(shapes.chunk(content="thinking"))
        await trio.sleep(10_000)  # a provider that stalls forever
        yield shapes.DONE

    def handler(_request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body())

    a = adapter(handler)
    start = trio.current_time()
    seen: list[StreamChunk] = []
    with pytest.raises(LlmError) as info:
        async for chunk in a.stream(request(), CancelToken()):
            seen.append(chunk)
    await a.aclose()
    assert seen == [TextDelta(text="thinking")]
    assert info.value.code == "TIMEOUT" and "300s" in info.value.message
    assert trio.current_time() - start == pytest.approx(300.0)


async def test_backoff_schedule_on_virtual_time(autojump_clock: trio.testing.MockClock) -> None:
    calls: list[float] = []

    def handler(_request: httpx.Request) -> httpx.Response:
        calls.append(trio.current_time())
        return httpx.Response(502, text="bad gateway")

    with pytest.raises(LlmError) as info:
        await collect(adapter(handler, max_retries=4, retry_base_seconds=2.0, retry_max_seconds=10.0))
    gaps = [b - a for a, b in itertools.pairwise(calls)]
    for gap, step in zip(gaps, [2.0, 4.0, 8.0, 10.0], strict=True):
        assert step / 2 <= gap <= step + 1e-6
    assert (info.value.code, info.value.status) == ("SERVER_ERROR", 502)
