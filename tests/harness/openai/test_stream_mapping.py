"""Chat-completion chunks -> host stream chunks (no network)."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest

from harness.llm.openai_compat.sse import SseDecoder
from harness.llm.openai_compat.stream import DeltaAssembler
from hookspecs.errors import LlmError
from hookspecs.values.llm import FinishChunk, ReasoningDelta, StreamChunk, TextDelta, ToolCallDelta, UsageChunk

from . import shapes


def assembler() -> DeltaAssembler:
    return DeltaAssembler("deepseek", request_id=None, clean=lambda text: text.replace("SECRET", "[credential]"))


def run(blocks: list[bytes], *, per_block: bool = True) -> tuple[list[StreamChunk], DeltaAssembler]:
    """Feed ``blocks`` (each its own network block unless ``per_block`` is False)."""
    asm = assembler()
    decoder = SseDecoder()
    out: list[StreamChunk] = []
    for block in blocks if per_block else [b"".join(blocks)]:
        out += asm.accept(decoder.feed(block))
    out += asm.accept(decoder.close())
    out += asm.end()
    return out, asm


def test_recorded_deepseek_tool_stream() -> None:
    chunks, asm = run(shapes.DEEPSEEK_TOOL_STREAM)
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
    assert asm.request_id == "chatcmpl-7f3a" and asm.done


def test_one_network_block_is_merged_into_runs() -> None:
    chunks, _ = run(shapes.DEEPSEEK_TOOL_STREAM, per_block=False)
    assert chunks == [
        ReasoningDelta(text="The user wants the README."),
        TextDelta(text="Let me look."),
        ToolCallDelta(index=0, id="call_0_a1", name="read", arguments='{"path":'),
        ToolCallDelta(index=1, id="call_1_b2", name="grep", arguments='{"pat'),
        ToolCallDelta(index=0, arguments=' "README.md"}'),
        ToolCallDelta(index=1, arguments='tern": "x"}'),
        UsageChunk(input_tokens=120, output_tokens=45, reasoning_tokens=30),
        FinishChunk(reason="tool-calls"),
    ]


def assembled_calls(chunks: list[StreamChunk]) -> dict[int, list[Any]]:
    calls: dict[int, list[Any]] = {}
    for chunk in chunks:
        if isinstance(chunk, ToolCallDelta):
            entry = calls.setdefault(chunk.index, [None, None, ""])
            assert chunk.id is None or entry[0] is None, "id sent twice"
            assert chunk.name is None or entry[1] is None, "name sent twice"
            entry[0] = entry[0] or chunk.id
            entry[1] = entry[1] or chunk.name
            entry[2] += chunk.arguments
    return calls


@pytest.mark.parametrize("per_block", [True, False])
def test_tool_calls_assemble_by_index_and_ids_are_sent_once(per_block: bool) -> None:
    # Some servers repeat id and name on every fragment; the first one wins.
    objs = [
        shapes.chunk(tool_calls=[shapes.call(1, id="b", name="grep", arguments='{"q"')]),
        shapes.chunk(tool_calls=[shapes.call(0, id="a", name="read", arguments="{")]),
        shapes.chunk(tool_calls=[shapes.call(1, id="b", name="grep", arguments=': "x"}')]),
        shapes.chunk(tool_calls=[shapes.call(0, id="a", name="read", arguments="}")]),
        shapes.chunk(finish="tool_calls"),
    ]
    chunks, _ = run(shapes.events(objs), per_block=per_block)
    assert assembled_calls(chunks) == {1: ["b", "grep", '{"q": "x"}'], 0: ["a", "read", "{}"]}
    assert chunks[-1] == FinishChunk(reason="tool-calls")


def test_whole_calls_without_index_use_their_position() -> None:
    whole = [{"id": "a", "function": {"name": "ls", "arguments": "{}"}}, {"id": "b", "function": {"name": "pwd"}}]
    chunks, _ = run(shapes.events([shapes.chunk(tool_calls=whole, finish="tool_calls")]))
    assert chunks[:2] == [
        ToolCallDelta(index=0, id="a", name="ls", arguments="{}"),
        ToolCallDelta(index=1, id="b", name="pwd", arguments=""),
    ]


@pytest.mark.parametrize(
    ("raw", "mapped"),
    [
        ("stop", "stop"),
        ("tool_calls", "tool-calls"),
        ("function_call", "tool-calls"),
        ("length", "max-tokens"),
    ],
)
def test_finish_reasons(raw: str, mapped: str) -> None:
    chunks, asm = run(shapes.text_stream(["hi"], finish=raw))
    assert chunks[-1] == FinishChunk(reason=mapped)  # type: ignore[arg-type]
    assert asm.finish_raw == raw


@pytest.mark.parametrize(
    ("raw", "code", "retryable"),
    [
        ("insufficient_system_resource", "GENERATION_INTERRUPTED", True),  # DeepSeek
        ("content_filter", "CONTENT_FILTERED", False),  # OpenAI, DeepSeek, OpenRouter
        ("error", "GENERATION_FAILED", False),  # OpenRouter, vLLM
        ("abort", "GENERATION_INTERRUPTED", False),  # vLLM
    ],
)
def test_an_interrupted_or_filtered_generation_is_an_error(raw: str, code: str, retryable: bool) -> None:
    asm = assembler()
    decoder = SseDecoder()
    content: list[StreamChunk] = []
    for block in shapes.text_stream(["cut ", "off"], finish=raw):
        content += asm.accept(decoder.feed(block))
    assert content == [TextDelta(text="cut "), TextDelta(text="off")]  # the partial text still streams
    with pytest.raises(LlmError) as info:
        asm.end()  # never a FinishChunk: the turn must not complete on cut-off text
    assert (info.value.code, info.value.retryable, info.value.request_id) == (code, retryable, "chatcmpl-7f3a")
    assert f"finish_reason {raw!r}" in info.value.message and info.value.message.startswith("deepseek: ")


def test_unknown_finish_reason_is_stop_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        chunks, _ = run(shapes.text_stream(["hi"], finish="eos_token_SECRET"))
    assert chunks[-1] == FinishChunk(reason="stop")
    assert "eos_token_[credential]" in caplog.text and "SECRET" not in caplog.text


def test_usage_in_its_own_final_chunk_openai_style() -> None:
    chunks, _ = run(shapes.text_stream(["a", "b"]))
    assert chunks[-2:] == [UsageChunk(input_tokens=12, output_tokens=7, reasoning_tokens=0), FinishChunk(reason="stop")]


def test_done_without_finish_reason_is_stop() -> None:
    chunks, _ = run(shapes.events([shapes.chunk(content="x")]))
    assert chunks == [TextDelta(text="x"), FinishChunk(reason="stop")]


def test_finish_reason_without_done_is_complete() -> None:
    chunks, _ = run(shapes.events([shapes.chunk(content="x", finish="stop")], done=False))
    assert chunks == [TextDelta(text="x"), FinishChunk(reason="stop")]


def test_neither_finish_nor_done_is_truncated() -> None:
    with pytest.raises(LlmError) as info:
        run(shapes.events([shapes.chunk(content="x")], done=False))
    assert info.value.code == "STREAM_TRUNCATED"
    assert info.value.request_id == "chatcmpl-7f3a"


def test_events_after_done_are_ignored() -> None:
    chunks, _ = run([shapes.event(shapes.chunk(content="x", finish="stop")), shapes.DONE, b"data: {broken\n\n"])
    assert chunks == [TextDelta(text="x"), FinishChunk(reason="stop")]


def test_null_and_empty_fields_are_tolerated() -> None:
    objs = [
        {"id": "x", "choices": [{"index": 0, "delta": {"role": "assistant", "content": None, "tool_calls": None}}]},
        {"id": "x", "choices": [{"index": 0, "delta": None, "finish_reason": None}]},
        {"id": "x", "choices": [{"index": 1, "delta": {"content": "second choice"}}]},
        {"id": "x", "choices": [{"delta": {"reasoning": "openrouter spelling"}}]},
        {"id": "x", "choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": None}},
        {"id": "x", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
    ]
    chunks, _ = run(shapes.events(objs))
    assert chunks == [
        ReasoningDelta(text="openrouter spelling"),
        UsageChunk(input_tokens=3, output_tokens=0, reasoning_tokens=0),
        FinishChunk(reason="stop"),
    ]


@pytest.mark.parametrize(
    ("payload", "problem"),
    [
        (b'{"choices": [', "invalid JSON"),
        (b"[1, 2]", "expected a JSON object"),
        (b'{"choices": {"0": 1}}', "'choices' is not a list"),
        (b'{"choices": [{"index": 0, "delta": {"tool_calls": {"a": 1}}}]}', "'tool_calls' is not a list"),
        (b'{"a": 1} trailing', "invalid JSON"),
        (b'\xff{"a": 1}', "invalid"),
    ],
)
def test_malformed_events_name_the_line(payload: bytes, problem: str) -> None:
    blocks = [shapes.event(shapes.chunk(content="ok")), b": ping\n\n", b"data: " + payload + b"\n\n"]
    with pytest.raises(LlmError) as info:
        run(blocks)
    assert info.value.code == "MALFORMED_STREAM"
    assert "line 5" in info.value.message and problem in info.value.message


def test_a_malformed_line_excerpt_is_cleaned() -> None:
    with pytest.raises(LlmError) as info:
        run([b'data: {"key": "SECRET"\n\n'])
    assert "SECRET" not in info.value.message and "[credential]" in info.value.message


def test_whitespace_around_json_is_accepted() -> None:
    chunks, _ = run([b'data:   {"choices":[{"delta":{"content":"x"},"finish_reason":"stop"}]}  \n\n'])
    assert chunks == [TextDelta(text="x"), FinishChunk(reason="stop")]


def test_error_object_mid_stream() -> None:
    blocks = [shapes.event(shapes.chunk(content="x")), shapes.event({"error": {"message": "overloaded SECRET"}})]
    asm = assembler()
    decoder = SseDecoder()
    assert asm.accept(decoder.feed(blocks[0])) == [TextDelta(text="x")]
    with pytest.raises(LlmError) as info:
        asm.accept(decoder.feed(blocks[1]))
    assert info.value.code == "PROVIDER_ERROR"
    assert "overloaded [credential]" in info.value.message


def test_text_pieces_survive_json_escapes() -> None:
    pieces = ['line\n', 'tab\t"quote"', "ünïcødé ✓", "\\back"]
    chunks, _ = run(shapes.text_stream(pieces), per_block=False)
    assert chunks[0] == TextDelta(text="".join(pieces))
    assert json.loads(shapes.event(shapes.chunk(content=pieces[2]))[6:])["choices"][0]["delta"]["content"] == pieces[2]
