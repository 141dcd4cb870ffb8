"""The host's one way to call hooks: :class:`HostHooks`, one typed method per hook.

Host code calls these methods, never ``pm.hook.dsh_*`` with unchecked keyword
arguments (tox 4 style) nor the runner behind them: :mod:`harness.hook_runner`
walks the implementations and is this module's implementation detail
(``tests/test_hook_calls.py`` keeps it so).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

import pluggy

from hookspecs.values import (
    Allow,
    Ask,
    Deny,
    Enter,
    LlmCallConfig,
    PreExecuteDecision,
    PreStepDecision,
    PromptAssembly,
)

from .hook_runner import HookFailed, HookRunner, Spawn

__all__ = ["HookFailed", "HostHooks", "RegisterHook"]

#: The registration hooks the host collects at start, in the order it collects them.
RegisterHook = Literal[
    "dsh_register_event_types",
    "dsh_register_settings",
    "dsh_register_llm_adapters",
    "dsh_register_tools",
    "dsh_register_commands",
    "dsh_register_compaction_engine",
    "dsh_register_subagent_providers",
    "dsh_register_client",
]

if TYPE_CHECKING:
    from hookspecs.protocols import Agent, Host, Session, SubagentRun
    from hookspecs.values import (
        AgentStatus,
        ApprovalOutcome,
        ApprovalRequest,
        CancelCause,
        InboxChange,
        InboxTarget,
        Message,
        SessionEvent,
        StreamFrame,
        SubagentRequest,
        SubagentResult,
        ToolDefinition,
        ToolExecution,
        ToolResult,
    )
    from hookspecs.values.compaction import CompactionResult


class HostHooks:
    """Calls each hook with the host's semantics (see :mod:`harness.hook_runner`)."""

    def __init__(self, pm: pluggy.PluginManager, *, logger: logging.Logger, spawn: Spawn) -> None:
        self._runner = HookRunner(pm, logger=logger, spawn=spawn)

    # --- registration ------------------------------------------------------------------
    def collect_registrations(self, hook: RegisterHook, register: Callable[..., None]) -> None:
        """Run one ``dsh_register_*`` hook; ``register(plugin_name, item, ...)`` gets
        each contribution so an error can name the plugin that made it."""
        self._runner.collect(hook, register)

    def register_scoped(self, plugin: object, agent_id: str, name: str) -> Callable[[], None]:
        """Register ``plugin`` for agent hooks about ``agent_id`` only; returns its disposer."""
        return self._runner.register_scoped(plugin, agent_id, name)

    # --- process events ------------------------------------------------------------------
    def process_event(self, name: str, payload: Mapping[str, Any]) -> None:
        """Broadcast one process event (``host.emit``) to observers (contained)."""
        self._runner.notify("dsh_process_event", None, name=name, payload=dict(payload))

    # --- lifecycle -------------------------------------------------------------------
    async def plugin_setup(self, host: Host) -> None:
        await self._runner.broadcast("dsh_plugin_setup", None, contain=False, host=host)

    async def plugin_teardown(self, host: Host) -> None:
        # reverse call order: the first plugin set up is the last torn down
        await self._runner.broadcast("dsh_plugin_teardown", None, reverse=True, host=host)

    # --- sessions ----------------------------------------------------------------------
    def session_created(self, session: Session) -> None:
        self._runner.notify("dsh_session_created", session.id, session=session)

    def session_event(self, session: Session, event: SessionEvent) -> None:
        impls = self._runner.impls_for_type("dsh_session_event", session.id, event.type)
        if impls:
            self._runner.notify("dsh_session_event", session.id, impls=impls, session=session, event=event)

    def session_disposed(self, session: Session) -> None:
        self._runner.notify("dsh_session_disposed", session.id, session=session)

    # --- agents --------------------------------------------------------------------------
    def agent_created(self, agent: Agent) -> None:
        self._runner.notify("dsh_agent_created", agent.id, agent=agent)

    def agent_status(self, agent: Agent, status: AgentStatus) -> None:
        self._runner.notify("dsh_agent_status", agent.id, agent=agent, status=status)

    def agent_inbox(self, agent: Agent, change: InboxChange, message: Message, target: InboxTarget) -> None:
        self._runner.notify("dsh_agent_inbox", agent.id, agent=agent, change=change, message=message, target=target)

    def agent_stream(self, agent: Agent, frame: StreamFrame) -> None:
        self._runner.notify("dsh_agent_stream", agent.id, agent=agent, frame=frame)

    def agent_disposed(self, agent: Agent) -> None:
        self._runner.notify("dsh_agent_disposed", agent.id, agent=agent)

    def agent_background_cancel(self, agent: Agent, cause: CancelCause) -> None:
        self._runner.notify("dsh_agent_background_cancel", agent.id, agent=agent, cause=cause)

    async def agent_pre_step(self, agent: Agent, turn: int, step: int, messages: Sequence[Message]) -> PreStepDecision:
        def default(*, agent: Agent, turn: int, step: int, messages: Sequence[Message]) -> PreStepDecision:
            return Enter(messages=tuple(messages))

        decision = await self._runner.chain(
            "dsh_agent_pre_step", agent.id, default, agent=agent, turn=turn, step=step, messages=tuple(messages)
        )
        return decision

    async def agent_request(self, agent: Agent, turn: int, step: int, config: LlmCallConfig) -> LlmCallConfig:
        def default(*, config: LlmCallConfig, **_: Any) -> LlmCallConfig:
            return config

        result = await self._runner.chain(
            "dsh_agent_request", agent.id, default, agent=agent, turn=turn, step=step, config=config
        )
        if not isinstance(result, LlmCallConfig):
            raise TypeError(f"dsh_agent_request returned {type(result).__name__}, expected LlmCallConfig")
        return result

    async def agent_turn_stopping(self, agent: Agent, turn: int) -> None:
        await self._runner.broadcast("dsh_agent_turn_stopping", agent.id, agent=agent, turn=turn)

    async def system_prompt_assemble(self, agent: Agent, assembly: PromptAssembly) -> PromptAssembly:
        def default(*, assembly: PromptAssembly, **_: Any) -> PromptAssembly:
            return assembly

        result = await self._runner.chain(
            "dsh_system_prompt_assemble", agent.id, default, agent=agent, assembly=assembly
        )
        if not isinstance(result, PromptAssembly):
            raise TypeError(f"dsh_system_prompt_assemble returned {type(result).__name__}, expected PromptAssembly")
        return result

    # --- tools ------------------------------------------------------------------------------
    async def tool_pre_execute(self, execution: ToolExecution, tool: ToolDefinition) -> PreExecuteDecision:
        def default(*, tool: ToolDefinition, **_: Any) -> PreExecuteDecision:
            return Ask(reason=f"{tool.name} changes files or runs commands") if tool.requires_approval else Allow()

        def fail_closed(plugin: str, exc: BaseException) -> PreExecuteDecision:
            return Deny(reason=f"the pre-execute check of plugin {plugin!r} failed")

        decision = await self._runner.chain(
            "dsh_tool_pre_execute",
            execution.agent.id,
            default,
            on_error=fail_closed,
            execution=execution,
            tool=tool,
        )
        if not isinstance(decision, (Allow, Deny, Ask)):
            return Deny(reason="a pre-execute check returned an invalid decision")
        return decision

    def tool_result(self, execution: ToolExecution, result: ToolResult) -> None:
        self._runner.notify("dsh_tool_result", execution.agent.id, execution=execution, result=result)

    async def approval_request(self, request: ApprovalRequest) -> ApprovalOutcome:
        def default(**_: Any) -> str:
            return "unavailable"

        outcome = await self._runner.chain(
            "dsh_approval_request",
            request.agent.id,
            default,
            on_error=lambda _plugin, _exc: "unavailable",
            request=request,
        )
        if outcome not in ("allowed-once", "rejected", "cancelled", "unavailable"):
            return "unavailable"
        return outcome

    # --- settings -----------------------------------------------------------------------------
    def settings_updated(self, namespace: str, value: Any, previous: Any) -> None:
        self._runner.notify("dsh_settings_updated", None, namespace=namespace, value=value, previous=previous)

    # --- compaction ----------------------------------------------------------------------------
    def compaction_ended(self, agent: Agent, result: CompactionResult) -> None:
        self._runner.notify("dsh_compaction_ended", agent.id, agent=agent, result=result)

    # --- subagents ----------------------------------------------------------------------------
    def subagent_started(self, parent: Agent, run: SubagentRun, request: SubagentRequest) -> None:
        self._runner.notify("dsh_subagent_started", parent.id, parent=parent, run=run, request=request)

    def subagent_ended(self, parent: Agent, run: SubagentRun, result: SubagentResult) -> None:
        self._runner.notify("dsh_subagent_ended", parent.id, parent=parent, run=run, result=result)
