"""Tool definitions, executions, results and pre-execute decisions."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any, Literal, TypeAlias, Union

import attrs

from .cancel import CancelToken
from .live import Agent, ToolRunContext
from .llm import ToolSchema
from .messages import ContentBlock, TextBlock

#: What ``execute`` may return: plain text (a success) or a full result.
ToolOutput: TypeAlias = Union[str, "ToolResult"]

ToolExecute: TypeAlias = Callable[[dict[str, Any], ToolRunContext], Awaitable[ToolOutput]]

#: ``check_arguments(args) -> violations``: a tool's own rules beyond its schema.
ToolArgumentsCheck: TypeAlias = Callable[[dict[str, Any]], Sequence[str]]


@attrs.frozen(kw_only=True)
class ToolDefinition:
    """A tool the host can offer to models.

    :param name: ``^[a-z][a-z0-9_-]*$``; scoped tools shadow global ones by name.
    :param parameters: a JSON-Schema object (the supported subset is documented
        in ``docs/tools.md``); arguments are validated before ``execute`` runs and
        every violation is returned to the model as ``INVALID_ARGS``.
    :param execute: ``async (args, ctx) -> str | ToolResult``; may raise
        :class:`~hookspecs.errors.ToolArgsError` for semantic argument problems.
    :param concurrency_safe: True lets consecutive safe calls run in parallel;
        any other call is a barrier.
    :param requires_approval: the host's default pre-execute decision is ``ask``.
    :param root_only: hidden from, and refused for, child agents.
    :param timeout_seconds: enforced by the host as a cancel scope.
    :param check_arguments: the tool's own argument rules (cross-field, ranges
        a schema cannot say). The host runs it on every JSON-object argument
        *together with* the schema check, also when the schema check failed,
        and returns the violations of both in one ``INVALID_ARGS`` result, so
        the model fixes everything in one retry. It must accept any JSON object
        and must not block.
    """

    name: str
    description: str
    parameters: dict[str, Any]
    execute: ToolExecute = attrs.field(eq=False, repr=False)
    concurrency_safe: bool = False
    requires_approval: bool = False
    root_only: bool = False
    read_only: bool = False
    timeout_seconds: float | None = None
    check_arguments: ToolArgumentsCheck | None = attrs.field(default=None, eq=False, repr=False)
    #: what the model is shown; built once (it is sent with every request)
    schema: ToolSchema = attrs.field(init=False, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        object.__setattr__(
            self, "schema", ToolSchema(name=self.name, description=self.description, parameters=self.parameters)
        )


@attrs.frozen(kw_only=True)
class ToolFailure:
    """Why a tool call failed: a stable ``code`` and a model-facing message."""

    code: str
    message: str


@attrs.frozen(kw_only=True)
class ToolResult:
    """The outcome of one call, as committed to the log and shown to the model.

    ``value`` is the structured (JSON) result, ``content`` what the model reads.
    ``concludes_turn`` ends the turn after this step (unless steered).
    """

    is_error: bool = False
    content: tuple[ContentBlock, ...] = ()
    value: Any = None
    error: ToolFailure | None = None
    meta: dict[str, Any] | None = None
    concludes_turn: bool = False

    @classmethod
    def text(cls, text: str, *, value: Any = None, meta: dict[str, Any] | None = None) -> ToolResult:
        return cls(content=(TextBlock(text=text),), value=value, meta=meta)

    @classmethod
    def failure(cls, code: str, message: str) -> ToolResult:
        return cls(
            is_error=True,
            content=(TextBlock(text=f"Error [{code}]: {message}"),),
            error=ToolFailure(code=code, message=message),
        )

    @property
    def text_content(self) -> str:
        return "\n".join(b.text for b in self.content if isinstance(b, TextBlock))


@attrs.frozen(kw_only=True)
class ToolExecution:
    """One call on its way through the pipeline.

    ``arguments`` is the parsed JSON object (or the raw text when it did not
    parse); ``agent`` is the calling agent; ``cancel`` is cancelled when the
    turn is aborted.
    """

    call_id: str
    name: str
    arguments: Any
    raw_arguments: str
    agent: Agent = attrs.field(eq=False, repr=False)
    cancel: CancelToken = attrs.field(eq=False, repr=False)
    turn: int = 0
    step: int = 0


@attrs.frozen(kw_only=True)
class ToolFilter:
    """Names a scope may see and call; ``allow=None`` means every tool."""

    allow: tuple[str, ...] | None = None
    deny: tuple[str, ...] = ()

    @classmethod
    def of(cls, allow: Iterable[str] | None = None, deny: Iterable[str] = ()) -> ToolFilter:
        return cls(allow=None if allow is None else tuple(allow), deny=tuple(deny))

    def permits(self, name: str) -> bool:
        if name in self.deny:
            return False
        return self.allow is None or name in self.allow


# --- pre-execute decisions -------------------------------------------------------------


@attrs.frozen(kw_only=True)
class Allow:
    """Run the tool."""


@attrs.frozen(kw_only=True)
class Deny:
    """Refuse the call; ``reason`` is shown to the model."""

    reason: str


@attrs.frozen(kw_only=True)
class Ask:
    """Ask the approval service; only ``allowed-once`` runs the tool."""

    reason: str = ""


PreExecuteDecision: TypeAlias = Allow | Deny | Ask

ApprovalOutcome: TypeAlias = Literal["allowed-once", "rejected", "cancelled", "unavailable"]


@attrs.frozen(kw_only=True)
class ApprovalRequest:
    """A question for whoever answers approvals (a person at a terminal...).

    ``summary`` is one human-readable line; ``arguments`` the call's arguments
    (already redacted by the caller if needed).
    """

    agent: Agent = attrs.field(eq=False, repr=False)
    kind: str
    summary: str
    tool: str | None = None
    call_id: str | None = None
    arguments: Any = None
    cancel: CancelToken | None = attrs.field(default=None, eq=False, repr=False)
