"""The adapter against a real HTTP server on loopback."""

from __future__ import annotations

import gzip
import time
from contextlib import aclosing
from typing import Any

import pytest
import trio
import trio.testing

from harness.llm import LlmService
from harness.llm.openai_compat import OpenAICompatibleAdapter
from hookspecs.errors import LlmError
from hookspecs.scrub import scrub_secrets
from hookspecs.values.cancel import Cancelled, CancelToken
from hookspecs.values.llm import (
    FinishChunk,
    LlmRequest,
    ReasoningDelta,
    RetryNotice,
    StreamChunk,
    TextDelta,
    ToolCallDelta,
    ToolSchema,
    UsageChunk,
)
from hookspecs.values.messages import Message, TextBlock, ToolCallBlock, ToolResultBlock, create_user_message

from . import shapes
from .conftest import API_KEY, KEY_ENV, MakeAdapter, SleepRecorder
from .server import Delay, Disconnect, Reply, ScriptedServer


def req(model: str = "deepseek-chat", **kwargs: Any) -> LlmRequest:
    fields: dict[str, Any] = {"provider": "deepseek", "model": model, "system": "Be brief."}
    fields.update(kwargs)
    fields.setdefault("messages", (create_user_message("hello"),))
    return LlmRequest(**fields)


async def collect(adapter: OpenAICompatibleAdapter, request: LlmRequest, token: CancelToken | None = None) -> list[StreamChunk]:
    out: list[StreamChunk] = []
    async with aclosing(adapter.stream(request, token or CancelToken())) as stream:  # type: ignore[type-var]
        async for chunk in stream:
            out.append(chunk)
    return out


async def fail(adapter: OpenAICompatibleAdapter, request: LlmRequest | None = None) -> tuple[list[StreamChunk], LlmError]:
    """The chunks yielded before the stream raised ``LlmError``, and the error."""
    out: list[StreamChunk] = []
    with pytest.raises(LlmError) as info:
        async with aclosing(adapter.stream(request or req(), CancelToken())) as stream:  # type: ignore[type-var]
            async for chunk in stream:
                out.append(chunk)
    return out, info.value


def content(chunks: list[StreamChunk]) -> list[StreamChunk]:
    return [c for c in chunks if not isinstance(c, RetryNotice)]


# --- the happy path ------------------------------------------------------------------------


async def test_tool_stream_and_request(server: ScriptedServer, make_adapter: MakeAdapter) -> None:
    server.add(Reply.sse(shapes.DEEPSEEK_TOOL_STREAM, headers={"x-request-id": "req-1"}))
    adapter = make_adapter(extra_headers={"X-Title": "shadow-mind"})
    read = ToolSchema(name="read", description="Read a file", parameters={"type": "object"})
    history = (
        create_user_message("look at the readme"),
        Message(
            id="a1",
            role="assistant",
            content=(ToolCallBlock(id="call_0", name="read", arguments='{"path":"x"}'),),
            source={"kind": "model", "provider": "deepseek", "model": "deepseek-reasoner"},
        ),
        Message(
            id="r1",
            role="tool",
            content=(ToolResultBlock(tool_call_id="call_0", content=(TextBlock(text="no such file"),), is_error=True),),
            source={"kind": "tool", "call_id": "call_0"},
        ),
    )
    chunks = await collect(adapter, req("deepseek-reasoner", messages=history, tools=(read,), max_tokens=100, metadata={"turn": 1}))
    assert chunks == [
        ReasoningDelta(text="The user wants "),
        ReasoningDelta(text="the README."),
        TextDelta(text="Let me "),
        TextDelta(text="look."),
        ToolCallDelta(index=0, id="call_0_a1", name="read", arguments=""),
        ToolCallDelta(index=0, arguments='{"path":'),
        ToolCallDelta(index=1, id="call_1_b2", name="grep", arguments='{"pat'),
        ToolCallDelta(index=0, arguments=' "README.md"}'),
        ToolCallDelta(index=1, arguments='tern": "x"}'),
        UsageChunk(input_tokens=120, output_tokens=45, reasoning_tokens=30),
        FinishChunk(reason="tool-calls"),
    ]
    [received] = server.requests
    assert (received.method, received.target) == ("POST", "/v1/chat/completions")
    assert received.headers["authorization"] == f"Bearer {API_KEY}"
    assert received.headers["x-title"] == "shadow-mind"
    assert received.headers["accept"] == "text/event-stream"
    assert received.headers["content-type"] == "application/json"
    assert received.json() == {
        "model": "deepseek-reasoner",
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "look at the readme"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "call_0", "type": "function", "function": {"name": "read", "arguments": '{"path":"x"}'}}
                ],
            },
            {"role": "tool", "tool_call_id": "call_0", "content": "no such file"},
        ],
        "tools": [{"type": "function", "function": {"name": "read", "description": "Read a file", "parameters": {"type": "object"}}}],
        "max_tokens": 100,
        "stream": True,
        "stream_options": {"include_usage": True},
    }


