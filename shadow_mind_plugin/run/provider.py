"""The reserved ``shadow-mind`` subagent provider.

It composes the host's subagent toolkit (child creation, delegated policy,
persona and tool restriction, structured output) and adds what a reviewer
needs on top: per-run model selection, minimal context, think-first planning
in the same child, and the degenerate-output watchdog.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

from hookspecs import hookimpl
from hookspecs.errors import SubagentError
from hookspecs.values import (
    AgentOptions,
    CancelCause,
    Capabilities,
    Enter,
    EventTypes,
    PromptAssembly,
    PromptSection,
    ReasoningDelta,
    StreamDelta,
    StreamEnd,
    SubagentRequest,
    SubagentResult,
    TextDelta,
    create_user_message,
)

from ..vocabulary import PROVIDER_NAME, STOP_DEGENERATE_OUTPUT, STOP_NO_STRUCTURED_OUTPUT

if TYPE_CHECKING:
    from hookspecs.protocols import Agent, AgentScope, Host, SubagentRun

    from .watchdog import DegenerateOutputGuard

#: Extension keys (each one is also the capability it needs).
MODEL_SELECTION = Capabilities.MODEL_SELECTION
CONTEXT_INHERITANCE = Capabilities.CONTEXT_INHERITANCE
THINK_FIRST = Capabilities.THINK_FIRST
#: optional: the rendered seqs a report's refs must come from
ANCHOR_SEQS = "anchor_seqs"

DIAGNOSTICS = {
    "repetition": (
        "The reviewer fell into a degenerate output loop (the same short block repeated) and was "
        "cancelled; no report was captured."
    ),
    "output-budget": (
        "The reviewer streamed an excessive amount of output without a tool call or step boundary "
        "and was cancelled; no report was captured."
    ),
}


class ShadowMindProvider:
    name = PROVIDER_NAME

    def __init__(self, host: Host) -> None:
        self._host = host

    @property
    def capabilities(self) -> Mapping[str, bool]:
        return {
            Capabilities.AGENT_OPTIONS: True,
            Capabilities.OUTPUT_SCHEMA: True,
            Capabilities.DEPTH_LIMIT: True,
            Capabilities.TOOL_FILTER: True,
            Capabilities.PERSONA: True,
            MODEL_SELECTION: True,
            CONTEXT_INHERITANCE: True,
            THINK_FIRST: True,
            ANCHOR_SEQS: True,
        }

    @property
    def stop_reasons(self) -> frozenset[str]:
        return frozenset({STOP_NO_STRUCTURED_OUTPUT, STOP_DEGENERATE_OUTPUT})

    async def start(self, request: SubagentRequest) -> SubagentRun:
        self._check_tools(request)
        ext = request.extensions
        selection = ext.get(MODEL_SELECTION)
        options = None
        effort = None
        if isinstance(selection, Mapping):
            effort = selection.get("reasoning_effort")
            options = AgentOptions(
                provider=selection.get("provider"), model=selection.get("model"), reasoning_effort=effort
            )
        minimal = ext.get(CONTEXT_INHERITANCE) == "none"
        think_first = bool(ext.get(THINK_FIRST))
        anchors = ext.get(ANCHOR_SEQS)
        rendered = frozenset(anchors) if anchors is not None else None
        # the output contract and the watchdog load with the first reviewer, not at registration
        from ..contract import STRUCTURED_OUTPUT_DESCRIPTION, STRUCTURED_OUTPUT_INSTRUCTION, narrow_output
        from .watchdog import DegenerateOutputGuard, resolve_reasoning_budget

        guard = DegenerateOutputGuard(resolve_reasoning_budget(effort))

        def setup(scope: AgentScope, _capture: Any) -> None:
            if minimal:
                scope.system_prompt.suppress_runtime_context()
                scope.add_plugin(MinimalContext(), name="minimal-context")
            if think_first:
                scope.add_plugin(ThinkFirst(guard), name="think-first")
            scope.add_plugin(Watchdog(guard), name="watchdog")

        def validate(value: Any) -> list[str]:
            return list(narrow_output(value, rendered).violations)

        def finish(result: SubagentResult, child: Agent) -> SubagentResult:
            if guard.fired:
                return SubagentResult(
                    stop_reason=STOP_DEGENERATE_OUTPUT,
                    output=result.output,
                    diagnostic=DIAGNOSTICS.get(str(guard.reason), DIAGNOSTICS["output-budget"]),
                )
            return result

        return await self._host.subagents.toolkit.start_in_process(
            request,
            provider=self.name,
            setup=setup,
            agent_options=options,
            finish=finish,
            validate_output=validate,
            output_description=STRUCTURED_OUTPUT_DESCRIPTION,
            output_instruction=STRUCTURED_OUTPUT_INSTRUCTION,
        )

    def _check_tools(self, request: SubagentRequest) -> None:
        """A listed tool the child could not use fails the run before a child
        exists: dropping it silently would review with less than the
        definition asks for (the trace would still list it as offered)."""
        allow = request.tool_filter.allow if request.tool_filter is not None else None
        if not allow:
            return
        tools = self._host.tools
        missing = [name for name in allow if not _reviewer_can_use(tools.get(name))]
        if missing:
            # what the root sees, less its scoped and root-only tools
            offered = sorted(t.name for t in tools.visible(request.parent) if _reviewer_can_use(tools.get(t.name)))
            raise SubagentError(
                f"the definition's tools list {', '.join(repr(n) for n in missing)}, which this host does not offer "
                f"to a reviewer; reviewer tools here: {', '.join(offered[:_MAX_LISTED]) or 'none'}"
                + (", …" if len(offered) > _MAX_LISTED else ""),
                code=UNKNOWN_REVIEWER_TOOLS,
            )


#: Names listed in the unknown-tools message before it is cut.
_MAX_LISTED: Final = 20
UNKNOWN_REVIEWER_TOOLS: Final = "UNKNOWN_REVIEWER_TOOLS"


def _reviewer_can_use(tool: Any) -> bool:
    # a child sees the global tools that are not root-only; its own scoped tools
    # (structured_output) are added for it and never named by a definition
    return tool is not None and not tool.root_only


class MinimalContext:
    """Keeps only the reviewer's own messages in each step: other plugins'
    pre-step additions are dropped. Runs first so it sees the original input."""

    @hookimpl(tryfirst=True)
    async def dsh_agent_pre_step(self, messages: Any, call_next: Any) -> Any:
        decision = await call_next()
        if isinstance(decision, Enter):
            return Enter(messages=tuple(messages))
        return decision


#: The planning request's own system-prompt section: it offers no tools, so
#: it must not carry the "deliver with structured_output" instruction.
PLANNING_INSTRUCTION: Final = (
    "This first request is for planning only, so no tools are offered in it. "
    "Reply with a numbered plan in plain text, naming the rendered seq values you intend "
    "to challenge or verify. Your tools, including the one for your final result, come "
    "with the next request; a plan alone is never taken as your result."
)
PLANNING_SECTION: Final = "shadow-mind:planning"


class ThinkFirst:
    """One tool-free planning request, then one continuation in the same child.

    The planning request describes itself: the result-tool instruction is
    swapped for :data:`PLANNING_INSTRUCTION` (the tools are withheld, so a
    demand to call one would contradict the request)."""

    def __init__(self, guard: DegenerateOutputGuard) -> None:
        self._guard = guard
        self._steered = False

    @staticmethod
    def _planned(agent: Agent) -> bool:
        return any(e.type == EventTypes.ASSISTANT_MESSAGE for e in agent.session.events)

    @hookimpl
    def dsh_system_prompt_assemble(self, agent: Agent, assembly: PromptAssembly) -> PromptAssembly | None:
        if self._planned(agent):
            return None
        from ..contract import STRUCTURED_OUTPUT_INSTRUCTION  # loaded by the run's start already

        kept = tuple(s for s in assembly.sections if s.text != STRUCTURED_OUTPUT_INSTRUCTION)
        planning = PromptSection(name=PLANNING_SECTION, text=PLANNING_INSTRUCTION, order=190)
        return PromptAssembly(sections=(*kept, planning), tools=())

    @hookimpl
    def dsh_agent_turn_stopping(self, agent: Agent) -> None:
        if self._steered or self._guard.fired:
            return
        self._steered = True
        from ..prompt import THINK_FIRST_CONTINUATION  # the prompt builder loads with the first review

        agent.steer(create_user_message(THINK_FIRST_CONTINUATION, source={"kind": "plugin", "plugin": PROVIDER_NAME}))


class Watchdog:
    """Feeds the child's live stream to the degenerate-output guard; cancels once."""

    def __init__(self, guard: DegenerateOutputGuard) -> None:
        self._guard = guard

    @hookimpl
    def dsh_agent_stream(self, agent: Agent, frame: Any) -> None:
        guard = self._guard
        if guard.fired:
            return
        if isinstance(frame, StreamDelta):
            chunk = frame.chunk
            if isinstance(chunk, TextDelta):
                fired = guard.observe_chunk(chunk.text, "text")
            elif isinstance(chunk, ReasoningDelta):
                fired = guard.observe_chunk(chunk.text, "reasoning")
            else:
                return
            if fired:
                agent.cancel(CancelCause(by="parent", reason=f"degenerate output: {fired}"))
        elif isinstance(frame, StreamEnd):
            guard.observe_boundary()

    @hookimpl
    def dsh_session_event(self, event: Any) -> None:
        if event.type == EventTypes.TOOL_CALL:
            self._guard.observe_tool_call()
        elif event.type in (EventTypes.STEP_END, EventTypes.TURN_END):
            self._guard.observe_boundary()
