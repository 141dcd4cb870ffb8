"""Scheduling a step's tool calls: parallel-safe runs share a bounded pool,
anything else is a barrier; results are committed in model order."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import trio

from hookspecs.scrub import scrub_text
from hookspecs.values import (
    CancelToken,
    EventTypes,
    Message,
    ToolCallBlock,
    ToolExecution,
    ToolResult,
    ToolResultBlock,
    message_to_json,
)

from ..sessions.history import committed_message
from . import pipeline

if TYPE_CHECKING:
    from ..runtime import LoopAgentView
    from ..sessions.log import SessionLog


def plan_groups(calls: Sequence[ToolCallBlock], is_safe: Callable[[str], bool], max_parallel: int) -> list[list[int]]:
    """Indices grouped: consecutive safe calls (at most ``max_parallel``) share a
    group; every other call is a group of its own."""
    groups: list[list[int]] = []
    current: list[int] = []
    for index, call in enumerate(calls):
        if is_safe(call.name):
            current.append(index)
            if len(current) >= max_parallel:
                groups.append(current)
                current = []
            continue
        if current:
            groups.append(current)
            current = []
        groups.append([index])
    if current:
        groups.append(current)
    return groups


def call_event(execution: ToolExecution) -> dict[str, Any]:
    return {
        "turn": execution.turn,
        "step": execution.step,
        "call_id": execution.call_id,
        "name": execution.name,
        "arguments": execution.raw_arguments,
    }


def result_event(execution: ToolExecution, result: ToolResult) -> dict[str, Any]:
    message = Message(
        id=f"result-{execution.call_id}",
        role="tool",
        content=(ToolResultBlock(tool_call_id=execution.call_id, content=result.content, is_error=result.is_error),),
        source={"kind": "tool", "call_id": execution.call_id},
    )
    data: dict[str, Any] = {
        "turn": execution.turn,
        "step": execution.step,
        "call_id": execution.call_id,
        "name": execution.name,
        "message": message_to_json(message),
    }
    if result.error is not None:
        data["error"] = {"code": result.error.code, "message": result.error.message}
    if result.meta:
        data["meta"] = result.meta
    return data


#: the error code of a result that stands in for one the log could not take
NOT_RECORDED = "RESULT_NOT_RECORDED"


def commit_result(session: SessionLog, execution: ToolExecution, result: ToolResult, logger: logging.Logger) -> Message:
    """Append the call's ``tool/result`` and return its message as committed.

    A result the log refuses (its ``meta`` is not JSON, say) is replaced by a
    ``RESULT_NOT_RECORDED`` error result, so the call is still answered exactly
    once; only a failed write (nothing more can be recorded) escapes.
    """
    data = result_event(execution, result)
    try:
        event = session.append(EventTypes.TOOL_RESULT, data)
    except Exception as exc:
        if session.write_failure is not None:
            raise
        reason = scrub_text(str(exc) or type(exc).__name__)
        logger.warning("tool %s: its result could not be recorded: %s", execution.name, reason)
        text = f"the result of tool {execution.name!r} could not be recorded ({reason}); the call may have had effects"
        data = result_event(execution, ToolResult.failure(NOT_RECORDED, text))
        event = session.append(EventTypes.TOOL_RESULT, data)
    return committed_message(event, data)


async def run_tool_calls(
    agent: LoopAgentView, turn: int, step: int, calls: Sequence[ToolCallBlock], token: CancelToken
) -> bool:
    """Run every call of one step; returns whether a result concluded the turn."""
    rt = agent.runtime
    session = agent.session
    executions = [pipeline.prepare(agent, call, turn, step, token) for call in calls]
    results: dict[int, ToolResult] = {}
    started: set[int] = set()
    committed = 0
    concluded = False

    def commit_ready() -> None:
        nonlocal committed, concluded
        while committed < len(calls) and committed in results:
            execution, result = executions[committed], results[committed]
            rt.hooks.tool_result(execution, result)
            agent.history.append(commit_result(session, execution, result, rt.logger))
            concluded = concluded or result.concludes_turn
            committed += 1

    async def run_one(index: int) -> None:
        results[index] = await pipeline.execute(agent, executions[index])
        commit_ready()

    def is_safe(name: str) -> bool:
        tool = rt.tools.get(name, agent)
        return bool(tool and tool.concurrency_safe)

    groups = plan_groups(calls, is_safe, rt.loop_settings().max_parallel_tool_calls)
    try:
        for group in groups:
            for index in group:
                session.append(EventTypes.TOOL_CALL, call_event(executions[index]))
                started.add(index)
            if len(group) == 1:
                await run_one(group[0])
            else:
                async with trio.open_nursery() as nursery:
                    for index in group:
                        nursery.start_soon(run_one, index)
    finally:
        if committed < len(calls):
            for index in range(committed, len(calls)):
                if index not in results:
                    if index not in started:
                        session.append(EventTypes.TOOL_CALL, call_event(executions[index]))
                    results[index] = pipeline.aborted_result(index in started)
            commit_ready()
    return concluded