async def test_effort_is_sent_and_keep_alives_are_ignored(server: ScriptedServer, make_adapter: MakeAdapter) -> None:
    body = [shapes.KEEP_ALIVE, *shapes.text_stream(["Hi", "!"], finish="length")]
    server.add(Reply.sse(body), Reply.sse(body))
    adapter = make_adapter()
    chunks = await collect(adapter, req())
    assert chunks == [
        TextDelta(text="Hi"),
        TextDelta(text="!"),
        UsageChunk(input_tokens=12, output_tokens=7),
        FinishChunk(reason="max-tokens"),
    ]
    await collect(adapter, req(reasoning_effort="off"))
    first, second = (r.json() for r in server.requests)
    assert first["reasoning_effort"] == "high"  # the model's default_effort
    assert "reasoning_effort" not in second


@pytest.mark.parametrize("framing", ["chunked", "length", "close"])
async def test_every_body_framing(server: ScriptedServer, make_adapter: MakeAdapter, framing: Any) -> None:
    server.add(Reply.sse(shapes.text_stream(["a", "b"]), framing=framing))
    chunks = await collect(make_adapter(), req())
    assert "".join(c.text for c in chunks if isinstance(c, TextDelta)) == "ab"  # one read may merge them


async def test_connections_are_reused(server: ScriptedServer, make_adapter: MakeAdapter) -> None:
    server.default = Reply.sse(shapes.text_stream(["x"]))
    adapter = make_adapter()
    for _ in range(3):
        await collect(adapter, req())
    assert (len(server.requests), server.connections) == (3, 1)


async def test_no_key_env_sends_no_authorization(server: ScriptedServer, make_adapter: MakeAdapter) -> None:
    server.add(Reply.sse(shapes.text_stream(["x"])))
    await collect(make_adapter(api_key_env=None), req())
    assert "authorization" not in server.requests[0].headers


async def test_the_key_read_is_hidden_by_every_later_scrub(server: ScriptedServer, make_adapter: MakeAdapter) -> None:
    assert scrub_secrets(f"echo {API_KEY[3:20]}") != "echo [credential]"
    server.add(Reply.sse(shapes.text_stream(["x"])))
    await collect(make_adapter(), req())
    # registered when read: a slice echoed without its sk- prefix is hidden too
    assert scrub_secrets(f"echo {API_KEY[3:20]}") == "echo [credential]"


async def test_through_the_llm_service(server: ScriptedServer, make_adapter: MakeAdapter) -> None:
    server.add(Reply.sse(shapes.text_stream(["routed"])))
    service = LlmService()
    service.register_adapter(make_adapter())
    chunks = [c async for c in service.stream(req(), CancelToken())]
    assert TextDelta(text="routed") in chunks
    with pytest.raises(LlmError) as info:
        async for _ in service.stream(req("gpt-4o"), CancelToken()):
            pass
    assert info.value.code == "UNKNOWN_MODEL"


# --- request-time errors -----------------------------------------------------------------------


async def test_missing_key_names_the_variable(server: ScriptedServer, make_adapter: MakeAdapter) -> None:
    _, error = await fail(make_adapter(environ={}))
    assert error.code == "MISSING_API_KEY" and KEY_ENV in error.message
    assert server.requests == []


