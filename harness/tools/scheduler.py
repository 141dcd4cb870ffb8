"""Scheduling a step's tool calls: parallel-safe runs share a bounded pool,
anything else is a barrier; results are committed in model order."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import trio

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
            session.append(EventTypes.TOOL_RESULT, result_event(execution, result))
            agent.history.append(
                Message(
                    id=f"result-{execution.call_id}",
                    role="tool",
                    content=(
                        ToolResultBlock(tool_call_id=execution.call_id, content=result.content, is_error=result.is_error),
                    ),
                    source={"kind": "tool", "call_id": execution.call_id},
                )
            )
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
