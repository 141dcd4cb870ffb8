"""One tool call through the pipeline: parse, resolve, guard, validate (schema
and the tool's own check, every violation at once), decide,
approve, execute (with timeout), notify.

Every failure becomes an error result the model reads and may act on; only
turn cancellation escapes (as ``trio.Cancelled``).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs
import trio

from hookspecs.errors import ToolArgsError, ToolError
from hookspecs.scrub import scrub_text
from hookspecs.values import (
    ApprovalRequest,
    Ask,
    CancelToken,
    Deny,
    ToolCallBlock,
    ToolDefinition,
    ToolExecution,
    ToolResult,
    loads_strict,
)

from .schema import validate

if TYPE_CHECKING:
    from ..runtime import LoopAgentView

_NOT_PARSED = object()


@attrs.define(eq=False)
class ToolRunContextImpl:
    """Implements :class:`hookspecs.protocols.ToolRunContext`."""

    agent: LoopAgentView
    call_id: str
    cancel: CancelToken
    concluded: bool = False

    @property
    def cwd(self) -> Path:
        return self.agent.cwd

    def conclude_turn(self) -> None:
        self.concluded = True


def prepare(agent: LoopAgentView, call: ToolCallBlock, turn: int, step: int, token: CancelToken) -> ToolExecution:
    """Parse the raw argument text; an empty string means ``{}``. Text that is not
    JSON is kept as a string so the pipeline can report it to the model."""
    raw = call.arguments
    parsed: Any
    if raw.strip() == "":
        parsed = {}
    else:
        try:
            parsed = loads_strict(raw)
        except ValueError:
            parsed = raw
    return ToolExecution(
        call_id=call.id, name=call.name, arguments=parsed, raw_arguments=raw, agent=agent, cancel=token, turn=turn, step=step
    )


async def execute(agent: LoopAgentView, execution: ToolExecution) -> ToolResult:
    """Run one call of ``agent`` (prepared by :func:`prepare`) to its final result;
    never raises except on cancellation."""
    try:
        return await _execute(agent, execution)
    except Exception as exc:  # a faulty guard or hook: fail closed, keep the turn alive
        agent.runtime.logger.exception("tool call %s failed in the pipeline", execution.call_id)
        return ToolResult.failure("TOOL_FAILED", f"tool {execution.name!r} could not run: {scrub_text(str(exc) or type(exc).__name__)}")


async def _execute(agent: LoopAgentView, execution: ToolExecution) -> ToolResult:
    rt = agent.runtime
    name = execution.name
    tool = rt.tools.get(name, agent)
    if tool is None:
        available = ", ".join(t.name for t in rt.tools.visible(agent)) or "none"
        return ToolResult.failure("UNKNOWN_TOOL", f"tool {name!r} is not available to this agent (available: {available})")
    for guard in list(agent.scope.tools.guards):
        reason = guard(execution)
        if reason:
            return ToolResult.failure("DENIED", reason)
    args = execution.arguments
    if isinstance(args, str):
        return ToolResult.failure("INVALID_ARGS", f"arguments for tool {name!r} are not valid JSON; send a JSON object")
    if not isinstance(args, dict):
        return ToolResult.failure("INVALID_ARGS", f"arguments for tool {name!r} must be a JSON object")
    violations = _violations(tool, args)
    if violations:
        return ToolResult.failure("INVALID_ARGS", f"invalid arguments for tool {name!r}: " + "; ".join(violations))
    decision = await rt.hooks.tool_pre_execute(execution, tool)
    if isinstance(decision, Deny):
        return ToolResult.failure("DENIED", decision.reason or f"tool {name!r} was denied")
    if isinstance(decision, Ask):
        outcome = await rt.approval.request(
            ApprovalRequest(
                agent=agent,
                kind="tool",
                summary=decision.reason or f"run tool {name}",
                tool=name,
                call_id=execution.call_id,
                arguments=args,
                cancel=execution.cancel,
            )
        )
        if outcome != "allowed-once":
            return ToolResult.failure("NOT_APPROVED", _refusal_text(name, outcome))
    return await _run(agent, tool, execution, args)


def _violations(tool: ToolDefinition, args: dict[str, Any]) -> list[str]:
    """The schema's violations and the tool's own, together: stopping at the
    schema would cost the model one retry per layer."""
    violations = validate(args, tool.parameters)
    if tool.check_arguments is not None:
        violations.extend(v for v in tool.check_arguments(args) if v not in violations)
    return violations


async def _run(agent: LoopAgentView, tool: ToolDefinition, execution: ToolExecution, args: dict[str, Any]) -> ToolResult:
    ctx = ToolRunContextImpl(agent=agent, call_id=execution.call_id, cancel=execution.cancel)
    timeout = tool.timeout_seconds if tool.timeout_seconds else math.inf
    try:
        with trio.move_on_after(timeout) as scope:
            output = await tool.execute(args, ctx)
        if scope.cancelled_caught:
            return ToolResult.failure("TIMEOUT", f"tool {tool.name!r} did not finish within {timeout:g} seconds")
    except ToolArgsError as exc:
        return ToolResult.failure("INVALID_ARGS", f"invalid arguments for tool {tool.name!r}: " + "; ".join(exc.violations))
    except ToolError as exc:
        return ToolResult.failure(exc.code, scrub_text(exc.message))
    except Exception as exc:
        agent.runtime.logger.warning("tool %s failed: %s", tool.name, scrub_text(repr(exc)))
        return ToolResult.failure("TOOL_FAILED", f"tool {tool.name!r} failed: {scrub_text(str(exc) or type(exc).__name__)}")
    if isinstance(output, str):
        result = ToolResult.text(output)
    elif isinstance(output, ToolResult):
        result = output
    else:
        return ToolResult.failure("INVALID_TOOL_OUTPUT", f"tool {tool.name!r} returned {type(output).__name__}")
    if ctx.concluded and not result.concludes_turn:
        result = attrs.evolve(result, concludes_turn=True)
    return result


def _refusal_text(name: str, outcome: str) -> str:
    if outcome == "unavailable":
        return (
            f"tool {name!r} needs approval and no approver is available; nothing was changed. "
            "Approve interactively with `harness chat`, or answer without this tool."
        )
    return f"tool {name!r} was not approved ({outcome}); nothing was changed."


def aborted_result(started: bool) -> ToolResult:
    if started:
        return ToolResult.failure("ABORTED", "the turn was cancelled while this tool call ran")
    return ToolResult.failure("ABORTED_BEFORE_DISPATCH", "the turn was cancelled before this tool call started")
