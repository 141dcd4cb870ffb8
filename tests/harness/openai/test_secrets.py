"""The API key never leaves the process except as the Authorization header."""

from __future__ import annotations

import logging
import traceback
from contextlib import aclosing

import pytest

from hookspecs.errors import LlmError
from hookspecs.values.cancel import CancelToken
from hookspecs.values.llm import LlmRequest, RetryNotice, StreamChunk, chunk_to_json
from hookspecs.values.messages import create_user_message

from . import shapes
from .conftest import API_KEY, MakeAdapter
from .server import Delay, Disconnect, Reply, ScriptedServer

ECHO = {"error": {"message": f"bad key {API_KEY} (Bearer {API_KEY})", "param": API_KEY}}

SCENARIOS: dict[str, list[Reply]] = {
    "400 echoing the key": [Reply.error(400, ECHO)],
    "429 then 503 echoing the key": [
        Reply.error(429, ECHO, {"retry-after": "0"}),
        Reply.error(503, ECHO),
        Reply.error(503, ECHO),
    ],
    "key in a malformed line": [Reply.sse([b"data: {" + API_KEY.encode() + b"\n\n"])],
    "key in an error event": [Reply.sse([shapes.event(shapes.chunk(content="x")), shapes.event(ECHO)])],
    "key in a json 200": [Reply(headers={"content-type": "application/json"}, body=(repr(ECHO).encode(),), framing="length")],
    "disconnect": [Reply.sse([shapes.event(shapes.chunk(content="x")), Disconnect()])],
    "timeout": [Reply.sse([shapes.event(shapes.chunk(content="x")), Delay(30)])],
    "unknown finish reason": [Reply.sse(shapes.text_stream(["x"], finish=API_KEY))],
}


def request() -> LlmRequest:
    return LlmRequest(provider="deepseek", model="deepseek-chat", system="", messages=(create_user_message("hi"),))


@pytest.mark.parametrize("scenario", list(SCENARIOS))
async def test_key_never_leaks(
    scenario: str, server: ScriptedServer, make_adapter: MakeAdapter, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)  # every logger, the HTTP client's included
    server.add(*SCENARIOS[scenario])
    adapter = make_adapter(max_retries=2, request_timeout_seconds=0.5, retry_base_seconds=0)
    chunks: list[StreamChunk] = []
    error: LlmError | None = None
    try:
        async with aclosing(adapter.stream(request(), CancelToken())) as stream:  # type: ignore[type-var]
            async for chunk in stream:
                chunks.append(chunk)
    except LlmError as exc:
        error = exc
    assert server.requests, "the scenario must reach the server"
    assert all(r.headers["authorization"] == f"Bearer {API_KEY}" for r in server.requests)

    texts = [repr(chunk_to_json(c)) for c in chunks]
    if error is not None:
        assert error.__cause__ is None and error.__suppress_context__  # no client exception or request (headers!) attached
        texts += [str(error), repr(error), repr(error.to_json()), "".join(traceback.format_exception(error))]
    for record in caplog.records:
        texts.append(record.getMessage())
        if record.exc_info:
            texts.append("".join(traceback.format_exception(*record.exc_info)))
    blob = "\n".join(texts)
    assert API_KEY not in blob
    assert API_KEY[3:15] not in blob  # not even a fragment
    if scenario.startswith("429"):
        assert [c.code for c in chunks if isinstance(c, RetryNotice)] == ["RATE_LIMITED", "SERVER_ERROR"]


async def test_missing_key_error_names_only_the_variable(make_adapter: MakeAdapter) -> None:
    adapter = make_adapter(environ={"OTHER": API_KEY})
    with pytest.raises(LlmError) as info:
        async for _ in adapter.stream(request(), CancelToken()):
            pass
    assert info.value.code == "MISSING_API_KEY"
    assert API_KEY not in str(info.value)


async def test_config_repr_holds_no_key(make_adapter: MakeAdapter) -> None:
    adapter = make_adapter()
    assert API_KEY not in repr(adapter.config)
