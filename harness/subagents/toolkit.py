"""Reusable pieces of in-process subagent providers (``host.subagents.toolkit``)."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import attrs

from hookspecs import hookimpl
from hookspecs.errors import SubagentError
from hookspecs.protocols import AgentScope, CreateAgentOptions, FinishRun
from hookspecs.values import (
    AgentOptions,
    DelegatedPolicy,
    Enter,
    EventTypes,
    PromptSection,
    SubagentRequest,
    ToolFilter,
)

from ..agents.prompt import PERSONA_SECTION
from ..sessions.latest import LatestSandboxMode

if TYPE_CHECKING:
    from ..agents.agent import LoopAgent
    from ..agents.registry import AgentRegistryImpl
    from .run import InProcessRun
    from .structured import StructuredCaptureImpl

#: The depth cap used when a request gives none.
DEFAULT_MAX_DEPTH = 3

DELEGATION_SECTION = "subagent:delegation"
DELEGATION_NOTE = (
    "You are a delegated subagent: another agent gave you this task and receives your final answer. "
    "Nobody can approve actions for you, so work with the tools you have."
)

ChildSetup = Callable[[AgentScope, "StructuredCaptureImpl | None"], Awaitable[None] | None]


class SubagentToolkitImpl:
    """Implements :class:`hookspecs.protocols.SubagentToolkit`."""

    def __init__(self, agents: AgentRegistryImpl) -> None:
        self._agents = agents
        self._sandbox = LatestSandboxMode()

    def child_depth(self, parent: Any, max_depth: int | None) -> int:
        depth = parent.session.header.delegation_depth + 1
        cap = DEFAULT_MAX_DEPTH if max_depth is None else max_depth
        if depth > cap:
            raise SubagentError(
                f"a child of this agent would have delegation depth {depth}, above the limit {cap}",
                code="DEPTH_EXCEEDED",
            )
        return depth

    def delegated_policy(self, parent: Any) -> DelegatedPolicy:
        return DelegatedPolicy(approval_policy="never", sandbox_mode=self._sandbox.of(parent.session))

    def apply_delegated_policy(self, child: Any, policy: DelegatedPolicy) -> None:
        if policy.sandbox_mode:
            child.session.append(EventTypes.SANDBOX_MODE, {"mode": policy.sandbox_mode, "source": "delegation"})
        child.session.append(EventTypes.APPROVAL_POLICY, {"policy": policy.approval_policy, "source": "delegation"})

    def compose(
        self,
        scope: AgentScope,
        *,
        persona: str | None = None,
        tool_filter: ToolFilter | None = None,
        delegation_note: bool = True,
    ) -> None:
        if persona:
            scope.system_prompt.section(PromptSection(name=PERSONA_SECTION, text=persona, order=0))
        if tool_filter is not None:
            scope.tools.restrict(allow=tool_filter.allow, deny=tool_filter.deny)
        if delegation_note:
            scope.system_prompt.section(
                PromptSection(name=DELEGATION_SECTION, text=DELEGATION_NOTE, order=120, kind="runtime-context")
            )

    def attach_structured_output(
        self,
        scope: AgentScope,
        schema: Mapping[str, Any],
        *,
        validate: Callable[[Any], Sequence[str]] | None = None,
        description: str | None = None,
        instruction: str | None = None,
    ) -> StructuredCaptureImpl:
        from .structured import attach_structured_output  # a run's pieces load with the first child

        return attach_structured_output(scope, schema, validate=validate, description=description, instruction=instruction)

    async def start_in_process(
        self,
        request: SubagentRequest,
        *,
        provider: str,
        setup: ChildSetup | None = None,
        agent_options: AgentOptions | None = None,
        finish: FinishRun | None = None,
        validate_output: Callable[[Any], Sequence[str]] | None = None,
        output_description: str | None = None,
        output_instruction: str | None = None,
    ) -> InProcessRun:
        # a run's pieces load with the first child, not with every host
        from .run import InProcessRun
        from .structured import STRUCTURED_OUTPUT_TOOL

        parent: LoopAgent = request.parent  # type: ignore[assignment]
        depth = self.child_depth(parent, request.max_depth)
        if request.cancel.cancelled:
            raise SubagentError("subagent request was aborted before child publication", code="ABORTED")
        policy = self.delegated_policy(parent)  # before the first await
        options = _child_options(parent.options, request.agent_options, agent_options)
        holder: dict[str, StructuredCaptureImpl | None] = {"capture": None}

        async def child_setup(scope: AgentScope) -> None:
            self.apply_delegated_policy(scope.agent, policy)
            tool_filter = request.tool_filter
            if tool_filter is not None and tool_filter.allow is not None and request.output_schema is not None:
                # the result tool is part of the contract, not of the caller's allowlist
                tool_filter = ToolFilter.of([*tool_filter.allow, STRUCTURED_OUTPUT_TOOL], tool_filter.deny)
            self.compose(scope, persona=request.persona, tool_filter=tool_filter)
            if request.output_schema is not None:
                holder["capture"] = self.attach_structured_output(
                    scope,
                    request.output_schema,
                    validate=validate_output,
                    description=output_description,
                    instruction=output_instruction,
                )
            scope.add_plugin(_Descriptor(provider=provider, label=request.label), name="descriptor")
            if setup is not None:
                result = setup(scope, holder["capture"])
                if result is not None:
                    await result

        handle = await self._agents.create(
            CreateAgentOptions(
                session_id=uuid.uuid4().hex,
                cwd=str(parent.cwd),
                owner=parent,
                parent_session=parent.id,
                origin="subagent",
                delegation_depth=depth,
                agent_options=options,
                setup=child_setup,
                cancel=request.cancel,
                label=request.label,
            )
        )
        run = InProcessRun(
            handle=handle,
            request=request,
            capture=holder["capture"],
            finish=finish,
        )
        run.start()
        return run


def _child_options(parent: AgentOptions, requested: AgentOptions | None, provider: AgentOptions | None) -> AgentOptions:
    """The parent's route and limits, overridden field by field."""
    merged = parent
    for override in (requested, provider):
        if override is None:
            continue
        changes = {f.name: getattr(override, f.name) for f in attrs.fields(AgentOptions) if getattr(override, f.name) is not None}
        merged = attrs.evolve(merged, **changes)
    return merged


class _Descriptor:
    """Writes ``subagent/descriptor`` inside the child's first turn, once."""

    def __init__(self, *, provider: str, label: str | None) -> None:
        self.provider = provider
        self.label = label
        self.done = False

    @hookimpl(trylast=True)
    async def dsh_agent_pre_step(self, agent: Any, call_next: Any) -> Any:
        decision = await call_next()
        if not self.done and isinstance(decision, Enter):
            self.done = True
            data: dict[str, Any] = {"version": 1, "mode": "one-shot", "provider": self.provider}
            if self.label:
                data["label"] = self.label
            agent.session.append(EventTypes.SUBAGENT_DESCRIPTOR, data)
        return decision
