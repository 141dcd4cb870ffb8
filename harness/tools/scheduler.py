"""Scheduling a step's tool calls: parallel-safe runs share a bounded pool,
anything else is a barrier; results are committed in model order."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import trio

from hookspecs.errors import JsonDataError
from hookspecs.values import (
    CancelToken,
    EventTypes,
    Message,
    ToolCallBlock,
    ToolExecution,
    ToolResult,
    ToolResultBlock,
    check_json,
    message_to_json,
)

from ..sessions.history import committed_message
from . import pipeline

if TYPE_CHECKING:
    from ..runtime import LoopAgentView


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


def commit_result(agent: LoopAgentView, execution: ToolExecution, result: ToolResult) -> Message:
    """Tell ``dsh_tool_result``, append the call's ``tool/result`` and return its
    message as committed.

    A result the log would refuse (its ``meta`` is not JSON, say) is replaced,
    before anyone sees it, by a ``RESULT_NOT_RECORDED`` error result naming the
    fault, so the call is still answered exactly once.
    """
    data = result_event(execution, result)
    try:
        check_json(data, f"tool {execution.name!r} result")
    except JsonDataError as exc:
        agent.runtime.logger.warning("tool %s: its result cannot be recorded: %s", execution.name, exc)
        text = f"the result of tool {execution.name!r} could not be recorded ({exc}); the call may have had effects"
        result = ToolResult.failure(NOT_RECORDED, text)
        data = result_event(execution, result)
    agent.runtime.hooks.tool_result(execution, result)
    return committed_message(agent.session.append(EventTypes.TOOL_RESULT, data), data)


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
            agent.history.append(commit_result(agent, execution, result))
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
