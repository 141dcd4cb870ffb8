"""``LlmRequest`` -> OpenAI chat-completions request body.

Conversion rules (the why is in the package docs):

* ``system`` becomes the first message (omitted when empty);
* user text and images become a ``user`` message (a plain string when there
  is only text, content parts when an image is present);
* each ``ToolResultBlock`` becomes a ``tool`` message with ``tool_call_id``
  (text only: images are replaced by a marker, an empty result by
  ``(no output)``); ``is_error`` has no wire field, the host's failure text
  already says ``Error [...]``;
* assistant text becomes ``content`` and ``ToolCallBlock``s ``tool_calls``;
* reasoning is dropped, except that an assistant message with tool calls
  that this same provider produced after the last user message (the tool loop
  of the current turn) carries it back as ``reasoning_content``, which
  DeepSeek's thinking mode requires there and which no other turn needs.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from hookspecs.errors import LlmError
from hookspecs.values.llm import LlmRequest
from hookspecs.values.messages import (
    ContentBlock,
    ImageBlock,
    Message,
    ReasoningBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
)

from .config import EffortParam, ModelSpec

#: The effort id that means "no reasoning": the parameter is left out.
EFFORT_OFF = "off"
EMPTY_TOOL_RESULT = "(no output)"


def resolve_effort(request: LlmRequest, spec: ModelSpec | None) -> str | None:
    """The effort to use: the request's, else the model's default.

    Raises ``LlmError`` ``INVALID_REASONING_EFFORT`` when the model lists its
    efforts and the chosen one is not among them; unlisted models pass any
    effort through.
    """
    effort = request.reasoning_effort
    if effort is None and spec is not None:
        effort = spec.default_effort
    if effort is not None and spec is not None and spec.reasoning_efforts and effort not in spec.reasoning_efforts:
        raise LlmError(
            f"{request.provider}: model {request.model!r} has no reasoning effort {effort!r} "
            f"(known: {', '.join(spec.reasoning_efforts)})",
            code="INVALID_REASONING_EFFORT",
        )
    return effort


def build_body(request: LlmRequest, *, effort: str | None, effort_param: EffortParam) -> dict[str, Any]:
    """The JSON body of a streaming ``POST /chat/completions``.

    ``request.metadata`` is host information and is never sent.
    """
    body: dict[str, Any] = {"model": request.model, "messages": convert_messages(request)}
    if request.tools:
        body["tools"] = [
            {"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}
            for t in request.tools
        ]
    if request.max_tokens is not None:
        body["max_tokens"] = request.max_tokens
    if request.temperature is not None:
        body["temperature"] = request.temperature
    if effort is not None and effort != EFFORT_OFF and effort_param == "reasoning_effort":
        body["reasoning_effort"] = effort
    body["stream"] = True
    body["stream_options"] = {"include_usage": True}
    return body


def convert_messages(request: LlmRequest) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if request.system:
        out.append({"role": "system", "content": request.system})
    last_user = max((i for i, m in enumerate(request.messages) if m.role == "user"), default=-1)
    for i, message in enumerate(request.messages):
        if message.role == "assistant":
            echo = i > last_user and _produced_by(message, request.provider)
            converted = assistant_message(message, echo_reasoning=echo)
            if converted is not None:
                out.append(converted)
        else:
            out.extend(input_messages(message))
    return out


def assistant_message(message: Message, *, echo_reasoning: bool = False) -> dict[str, Any] | None:
    """One ``assistant`` message, or None when nothing would be sent."""
    text = _join_text(message.content)
    calls = [
        {"id": b.id, "type": "function", "function": {"name": b.name, "arguments": b.arguments or "{}"}}
        for b in message.content
        if isinstance(b, ToolCallBlock)
    ]
    if not text and not calls:
        return None  # e.g. an interrupted reply with reasoning only
    out: dict[str, Any] = {"role": "assistant", "content": text if text or not calls else None}
    if calls:
        out["tool_calls"] = calls
        reasoning = "".join(b.text for b in message.content if isinstance(b, ReasoningBlock))
        if echo_reasoning and reasoning:
            out["reasoning_content"] = reasoning
    return out


def input_messages(message: Message) -> list[dict[str, Any]]:
    """``user`` and ``tool`` messages for a user- or tool-role message, in block order."""
    out: list[dict[str, Any]] = []
    parts: list[ContentBlock] = []
    for block in message.content:
        if isinstance(block, ToolResultBlock):
            _flush_user(parts, out)
            out.append({"role": "tool", "tool_call_id": block.tool_call_id, "content": tool_result_text(block)})
        elif isinstance(block, (TextBlock, ImageBlock)):
            parts.append(block)
        # reasoning and stray tool calls have no meaning in user input: dropped
    _flush_user(parts, out)
    return out


def tool_result_text(block: ToolResultBlock) -> str:
    pieces = []
    for inner in block.content:
        if isinstance(inner, TextBlock):
            pieces.append(inner.text)
        elif isinstance(inner, ImageBlock):
            pieces.append(f"[image {inner.media_type} omitted]")
    text = "\n".join(pieces)
    return text if text else EMPTY_TOOL_RESULT


def _flush_user(parts: list[ContentBlock], out: list[dict[str, Any]]) -> None:
    if not parts:
        return
    if all(isinstance(p, TextBlock) for p in parts):
        out.append({"role": "user", "content": _join_text(parts)})
    else:
        out.append({"role": "user", "content": [_user_part(p) for p in parts]})
    parts.clear()


def _user_part(block: ContentBlock) -> dict[str, Any]:
    if isinstance(block, ImageBlock):
        return {"type": "image_url", "image_url": {"url": f"data:{block.media_type};base64,{block.data}"}}
    assert isinstance(block, TextBlock)
    return {"type": "text", "text": block.text}


def _join_text(blocks: Iterable[ContentBlock]) -> str:
    return "\n".join(b.text for b in blocks if isinstance(b, TextBlock))


def _produced_by(message: Message, provider: str) -> bool:
    return message.source.get("kind") == "model" and message.source.get("provider") == provider