async def test_unlisted_effort_is_refused_before_sending(server: ScriptedServer, make_adapter: MakeAdapter) -> None:
    _, error = await fail(make_adapter(), req(reasoning_effort="medium"))
    assert error.code == "INVALID_REASONING_EFFORT"
    assert server.requests == []


# --- retries -------------------------------------------------------------------------------------


async def test_429_with_retry_after_then_success(
    server: ScriptedServer, make_adapter: MakeAdapter, sleeps: SleepRecorder
) -> None:
    server.add(
        Reply.error(429, {"error": {"message": "Rate limit reached"}}, {"retry-after": "2", "x-request-id": "r-429"}),
        Reply.sse(shapes.text_stream(["ok"])),
    )
    chunks = await collect(make_adapter(), req())
    assert chunks[0] == RetryNotice(attempt=1, delay_seconds=2.0, code="RATE_LIMITED", status=429)
    assert chunks[1:] == [TextDelta(text="ok"), UsageChunk(input_tokens=12, output_tokens=7), FinishChunk(reason="stop")]
    assert sleeps.delays == [2.0]
    assert len(server.requests) == 2


async def test_retry_after_is_capped(server: ScriptedServer, make_adapter: MakeAdapter, sleeps: SleepRecorder) -> None:
    server.add(Reply.error(503, {"error": {"message": "busy"}}, {"retry-after": "3600"}), Reply.sse(shapes.text_stream(["ok"])))
    chunks = await collect(make_adapter(retry_max_seconds=5, request_timeout_seconds=60), req())
    assert chunks[0] == RetryNotice(attempt=1, delay_seconds=5.0, code="SERVER_ERROR", status=503)
    assert sleeps.delays == [5.0]


async def test_503_until_retries_run_out(server: ScriptedServer, make_adapter: MakeAdapter, sleeps: SleepRecorder) -> None:
    server.default = Reply.error(503, {"error": {"message": "Server overloaded"}}, {"x-request-id": "r-503"})
    chunks, error = await fail(make_adapter(max_retries=3, retry_base_seconds=0.5, retry_max_seconds=30))
    assert [(c.attempt, c.code, c.status) for c in chunks if isinstance(c, RetryNotice)] == [
        (1, "SERVER_ERROR", 503),
        (2, "SERVER_ERROR", 503),
        (3, "SERVER_ERROR", 503),
    ]
    assert [c.delay_seconds for c in chunks if isinstance(c, RetryNotice)] == sleeps.delays
    for retry, delay in enumerate(sleeps.delays, start=1):  # jittered exponential backoff
        assert 0.5 * 2 ** (retry - 1) / 2 <= delay <= 0.5 * 2 ** (retry - 1)
    assert len(server.requests) == 4
    assert (error.code, error.status, error.request_id, error.retryable) == ("SERVER_ERROR", 503, "r-503", True)
    assert "Server overloaded" in error.message and "gave up after 4 attempts" in error.message
    assert error.to_json()["status"] == 503


async def test_no_retries_configured(server: ScriptedServer, make_adapter: MakeAdapter, sleeps: SleepRecorder) -> None:
    server.default = Reply.error(429, {"error": {"message": "slow down"}}, {"retry-after": "1"})
    chunks, error = await fail(make_adapter(max_retries=0))
    assert chunks == [] and sleeps.delays == []
    assert (error.code, error.retry_after) == ("RATE_LIMITED", 1.0)
    assert "attempts" not in error.message


async def test_a_retry_that_would_pass_the_deadline_is_not_made(
    server: ScriptedServer, make_adapter: MakeAdapter, sleeps: SleepRecorder
) -> None:
    server.default = Reply.error(429, {"error": {"message": "come back later"}}, {"retry-after": "120"})
    chunks, error = await fail(make_adapter(request_timeout_seconds=5, retry_max_seconds=300))
    assert chunks == [] and sleeps.delays == []
    assert error.code == "RATE_LIMITED" and "deadline" in error.message


