"""One turn of the agent loop: steps, model streaming and tool calls.

A turn runs steps until a step ends with no tool calls (or a tool concluded
the turn) and nothing waits for the next step; ``dsh_agent_turn_stopping``
listeners may steer it into another step. Every step that starts is closed
with ``step/end`` even when the turn is aborted mid-stream or mid-tool.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs

from hookspecs.errors import LlmError
from hookspecs.values import (
    CancelToken,
    EventTypes,
    FinishChunk,
    LlmCallConfig,
    LlmRequest,
    Message,
    ReasoningBlock,
    ReasoningDelta,
    Reject,
    RetryNotice,
    StreamDelta,
    StreamEnd,
    StreamStart,
    TextBlock,
    TextDelta,
    ToolCallBlock,
    ToolCallDelta,
    UsageChunk,
    chunk_to_json,
    message_to_json,
)
from hookspecs.values.messages import new_message_id

from ..compaction.service import OVERFLOW_CODE
from ..sessions.history import committed_message

if TYPE_CHECKING:
    from hookspecs.values import AgentOptions

    from ..loop_settings import AgentLoopSettings
    from ..runtime import LoopAgentView


@attrs.frozen
class StepOutcome:
    called_tools: bool
    concluded: bool
    max_tokens: bool


async def run_turn_body(agent: LoopAgentView, turn: int, token: CancelToken) -> dict[str, Any]:
    """Run the steps of one turn; returns the ``turn/end`` reason."""
    rt = agent.runtime
    settings = rt.loop_settings()
    max_tokens_hit = False
    step = 0
    while True:
        if step >= settings.max_steps_per_turn:
            return {
                "kind": "error",
                "error": {
                    "code": "MAX_STEPS",
                    "message": f"the turn used {step} steps, the agent-loop.max_steps_per_turn limit",
                },
            }
        claimed = agent.inbox.claim(first_step=step == 0)
        for item in claimed:
            rt.hooks.agent_inbox(agent, "claimed", item.message, item.target)
        decision = await rt.hooks.agent_pre_step(agent, turn, step, [item.message for item in claimed])
        if isinstance(decision, Reject):
            reason: dict[str, Any] = {"kind": "blocked"}
            if decision.reason:
                reason["reason"] = decision.reason
            return reason
        if step == 0 and not decision.messages:
            return {"kind": "completed"}
        outcome = await run_step(agent, turn, step, decision.messages, token)
        max_tokens_hit = max_tokens_hit or outcome.max_tokens
        step += 1
        if outcome.called_tools and not outcome.concluded:
            continue
        if agent.inbox.has_step_items:
            continue
        await rt.hooks.agent_turn_stopping(agent, turn)
        if agent.inbox.has_step_items:
            continue
        return {"kind": "max-tokens"} if max_tokens_hit else {"kind": "completed"}


async def run_step(
    agent: LoopAgentView, turn: int, step: int, messages: tuple[Message, ...], token: CancelToken
) -> StepOutcome:
    rt = agent.runtime
    session = agent.session
    session.append(EventTypes.STEP_START, {"turn": turn, "step": step})
    try:
        for message in messages:
            entered = {"turn": turn, "step": step, "message": message_to_json(message)}
            agent.history.append(committed_message(session.append(EventTypes.USER_MESSAGE, entered), entered, message))
        assembly = rt.prompt.assemble(cwd=agent.cwd, scoped=agent.scope.system_prompt, tools=rt.tools.visible(agent))
        assembly = await rt.hooks.system_prompt_assemble(agent, assembly)
        config = await rt.hooks.agent_request(agent, turn, step, base_config(agent))
        route = (config.provider, config.model, config.reasoning_effort)
        if route != agent.last_route:
            data: dict[str, Any] = {"provider": config.provider, "model": config.model}
            if config.reasoning_effort:
                data["reasoning_effort"] = config.reasoning_effort
            session.append(EventTypes.REQUEST_CONTEXT, data)
            agent.last_route = route
        request = LlmRequest(
            provider=config.provider,
            model=config.model,
            system=assembly.render(),
            messages=tuple(agent.history),
            tools=assembly.tools,
            reasoning_effort=config.reasoning_effort,
            max_tokens=config.max_tokens,
            temperature=config.temperature,
            metadata={
                "session_id": agent.id,
                "delegation_depth": session.header.delegation_depth,
                "turn": turn,
                "step": step,
            },
        )
        compaction = rt.compaction
        if compaction is not None and await compaction.before_request(agent, request, token):
            request = attrs.evolve(request, messages=tuple(agent.history))
        try:
            message, finish = await stream_response(agent, turn, step, request, token)
        except LlmError as exc:
            # a context-length complaint before any output: compact, then retry once
            if compaction is None or exc.code != OVERFLOW_CODE or tuple(agent.history) != request.messages:
                raise
            if not await compaction.after_overflow(agent, request, token):
                raise
            request = attrs.evolve(request, messages=tuple(agent.history))
            message, finish = await stream_response(agent, turn, step, request, token)
        calls = [block for block in message.content if isinstance(block, ToolCallBlock)]
        concluded = False
        if calls:
            from ..tools.scheduler import run_tool_calls  # with the first tool call, not with every start

            concluded = await run_tool_calls(agent, turn, step, calls, token)
        return StepOutcome(called_tools=bool(calls), concluded=concluded, max_tokens=finish == "max-tokens")
    finally:
        session.append(EventTypes.STEP_END, {"turn": turn, "step": step})


def resolve_route(options: AgentOptions, settings: AgentLoopSettings) -> tuple[str, str] | None:
    """``(provider, model)`` from the agent's options, else from ``agent-loop.model``;
    None when neither names both parts. One resolution for requests and for
    :attr:`hookspecs.protocols.Agent.resolved_route`."""
    provider, model = options.provider, options.model
    if not (provider and model) and settings.model:
        provider, _, model = settings.model.partition("/")
    if not (provider and model):
        return None
    return provider, model


def base_config(agent: LoopAgentView) -> LlmCallConfig:
    """The request config from the agent's options, falling back to agent-loop settings."""
    settings = agent.runtime.loop_settings()
    options = agent.options
    route = resolve_route(options, settings)
    if route is None:
        raise LlmError(
            "no model configured: pass --model provider/model or set agent-loop.model in the profile",
            code="NO_MODEL",
        )
    provider, model = route
    return LlmCallConfig(
        provider=provider,
        model=model,
        reasoning_effort=options.reasoning_effort or settings.reasoning_effort,
        max_tokens=options.max_tokens or settings.max_tokens,
    )


