"""Creating agents and what an agent's creator may add to it
(``host.agents``, :class:`AgentScope`, ``host.system_prompt``)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import attrs

from ..values.agents import AgentOptions  # CreateAgentOptions' default

if TYPE_CHECKING:
    from ..values.agents import PromptSection
    from ..values.cancel import CancelToken
    from ..values.live import Agent
    from ..values.tools import ToolDefinition, ToolExecution
    from .disposer import Disposer


class ScopedTools(Protocol):
    """Tools visible to one agent; registrations unwind with the agent."""

    def register(self, tool: ToolDefinition) -> Disposer:
        """An agent-scoped tool; shadows a global tool of the same name."""
        ...

    def restrict(self, allow: Iterable[str] | None = None, deny: Iterable[str] = ()) -> Disposer:
        """Hide tools from the model *and* refuse them at execution. Restrictions
        only narrow: several restrictions intersect."""
        ...

    def guard(self, guard: Callable[[ToolExecution], str | None]) -> Disposer:
        """A final deny check run for every call of this agent; returning a
        reason refuses the call. Guards are monotonic: nothing re-allows."""
        ...


class ScopedPrompt(Protocol):
    def section(self, section: PromptSection) -> Disposer:
        """Add (or shadow by name) a system-prompt section for this agent."""
        ...

    def suppress_runtime_context(self) -> Disposer:
        """Drop every ``runtime-context`` section from this agent's prompt."""
        ...


@runtime_checkable
class AgentScope(Protocol):
    """Agent-local contributions, made in ``CreateAgentOptions.setup``."""

    @property
    def agent(self) -> Agent: ...

    @property
    def tools(self) -> ScopedTools: ...

    @property
    def system_prompt(self) -> ScopedPrompt: ...

    def add_plugin(self, plugin: object, name: str | None = None) -> Disposer:
        """Register an object with ``@hookimpl`` methods whose agent-related hooks
        fire only for this agent (and never for others)."""
        ...

    def on_dispose(self, callback: Callable[[], Any]) -> None:
        """Run ``callback`` (sync or async) when the agent is disposed."""
        ...


@attrs.frozen(kw_only=True)
class CreateAgentOptions:
    """How to create an agent.

    :param owner: the agent that owns this one at runtime (subagents); None for roots.
    :param setup: runs before the agent is published; scoped tools, prompt
        sections, restrictions and plugins registered there exist before the
        first ``dsh_session_created``. A raise rolls everything back.
    :param cancel: creation-only cancellation.
    """

    session_id: str | None = None
    cwd: str | None = None
    owner: Agent | None = attrs.field(default=None, eq=False, repr=False)
    parent_session: str | None = None
    origin: str | None = None
    delegation_depth: int = 0
    agent_options: AgentOptions = AgentOptions()
    setup: Callable[[AgentScope], Awaitable[None] | None] | None = attrs.field(default=None, eq=False, repr=False)
    cancel: CancelToken | None = attrs.field(default=None, eq=False, repr=False)
    label: str | None = None


class AgentHandle(Protocol):
    """Returned to an agent's creator; only the creator may dispose it."""

    @property
    def agent(self) -> Agent: ...

    async def dispose(self) -> None:
        """Cancel, drain to quiescence, fire ``dsh_agent_disposed`` and unwind the
        scope. Idempotent."""
        ...


class AgentRegistry(Protocol):
    def get(self, agent_id: str) -> Agent | None: ...

    def list(self) -> Sequence[Agent]:
        """Every live agent (a snapshot)."""
        ...

    def roots(self) -> Sequence[Agent]:
        """The live agents without an owner (a snapshot)."""
        ...

    def owner_of(self, agent_id: str) -> Agent | None: ...

    async def create(self, options: CreateAgentOptions) -> AgentHandle: ...

    async def resume(
        self,
        session_id: str,
        *,
        agent_options: AgentOptions | None = None,
        setup: Callable[[AgentScope], Awaitable[None] | None] | None = None,
    ) -> AgentHandle:
        """Open a persisted session (repairing a crashed tail) and drive it."""
        ...


class SystemPromptRegistry(Protocol):
    def section(self, section: PromptSection) -> Disposer:
        """A global system-prompt section (agent scopes may shadow it by name)."""
        ...