async def test_real_sleep_backoff(server: ScriptedServer, make_adapter: MakeAdapter) -> None:
    server.add(Reply.error(500, b"oops"), Reply.sse(shapes.text_stream(["ok"])))
    adapter = make_adapter(sleep=trio.sleep, retry_base_seconds=0.02)
    start = trio.current_time()
    chunks = await collect(adapter, req())
    notice = chunks[0]
    assert isinstance(notice, RetryNotice) and 0.01 <= notice.delay_seconds <= 0.02
    assert trio.current_time() - start >= notice.delay_seconds
    assert TextDelta(text="ok") in chunks


async def test_connection_refused_is_retried_then_reported(make_adapter: MakeAdapter, sleeps: SleepRecorder) -> None:
    with trio.socket.socket() as sock:  # a port nobody listens on
        await sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    adapter = make_adapter(base_url=f"http://127.0.0.1:{port}/v1", max_retries=2)
    chunks, error = await fail(adapter)
    assert [c.code for c in chunks if isinstance(c, RetryNotice)] == ["CONNECTION_ERROR", "CONNECTION_ERROR"]
    assert error.code == "CONNECTION_ERROR" and error.status is None
    assert "gave up after 3 attempts" in error.message


async def test_disconnect_before_content_is_retried(server: ScriptedServer, make_adapter: MakeAdapter) -> None:
    server.add(Reply.sse([shapes.KEEP_ALIVE, Disconnect()]), Reply.sse(shapes.text_stream(["second"])))
    chunks = await collect(make_adapter(), req())
    assert chunks[0] == RetryNotice(attempt=1, delay_seconds=chunks[0].delay_seconds, code="STREAM_INTERRUPTED")  # type: ignore[union-attr]
    assert TextDelta(text="second") in chunks


async def test_deepseek_out_of_resources_before_content_is_retried(
    server: ScriptedServer, make_adapter: MakeAdapter, sleeps: SleepRecorder
) -> None:
    cut = shapes.events([shapes.chunk(role="assistant", content=""), shapes.chunk(finish="insufficient_system_resource")])
    server.add(Reply.sse(cut), Reply.sse(shapes.text_stream(["whole"])))
    chunks = await collect(make_adapter(), req())
    assert isinstance(chunks[0], RetryNotice) and chunks[0].code == "GENERATION_INTERRUPTED"
    assert content(chunks) == [TextDelta(text="whole"), UsageChunk(input_tokens=12, output_tokens=7), FinishChunk(reason="stop")]
    assert len(server.requests) == 2


async def test_deepseek_out_of_resources_after_content_is_an_error(server: ScriptedServer, make_adapter: MakeAdapter) -> None:
    server.add(Reply.sse(shapes.text_stream(["half an ", "ans"], finish="insufficient_system_resource")))
    chunks, error = await fail(make_adapter())
    assert chunks == [TextDelta(text="half an "), TextDelta(text="ans")]
    assert (error.code, error.retryable) == ("GENERATION_INTERRUPTED", True)
    assert "insufficient_system_resource" in error.message
    assert len(server.requests) == 1  # text was already streamed: a retry would repeat it


# --- failures that are not retried ------------------------------------------------------------------


async def test_400_message_is_surfaced_and_scrubbed(server: ScriptedServer, make_adapter: MakeAdapter) -> None:
    message = (
        f"Invalid request: key {API_KEY} rejected; Authorization: Bearer abcdefgh12345678 "
        "while reading /home/alice/project/secret.txt"
    )
    server.add(Reply.error(400, {"error": {"message": message, "type": "invalid_request_error"}, "id": "body-id"}))
    chunks, error = await fail(make_adapter())
    assert chunks == []
    assert (error.code, error.status, error.request_id, error.retryable) == ("BAD_REQUEST", 400, "body-id", False)
    assert error.message.startswith("deepseek: HTTP 400 (bad request): Invalid request: key [credential] rejected")
    assert API_KEY not in error.message and "abcdefgh12345678" not in error.message
    assert "/home/alice" not in error.message and "[absolute-path]" in error.message
    assert len(server.requests) == 1


async def test_401_with_a_plain_text_body(server: ScriptedServer, make_adapter: MakeAdapter) -> None:
    server.add(Reply(status=401, headers={"content-type": "text/plain"}, body=(b"Authentication Fails",), framing="length"))
    _, error = await fail(make_adapter())
    assert (error.code, error.status) == ("AUTH_FAILED", 401)
    assert error.message == "deepseek: HTTP 401 (unauthorized): Authentication Fails"


