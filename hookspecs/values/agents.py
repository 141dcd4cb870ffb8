"""Values about agents: options, inbox targets, cancel causes, stream frames,
pre-step decisions, request configuration and system-prompt assembly."""

from __future__ import annotations

from typing import Any, Literal, TypeAlias

import attrs

from .llm import StreamChunk, ToolSchema
from .messages import Message

AgentStatus: TypeAlias = Literal["idle", "running"]

#: ``next-turn`` queues a message for a later turn; ``next-step`` joins the next
#: step boundary of the running turn (or the next turn when idle).
InboxTarget: TypeAlias = Literal["next-turn", "next-step"]

#: What happened to an inbox message: queued, taken into a step, or dropped.
InboxChange: TypeAlias = Literal["inserted", "claimed", "discarded"]

CancelBy: TypeAlias = Literal["user", "parent", "hook", "disposed"]


@attrs.frozen(kw_only=True)
class CancelCause:
    """Why an agent's active turn was cancelled; recorded in ``turn/end``."""

    by: CancelBy
    reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": "aborted", "by": self.by}
        if self.reason:
            out["reason"] = self.reason
        return out


@attrs.frozen(kw_only=True)
class AgentOptions:
    """The route and limits an agent's requests start from (before chain hooks)."""

    provider: str | None = None
    model: str | None = None
    reasoning_effort: str | None = None
    max_tokens: int | None = None

    @property
    def route(self) -> str | None:
        """``provider/model`` when both are set."""
        if self.provider and self.model:
            return f"{self.provider}/{self.model}"
        return None


# --- live stream frames (dsh_agent_stream) ------------------------------------------


@attrs.frozen(kw_only=True)
class StreamStart:
    """A model request is about to stream."""

    turn: int
    step: int


@attrs.frozen(kw_only=True)
class StreamDelta:
    """One chunk, delivered before it is committed to the log."""

    turn: int
    step: int
    chunk: StreamChunk


@attrs.frozen(kw_only=True)
class StreamEnd:
    """The request finished (successfully or not)."""

    turn: int
    step: int


StreamFrame: TypeAlias = StreamStart | StreamDelta | StreamEnd


# --- chain decisions ------------------------------------------------------------------


@attrs.frozen(kw_only=True)
class Enter:
    """Pre-step decision: run the step with these messages entered first."""

    messages: tuple[Message, ...] = ()


@attrs.frozen(kw_only=True)
class Reject:
    """Pre-step decision: do not run the step; the turn ends ``blocked``."""

    reason: str = ""


PreStepDecision: TypeAlias = Enter | Reject


@attrs.frozen(kw_only=True)
class LlmCallConfig:
    """What the next request uses; ``dsh_agent_request`` links may replace it."""

    provider: str
    model: str
    reasoning_effort: str | None = None
    max_tokens: int | None = None
    temperature: float | None = None

    @property
    def route(self) -> str:
        return f"{self.provider}/{self.model}"


PromptSectionKind: TypeAlias = Literal["instructions", "runtime-context"]


@attrs.frozen(kw_only=True)
class PromptSection:
    """One named part of the system prompt; lower ``order`` comes first.

    ``runtime-context`` sections describe the environment (working directory,
    date...); an agent scope may suppress them all.
    """

    name: str
    text: str
    order: int = 100
    kind: PromptSectionKind = "instructions"


@attrs.frozen(kw_only=True)
class PromptAssembly:
    """The system prompt sections and visible tools for one request."""

    sections: tuple[PromptSection, ...]
    tools: tuple[ToolSchema, ...]

    def render(self) -> str:
        ordered = sorted(self.sections, key=lambda s: (s.order, s.name))
        return "\n\n".join(s.text.strip() for s in ordered if s.text.strip())