@attrs.define
class _Draft:
    """The assistant message being streamed."""

    text: list[str] = attrs.field(factory=list)
    reasoning: list[str] = attrs.field(factory=list)
    calls: dict[int, list[Any]] = attrs.field(factory=dict)  # index -> [id, name, [fragments]]
    usage: dict[str, int] | None = None
    finish: str | None = None

    def add(self, chunk: Any) -> None:
        if isinstance(chunk, TextDelta):
            self.text.append(chunk.text)
        elif isinstance(chunk, ReasoningDelta):
            self.reasoning.append(chunk.text)
        elif isinstance(chunk, ToolCallDelta):
            entry = self.calls.setdefault(chunk.index, [None, None, []])
            if chunk.id and not entry[0]:
                entry[0] = chunk.id
            if chunk.name and not entry[1]:
                entry[1] = chunk.name
            entry[2].append(chunk.arguments)
        elif isinstance(chunk, UsageChunk):
            self.usage = {
                "input_tokens": chunk.input_tokens,
                "output_tokens": chunk.output_tokens,
                "reasoning_tokens": chunk.reasoning_tokens,
            }
        elif isinstance(chunk, FinishChunk):
            self.finish = chunk.reason

    def message(self, provider: str, model: str, *, with_calls: bool, call_prefix: str) -> Message:
        content: list[Any] = []
        if self.reasoning:
            content.append(ReasoningBlock(text="".join(self.reasoning)))
        if self.text:
            content.append(TextBlock(text="".join(self.text)))
        if with_calls:
            for index in sorted(self.calls):
                call_id, name, fragments = self.calls[index]
                content.append(
                    ToolCallBlock(
                        id=call_id or f"{call_prefix}-{index}",
                        name=name or "unknown-tool",
                        arguments="".join(fragments),
                    )
                )
        return Message(
            id=new_message_id(),
            role="assistant",
            content=tuple(content),
            source={"kind": "model", "provider": provider, "model": model},
        )

    @property
    def empty(self) -> bool:
        return not (self.text or self.reasoning or self.calls)


async def stream_response(
    agent: LoopAgentView, turn: int, step: int, request: LlmRequest, token: CancelToken
) -> tuple[Message, str | None]:
    """Stream one request, committing each chunk, then the assistant message.

    On failure or cancellation the partial text is still committed (marked
    ``interrupted``) so the log shows what the model said; partial tool calls
    are dropped because they never completed.
    """
    rt = agent.runtime
    session = agent.session
    draft = _Draft()
    rt.hooks.agent_stream(agent, StreamStart(turn=turn, step=step))
    complete = False
    try:
        async for chunk in rt.llm.stream(request, token):
            if isinstance(chunk, RetryNotice):
                retry: dict[str, Any] = {
                    "turn": turn,
                    "step": step,
                    "attempt": chunk.attempt,
                    "delay_seconds": chunk.delay_seconds,
                    "code": chunk.code,
                }
                if chunk.status is not None:
                    retry["status"] = chunk.status
                session.append(EventTypes.LLM_RETRY, retry)
                continue
            rt.hooks.agent_stream(agent, StreamDelta(turn=turn, step=step, chunk=chunk))
            session.append(EventTypes.ASSISTANT_CHUNK, {"turn": turn, "step": step, "chunk": chunk_to_json(chunk)})
            draft.add(chunk)
        complete = True
    finally:
        rt.hooks.agent_stream(agent, StreamEnd(turn=turn, step=step))
        if complete or not draft.empty:
            message = draft.message(
                request.provider, request.model, with_calls=complete, call_prefix=f"call-{turn}-{step}"
            )
            data: dict[str, Any] = {"turn": turn, "step": step, "message": message_to_json(message)}
            if draft.usage:
                data["usage"] = draft.usage
            if draft.finish:
                data["stop"] = draft.finish
            if not complete:
                data["interrupted"] = True
            message = committed_message(session.append(EventTypes.ASSISTANT_MESSAGE, data), data, message)
            agent.history.append(message)
    return message, draft.finish