async def test_context_overflow(server: ScriptedServer, make_adapter: MakeAdapter) -> None:
    server.add(
        Reply.error(
            400,
            {"error": {"message": "This model's maximum context length is 65536 tokens.", "code": "context_length_exceeded"}},
        )
    )
    _, error = await fail(make_adapter())
    assert (error.code, error.status) == ("CONTEXT_OVERFLOW", 400)


async def test_malformed_chunk(server: ScriptedServer, make_adapter: MakeAdapter) -> None:
    server.add(Reply.sse([shapes.event(shapes.chunk(content="good")), b'data: {"choices": [{"delta": \n\n', shapes.DONE]))
    chunks, error = await fail(make_adapter())
    assert chunks == [TextDelta(text="good")]
    assert error.code == "MALFORMED_STREAM" and "line 3" in error.message
    assert error.request_id == "chatcmpl-7f3a"
    assert len(server.requests) == 1


async def test_disconnect_mid_stream_is_not_retried(server: ScriptedServer, make_adapter: MakeAdapter) -> None:
    body = shapes.text_stream(["one", "two", "three"])
    server.add(Reply.sse([*body[:2], Disconnect()], headers={"x-request-id": "r-cut"}))
    chunks, error = await fail(make_adapter())
    assert chunks == [TextDelta(text="one")]
    assert (error.code, error.request_id) == ("STREAM_INTERRUPTED", "r-cut")
    assert len(server.requests) == 1


async def test_close_delimited_body_cut_short_is_truncated(server: ScriptedServer, make_adapter: MakeAdapter) -> None:
    body = shapes.text_stream(["one", "two"])
    server.add(Reply.sse(body[:2], framing="close"))
    chunks, error = await fail(make_adapter())
    assert chunks == [TextDelta(text="one")]
    assert error.code == "STREAM_TRUNCATED"


async def test_error_event_mid_stream(server: ScriptedServer, make_adapter: MakeAdapter) -> None:
    server.add(Reply.sse([shapes.event(shapes.chunk(content="x")), shapes.event({"error": {"message": "model crashed"}})]))
    chunks, error = await fail(make_adapter())
    assert chunks == [TextDelta(text="x")]
    assert error.code == "PROVIDER_ERROR" and "model crashed" in error.message


async def test_json_instead_of_a_stream(server: ScriptedServer, make_adapter: MakeAdapter) -> None:
    server.add(Reply(headers={"content-type": "application/json"}, body=(b'{"error": {"message": "stream unsupported"}}',), framing="length"))
    _, error = await fail(make_adapter())
    assert error.code == "UNEXPECTED_RESPONSE" and "stream unsupported" in error.message


# --- time and cancellation ---------------------------------------------------------------------------


async def test_slow_headers_hit_the_timeout(server: ScriptedServer, make_adapter: MakeAdapter) -> None:
    server.add(Reply.sse(shapes.text_stream(["late"]), head_delay=30))
    start = time.monotonic()
    _, error = await fail(make_adapter(request_timeout_seconds=0.3))
    assert error.code == "TIMEOUT" and "0.3s" in error.message
    assert time.monotonic() - start < 5


async def test_a_stalled_stream_hits_the_timeout(server: ScriptedServer, make_adapter: MakeAdapter) -> None:
    body = shapes.text_stream(["a", "b"])
    server.add(Reply.sse([body[0], body[1], Delay(30), *body[2:]]))
    start = time.monotonic()
    chunks, error = await fail(make_adapter(request_timeout_seconds=1.0))
    assert chunks == [TextDelta(text="a")]
    assert error.code == "TIMEOUT"
    assert time.monotonic() - start < 5


