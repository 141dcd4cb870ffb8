# Hook specifications are declarations: pluggy never runs their bodies.
# mypy: disable-error-code="empty-body"
"""Tool, command and approval hooks."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from .markers import hookspec

if TYPE_CHECKING:
    from .values.commands import CommandDefinition
    from .values.tools import (
        ApprovalOutcome,
        ApprovalRequest,
        PreExecuteDecision,
        ToolDefinition,
        ToolExecution,
        ToolResult,
    )


@hookspec
def dsh_register_tools(register: Callable[[ToolDefinition], None]) -> None:
    """Contribute global tools.

    When: once at host start, before ``dsh_plugin_setup``.

    Arguments: ``register(tool)`` — adds one
    :class:`~hookspecs.values.tools.ToolDefinition`. Its parameter schema is
    checked now; a duplicate name or an unsupported schema fails the start with
    the plugin and tool named.

    Return: nothing.

    Semantics: register hook.

    Timing: synchronous and quick.
    """


@hookspec
def dsh_register_commands(register: Callable[[CommandDefinition], None]) -> None:
    """Contribute slash commands.

    When: once at host start, before ``dsh_plugin_setup``.

    Arguments: ``register(command)`` — adds one
    :class:`~hookspecs.values.commands.CommandDefinition`; duplicates fail.

    Return: nothing.

    Semantics: register hook.

    Timing: synchronous and quick.
    """


@hookspec
def dsh_tool_pre_execute(
    execution: ToolExecution,
    tool: ToolDefinition,
    call_next: Callable[..., Awaitable[PreExecuteDecision]],
) -> PreExecuteDecision | Awaitable[PreExecuteDecision]:
    """Allow, deny or ask about one validated tool call.

    When: after the arguments passed the schema and every guard, before
    ``execute``.

    Arguments: ``execution`` — the call; ``tool`` — its definition;
    ``call_next()`` — the rest of the chain.

    Return: ``Allow()``, ``Deny(reason)`` or ``Ask(reason)``. The host's default is
    ``Ask`` for tools with ``requires_approval`` and ``Allow`` otherwise. ``Ask``
    goes to ``host.approval``; only ``allowed-once`` runs the tool.

    Semantics: chain.

    Timing: may await (the call waits).
    """


@hookspec
def dsh_tool_result(execution: ToolExecution, result: ToolResult) -> Awaitable[None] | None:
    """A tool call finished and its result is final.

    When: after the call settled (success, error, refusal or abort), before its
    ``tool/result`` event is committed.

    Arguments: ``execution``; ``result`` — the frozen
    :class:`~hookspecs.values.tools.ToolResult`.

    Return: nothing (``None``, or an awaitable the host runs in the background, never awaited).

    Semantics: observer.

    Timing: must not block.
    """


@hookspec
def dsh_approval_request(
    request: ApprovalRequest,
    call_next: Callable[..., Awaitable[ApprovalOutcome]],
) -> ApprovalOutcome | Awaitable[ApprovalOutcome]:
    """Answer an approval request.

    When: ``host.approval.request(...)`` was called (for example for an ``Ask``
    pre-execute decision) inside an open turn, and the session's approval policy
    is not ``never``.

    Arguments: ``request`` — what is asked; ``call_next()`` — ask the next answerer.

    Return: ``"allowed-once"``, ``"rejected"``, ``"cancelled"`` or
    ``"unavailable"``. The host's default (no answerer) is ``"unavailable"``,
    which refuses the action.

    Semantics: chain; an answerer that cannot answer returns ``await call_next()``.

    Timing: may await a person; must honour ``request.cancel``.
    """
