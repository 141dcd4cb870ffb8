"""LlmRequest -> chat-completions body (pure conversion, no network)."""

from __future__ import annotations

from typing import Any

import pytest

from harness.llm.openai_compat.config import ModelSpec
from harness.llm.openai_compat.wire import build_body, convert_messages, resolve_effort
from hookspecs.errors import LlmError
from hookspecs.values.llm import LlmRequest, ToolSchema
from hookspecs.values.messages import (
    ImageBlock,
    Message,
    ReasoningBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    create_user_message,
)

MODEL_SOURCE = {"kind": "model", "provider": "deepseek", "model": "deepseek-reasoner"}


def assistant(*blocks: Any, provider: str = "deepseek") -> Message:
    return Message(id="a", role="assistant", content=tuple(blocks), source={**MODEL_SOURCE, "provider": provider})


def tool_result(call_id: str, *blocks: Any, is_error: bool = False) -> Message:
    return Message(
        id=f"result-{call_id}",
        role="tool",
        content=(ToolResultBlock(tool_call_id=call_id, content=tuple(blocks), is_error=is_error),),
        source={"kind": "tool", "call_id": call_id},
    )


def request(*messages: Message, **kwargs: Any) -> LlmRequest:
    fields: dict[str, Any] = {"provider": "deepseek", "model": "deepseek-chat", "system": "You are terse."}
    fields.update(kwargs)
    return LlmRequest(messages=tuple(messages), **fields)


def body(req: LlmRequest, effort: str | None = None, param: Any = "reasoning_effort") -> dict[str, Any]:
    return build_body(req, effort=effort, effort_param=param)


def test_minimal_body() -> None:
    out = body(request(create_user_message("hi"), metadata={"session_id": "s1", "turn": 3}))
    assert out == {
        "model": "deepseek-chat",
        "messages": [{"role": "system", "content": "You are terse."}, {"role": "user", "content": "hi"}],
        "stream": True,
        "stream_options": {"include_usage": True},
    }


def test_empty_system_prompt_is_omitted() -> None:
    assert convert_messages(request(create_user_message("hi"), system="")) == [{"role": "user", "content": "hi"}]


def test_tools_limits_and_effort() -> None:
    read = ToolSchema(name="read", description="Read a file", parameters={"type": "object", "properties": {}})
    out = body(request(create_user_message("hi"), tools=(read,), max_tokens=512, temperature=0.2), effort="high")
    assert out["tools"] == [
        {
            "type": "function",
            "function": {"name": "read", "description": "Read a file", "parameters": {"type": "object", "properties": {}}},
        }
    ]
    assert (out["max_tokens"], out["temperature"], out["reasoning_effort"]) == (512, 0.2, "high")
    assert list(out)[-2:] == ["stream", "stream_options"]


@pytest.mark.parametrize(("effort", "param"), [("off", "reasoning_effort"), (None, "reasoning_effort"), ("high", "none")])
def test_effort_not_sent(effort: str | None, param: str) -> None:
    assert "reasoning_effort" not in body(request(create_user_message("hi")), effort=effort, param=param)


def test_resolve_effort() -> None:
    spec = ModelSpec(id="deepseek-chat", reasoning_efforts=("off", "low", "high", "max"), default_effort="high")
    assert resolve_effort(request(), spec) == "high"
    assert resolve_effort(request(reasoning_effort="off"), spec) == "off"
    assert resolve_effort(request(reasoning_effort="anything"), ModelSpec(id="deepseek-chat")) == "anything"
    assert resolve_effort(request(reasoning_effort="low"), None) == "low"
    assert resolve_effort(request(), None) is None
    with pytest.raises(LlmError) as info:
        resolve_effort(request(reasoning_effort="medium"), spec)
    assert info.value.code == "INVALID_REASONING_EFFORT"
    assert "'medium'" in info.value.message and "off, low, high, max" in info.value.message


def test_a_tool_loop_round_trip() -> None:
    req = request(
        create_user_message("read it"),
        assistant(
            ReasoningBlock(text="need the file"),
            TextBlock(text="Reading."),
            ToolCallBlock(id="call_1", name="read", arguments='{"path": "a"}'),
            ToolCallBlock(id="call_2", name="grep", arguments=""),
        ),
        tool_result("call_1", TextBlock(text="line 1"), TextBlock(text="line 2")),
        tool_result("call_2", TextBlock(text="Error [NOT_FOUND]: no match"), is_error=True),
    )
    assert convert_messages(req)[1:] == [
        {"role": "user", "content": "read it"},
        {
            "role": "assistant",
            "content": "Reading.",
            "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "read", "arguments": '{"path": "a"}'}},
                {"id": "call_2", "type": "function", "function": {"name": "grep", "arguments": "{}"}},
            ],
            "reasoning_content": "need the file",
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "line 1\nline 2"},
        {"role": "tool", "tool_call_id": "call_2", "content": "Error [NOT_FOUND]: no match"},
    ]


def test_reasoning_is_not_sent_back_outside_the_current_tool_loop() -> None:
    calls = ToolCallBlock(id="c", name="read", arguments="{}")
    req = request(
        create_user_message("one"),
        assistant(ReasoningBlock(text="old thoughts"), calls),
        tool_result("c", TextBlock(text="x")),
        assistant(ReasoningBlock(text="done thinking"), TextBlock(text="Answer.")),
        create_user_message("two"),
        assistant(ReasoningBlock(text="other provider"), calls, provider="openai"),
        tool_result("c", TextBlock(text="y")),
        assistant(ReasoningBlock(text="text only"), TextBlock(text="Hmm.")),
    )
    sent = [m for m in convert_messages(req) if m["role"] == "assistant"]
    assert [m["content"] for m in sent] == [None, "Answer.", None, "Hmm."]
    assert all("reasoning_content" not in m for m in sent)


def test_user_images_become_content_parts() -> None:
    msg = create_user_message([TextBlock(text="what is this?"), ImageBlock(media_type="image/png", data="iVBOR")])
    assert convert_messages(request(msg))[1] == {
        "role": "user",
        "content": [
            {"type": "text", "text": "what is this?"},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBOR"}},
        ],
    }


def test_tool_result_edge_cases() -> None:
    req = request(
        tool_result("a"),
        tool_result("b", ImageBlock(media_type="image/png", data="x"), TextBlock(text="caption")),
    )
    assert convert_messages(req)[1:] == [
        {"role": "tool", "tool_call_id": "a", "content": "(no output)"},
        {"role": "tool", "tool_call_id": "b", "content": "[image image/png omitted]\ncaption"},
    ]


def test_mixed_user_message_keeps_block_order() -> None:
    msg = Message(
        id="u",
        role="user",
        content=(
            ToolResultBlock(tool_call_id="c", content=(TextBlock(text="out"),)),
            ReasoningBlock(text="dropped"),
            TextBlock(text="and also"),
        ),
    )
    assert convert_messages(request(msg, system="")) == [
        {"role": "tool", "tool_call_id": "c", "content": "out"},
        {"role": "user", "content": "and also"},
    ]


def test_reasoning_only_assistant_message_is_skipped() -> None:
    req = request(create_user_message("hi"), assistant(ReasoningBlock(text="interrupted")), system="")
    assert convert_messages(req) == [{"role": "user", "content": "hi"}]
