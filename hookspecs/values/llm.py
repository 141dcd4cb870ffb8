"""Values exchanged with LLM adapters: requests, model info and stream chunks."""

from __future__ import annotations

from typing import Any, ClassVar, Literal, TypeAlias

import attrs

from .messages import Message


@attrs.frozen(kw_only=True)
class ModelInfo:
    """What a provider says about one model.

    ``context_window`` and ``max_output_tokens`` are in tokens (``None`` when
    unknown); ``reasoning_efforts`` lists the adapter-owned effort ids, in
    ascending order, and ``default_effort`` the one used when none is chosen.
    """

    id: str
    name: str = ""
    context_window: int | None = None
    max_output_tokens: int | None = None
    reasoning_efforts: tuple[str, ...] = ()
    default_effort: str | None = None


@attrs.frozen(kw_only=True)
class ToolSchema:
    """A tool as the model sees it: name, description and JSON-Schema parameters."""

    name: str
    description: str
    parameters: dict[str, Any]


@attrs.frozen(kw_only=True)
class LlmRequest:
    """One model call.

    ``metadata`` is host information adapters may use but must not send
    (``session_id``, ``delegation_depth``, ``turn``, ``step``); the scripted
    adapter matches on it.
    """

    provider: str
    model: str
    system: str
    messages: tuple[Message, ...]
    tools: tuple[ToolSchema, ...] = ()
    reasoning_effort: str | None = None
    max_tokens: int | None = None
    temperature: float | None = None
    metadata: dict[str, Any] = attrs.field(factory=dict)


# --- stream chunks ---------------------------------------------------------------


@attrs.frozen(kw_only=True)
class TextDelta:
    TYPE: ClassVar[str] = "text-delta"
    text: str


@attrs.frozen(kw_only=True)
class ReasoningDelta:
    TYPE: ClassVar[str] = "reasoning-delta"
    text: str


@attrs.frozen(kw_only=True)
class ToolCallDelta:
    """Part of a streamed tool call; parts with the same ``index`` concatenate.

    ``id`` and ``name`` arrive on the first part; ``arguments`` is a fragment of
    the raw JSON argument text.
    """

    TYPE: ClassVar[str] = "tool-call-delta"
    index: int
    id: str | None = None
    name: str | None = None
    arguments: str = ""


@attrs.frozen(kw_only=True)
class UsageChunk:
    TYPE: ClassVar[str] = "usage"
    input_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int = 0


FinishReason: TypeAlias = Literal["stop", "tool-calls", "max-tokens", "content-filter"]


@attrs.frozen(kw_only=True)
class FinishChunk:
    """The provider's stop reason; the last chunk of a successful stream."""

    TYPE: ClassVar[str] = "finish"
    reason: FinishReason


@attrs.frozen(kw_only=True)
class RetryNotice:
    """The adapter is about to retry after a transient failure.

    Sent before any content chunk of the retried attempt; the loop records it as
    an ``llm/retry`` event. Never carries credentials.
    """

    TYPE: ClassVar[str] = "retry"
    attempt: int
    delay_seconds: float
    code: str
    status: int | None = None


StreamChunk: TypeAlias = TextDelta | ReasoningDelta | ToolCallDelta | UsageChunk | FinishChunk | RetryNotice


def chunk_to_json(chunk: StreamChunk) -> dict[str, Any]:
    """The ``assistant/chunk`` payload for one stream chunk."""
    out: dict[str, Any] = {"type": chunk.TYPE}
    for field in attrs.fields(type(chunk)):
        value = getattr(chunk, field.name)
        if value is not None:
            out[field.name] = value
    return out
