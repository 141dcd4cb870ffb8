"""Subagent providers, their runs and the toolkit behind the host's own
(``host.subagents``)."""

from __future__ import annotations

import builtins
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from ..values.subagents import SubagentResult  # in FinishRun, a runtime alias

if TYPE_CHECKING:
    from ..values.agents import AgentOptions
    from ..values.live import Agent
    from ..values.subagents import DelegatedPolicy, SubagentRequest
    from ..values.tools import ToolFilter
    from .agents import AgentScope
    from .disposer import Disposer


@runtime_checkable
class SubagentRun(Protocol):
    @property
    def id(self) -> str:
        """The child session id."""
        ...

    @property
    def local_agent(self) -> Agent | None: ...

    async def result(self) -> SubagentResult:
        """Wait for the child to settle. Never raises for a child failure."""
        ...

    async def dispose(self) -> None:
        """Cancel, wait to quiescence and release the child. Idempotent; callers
        always await it."""
        ...


@runtime_checkable
class SubagentProvider(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def capabilities(self) -> Mapping[str, bool]: ...

    @property
    def stop_reasons(self) -> frozenset[str]:
        """Extension stop reasons this provider may return besides the core ones."""
        ...

    async def start(self, request: SubagentRequest) -> SubagentRun: ...


@runtime_checkable
class StructuredCapture(Protocol):
    """The state of a child's ``structured_output`` tool."""

    @property
    def captured(self) -> bool:
        """True once a valid call's result was committed."""
        ...

    @property
    def value(self) -> Any:
        """The committed arguments (None until captured)."""
        ...


#: ``finish(result, child) -> result``: a provider's last word on a run's result.
FinishRun = Callable[[SubagentResult, "Agent"], SubagentResult]


class SubagentToolkit(Protocol):
    """Reusable pieces of the host's in-process providers.

    A plugin's own provider composes these instead of re-implementing child
    creation, policy inheritance, composition and structured output.
    """

    def child_depth(self, parent: Agent, max_depth: int | None) -> int:
        """The child's delegation depth; raises ``SubagentError``
        (``DEPTH_EXCEEDED``) when it would exceed ``max_depth`` (an absolute cap)."""
        ...

    def delegated_policy(self, parent: Agent) -> DelegatedPolicy:
        """Capture what the child inherits; call before the first ``await``."""
        ...

    def apply_delegated_policy(self, child: Agent, policy: DelegatedPolicy) -> None:
        """Record the inherited policy in the child's log (``approval/policy``,
        ``sandbox/mode``); the host enforces it from there."""
        ...

    def compose(
        self,
        scope: AgentScope,
        *,
        persona: str | None = None,
        tool_filter: ToolFilter | None = None,
        delegation_note: bool = True,
    ) -> None:
        """Persona (shadows the deployment persona), tool restriction (hides and
        refuses) and, unless disabled, a runtime-context line telling the child
        it works for another agent."""
        ...

    def attach_structured_output(
        self,
        scope: AgentScope,
        schema: Mapping[str, Any],
        *,
        validate: Callable[[Any], Sequence[str]] | None = None,
        description: str | None = None,
        instruction: str | None = None,
    ) -> StructuredCapture:
        """Add a scoped ``structured_output`` tool whose parameters are ``schema``.

        Arguments are checked against the schema and then ``validate`` (every
        violation is returned at once as a retryable ``INVALID_ARGS``); a valid
        call concludes the turn, every later tool call is refused, and the value
        is committed only after the authoritative tool result succeeded.
        """
        ...

    async def start_in_process(
        self,
        request: SubagentRequest,
        *,
        provider: str,
        setup: Callable[[AgentScope, StructuredCapture | None], Awaitable[None] | None] | None = None,
        agent_options: AgentOptions | None = None,
        finish: FinishRun | None = None,
        validate_output: Callable[[Any], Sequence[str]] | None = None,
        output_description: str | None = None,
        output_instruction: str | None = None,
    ) -> SubagentRun:
        """Create one fresh child of ``request.parent`` and start it on the prompt.

        Applies depth check, delegated policy, composition (persona, tool filter)
        and structured output from the request (checked further by
        ``validate_output``), then the provider's ``setup``.
        The run's result maps the child's turn end to a stop reason
        (``completed``, ``max-tokens``, ``aborted``, ``refusal`` for a blocked
        turn, else ``error``; ``no-structured-output`` when a requested capture
        is missing) and passes it through ``finish``.
        """
        ...


class SubagentService(Protocol):
    @property
    def toolkit(self) -> SubagentToolkit:
        """Helpers for building in-process providers."""
        ...

    def register_provider(self, provider: SubagentProvider) -> Disposer:
        """Raises ``SubagentError`` (``DUPLICATE_PROVIDER``) when the name is taken."""
        ...

    def get(self, name: str) -> SubagentProvider | None: ...

    def list(self) -> builtins.list[SubagentProvider]: ...

    async def start(self, name: str, request: SubagentRequest) -> SubagentRun:
        """Check every capability the request uses, then delegate; fails with
        ``NO_PROVIDER`` or ``UNSUPPORTED_CAPABILITY`` before the provider starts."""
        ...
