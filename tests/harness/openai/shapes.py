"""Chat-completion chunks in the shapes real providers send (DeepSeek, OpenAI)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

DONE = b"data: [DONE]\n\n"
KEEP_ALIVE = b": keep-alive\n\n"  # DeepSeek sends these while the model thinks


def chunk(
    *,
    content: str | None = None,
    reasoning: str | None = None,
    tool_calls: Sequence[dict[str, Any]] | None = None,
    finish: str | None = None,
    usage: dict[str, Any] | None = None,
    role: str | None = None,
    choices: bool = True,
    id: str = "chatcmpl-7f3a",
    model: str = "deepseek-chat",
) -> dict[str, Any]:
    """One ``chat.completion.chunk`` object."""
    obj: dict[str, Any] = {
        "id": id,
        "object": "chat.completion.chunk",
        "created": 1735689600,
        "model": model,
        "system_fingerprint": "fp_3a5770e1b4",
    }
    if choices:
        delta: dict[str, Any] = {}
        if role is not None:
            delta["role"] = role
        if content is not None:
            delta["content"] = content
        if reasoning is not None:
            delta["reasoning_content"] = reasoning
        if tool_calls is not None:
            delta["tool_calls"] = list(tool_calls)
        obj["choices"] = [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]
    else:
        obj["choices"] = []
    if usage is not None:
        obj["usage"] = usage
    return obj


def call(index: int, *, id: str | None = None, name: str | None = None, arguments: str | None = None) -> dict[str, Any]:
    """One ``delta.tool_calls[]`` fragment."""
    out: dict[str, Any] = {"index": index}
    if id is not None:
        out["id"] = id
        out["type"] = "function"
    function: dict[str, Any] = {}
    if name is not None:
        function["name"] = name
    if arguments is not None:
        function["arguments"] = arguments
    out["function"] = function
    return out


def usage(prompt: int, completion: int, reasoning: int | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "prompt_tokens_details": {"cached_tokens": 0},
    }
    if reasoning is not None:
        out["completion_tokens_details"] = {"reasoning_tokens": reasoning}
    return out


def event(obj: Any) -> bytes:
    return b"data: " + json.dumps(obj, separators=(",", ":")).encode() + b"\n\n"


def events(objs: Iterable[Any], *, done: bool = True) -> list[bytes]:
    out = [event(obj) for obj in objs]
    if done:
        out.append(DONE)
    return out


def text_stream(pieces: Iterable[str], *, finish: str = "stop", model: str = "deepseek-chat") -> list[bytes]:
    """A plain text answer: role chunk, content chunks, finish chunk, usage chunk, [DONE]."""
    objs = [chunk(role="assistant", content="", model=model)]
    objs += [chunk(content=piece, model=model) for piece in pieces]
    objs.append(chunk(content="", finish=finish, model=model))
    objs.append(chunk(choices=False, usage=usage(12, 7), model=model))
    return events(objs)


#: A DeepSeek reasoner answer with a tool call, as recorded (ids shortened).
DEEPSEEK_TOOL_STREAM: list[bytes] = events(
    [
        chunk(role="assistant", content=None, reasoning="", model="deepseek-reasoner"),
        chunk(reasoning="The user wants ", model="deepseek-reasoner"),
        chunk(reasoning="the README.", model="deepseek-reasoner"),
        chunk(content="Let me ", model="deepseek-reasoner"),
        chunk(content="look.", model="deepseek-reasoner"),
        chunk(tool_calls=[call(0, id="call_0_a1", name="read", arguments="")], model="deepseek-reasoner"),
        chunk(tool_calls=[call(0, arguments='{"path":')], model="deepseek-reasoner"),
        chunk(tool_calls=[call(1, id="call_1_b2", name="grep", arguments='{"pat')], model="deepseek-reasoner"),
        chunk(tool_calls=[call(0, arguments=' "README.md"}')], model="deepseek-reasoner"),
        chunk(tool_calls=[call(1, arguments='tern": "x"}')], model="deepseek-reasoner"),
        chunk(
            content="",
            finish="tool_calls",
            usage=usage(120, 45, reasoning=30),
            model="deepseek-reasoner",
        ),
    ]
)