async def test_cancel_token_mid_stream(server: ScriptedServer, make_adapter: MakeAdapter) -> None:
    body = shapes.text_stream(["first", "never"])
    server.add(Reply.sse([body[0], body[1], Delay(30), *body[2:]]))
    token = CancelToken()
    seen: list[StreamChunk] = []
    first = trio.Event()
    start = time.monotonic()

    async def consume() -> None:
        async with aclosing(make_adapter().stream(req(), token)) as stream:  # type: ignore[type-var]
            async for chunk in stream:
                seen.append(chunk)
                first.set()

    async with trio.open_nursery() as nursery:

        async def cancel_when_first_arrives() -> None:
            await first.wait()
            await trio.testing.wait_all_tasks_blocked()  # the adapter is now blocked reading the socket
            token.cancel("user")

        nursery.start_soon(cancel_when_first_arrives)
        with pytest.raises(Cancelled) as info:
            await consume()
    assert info.value.reason == "user"
    assert seen == [TextDelta(text="first")]
    assert time.monotonic() - start < 5


async def test_an_already_cancelled_token_sends_nothing(server: ScriptedServer, make_adapter: MakeAdapter) -> None:
    token = CancelToken()
    token.cancel("early")
    with pytest.raises(Cancelled):
        await collect(make_adapter(), req(), token)
    assert server.requests == []


async def test_token_cancels_a_backoff_sleep(server: ScriptedServer, make_adapter: MakeAdapter) -> None:
    server.default = Reply.error(503, b"busy", {"retry-after": "20"})
    token = CancelToken()
    adapter = make_adapter(sleep=trio.sleep, request_timeout_seconds=60)
    notices: list[StreamChunk] = []
    with pytest.raises(Cancelled):
        async with aclosing(adapter.stream(req(), token)) as stream:  # type: ignore[type-var]
            async for chunk in stream:
                notices.append(chunk)
                token.cancel("stop")  # cancelled while about to sleep 20 s
    assert [type(c) for c in notices] == [RetryNotice]


async def test_callers_cancel_scope_propagates(server: ScriptedServer, make_adapter: MakeAdapter) -> None:
    body = shapes.text_stream(["first"])
    server.add(Reply.sse([body[0], body[1], Delay(30), *body[2:]]), Reply.sse(shapes.text_stream(["after"])))
    adapter = make_adapter()
    seen: list[StreamChunk] = []
    first = trio.Event()
    with trio.CancelScope() as scope:
        async with trio.open_nursery() as nursery:

            async def cancel_when_first_arrives() -> None:
                await first.wait()
                await trio.testing.wait_all_tasks_blocked()  # the adapter is now blocked reading the socket
                scope.cancel()

            nursery.start_soon(cancel_when_first_arrives)
            async with aclosing(adapter.stream(req(), CancelToken())) as stream:  # type: ignore[type-var]
                async for chunk in stream:
                    seen.append(chunk)
                    first.set()
    assert scope.cancelled_caught and seen == [TextDelta(text="first")]
    # the cancelled response was closed and the adapter still works
    assert TextDelta(text="after") in await collect(adapter, req())


async def test_consumer_stopping_early_closes_the_response(server: ScriptedServer, make_adapter: MakeAdapter) -> None:
    body = shapes.text_stream(["first"])
    server.add(Reply.sse([body[0], body[1], Delay(30), *body[2:]]), Reply.sse(shapes.text_stream(["after"])))
    adapter = make_adapter()
    async with aclosing(adapter.stream(req(), CancelToken())) as stream:  # type: ignore[type-var]
        async for chunk in stream:
            assert chunk == TextDelta(text="first")
            break
    assert TextDelta(text="after") in await collect(adapter, req())


async def test_a_compressed_stream_is_decoded(server: ScriptedServer, make_adapter: MakeAdapter) -> None:
    packed = gzip.compress(b"".join(shapes.text_stream(["zipped"])))
    server.add(Reply(headers={"content-encoding": "gzip"}, body=(packed[:20], packed[20:]), framing="length"))
    chunks = await collect(make_adapter(), req())
    assert TextDelta(text="zipped") in chunks
    assert server.requests[0].headers["accept-encoding"] == "identity"


async def test_a_corrupt_compressed_stream_is_malformed(server: ScriptedServer, make_adapter: MakeAdapter) -> None:
    server.add(Reply(headers={"content-encoding": "gzip"}, body=(b"definitely not gzip",), framing="length"))
    _, error = await fail(make_adapter())
    assert error.code == "MALFORMED_STREAM"
    assert len(server.requests) == 1
