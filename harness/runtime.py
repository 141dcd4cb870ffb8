"""The services an agent's loop uses, bundled so agents need one reference, and
the agent as the loop's machinery sees it.

The machinery (``agents.turn``, ``tools.scheduler``, ``tools.pipeline``) sits
below ``LoopAgent``, which drives it: it depends on :class:`LoopAgentView`, not
on the agent class.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

import attrs

from hookspecs.protocols import Agent

from .loop_settings import AgentLoopSettings

if TYPE_CHECKING:
    import trio

    from hookspecs.values import Message

    from .agents.inbox import Inbox
    from .agents.prompt import SystemPromptRegistry
    from .agents.scope import AgentScopeImpl
    from .approval import ApprovalServiceImpl
    from .clock import HostClock
    from .compaction.service import CompactionService
    from .hook_facade import HostHooks
    from .llm.service import LlmService
    from .sessions import SessionLog, SessionStore
    from .tools.registry import ToolRegistry


@attrs.define(eq=False, kw_only=True)
class Runtime:
    hooks: HostHooks
    sessions: SessionStore
    tools: ToolRegistry
    prompt: SystemPromptRegistry
    llm: LlmService
    approval: ApprovalServiceImpl
    clock: HostClock
    logger: logging.Logger
    loop_settings: Callable[[], AgentLoopSettings]
    spawn: Callable[..., None]
    #: where agent drivers run; set when the host starts
    nursery: trio.Nursery | None = None
    #: automatic compaction before requests and after context overflows (None: never)
    compaction: CompactionService | None = None
    #: variables a profile row's ``api_key_env`` names: never in ``bash``'s environment
    protected_env: frozenset[str] = frozenset()


class LoopAgentView(Agent, Protocol):
    """A live agent of this host (``LoopAgent`` implements it): the contract's
    :class:`~hookspecs.protocols.Agent` plus what turns and tool calls use."""

    #: the model route of the last request (provider, model, reasoning effort)
    last_route: tuple[str, str, str | None] | None

    @property
    def runtime(self) -> Runtime: ...

    @property
    def inbox(self) -> Inbox: ...

    @property
    def scope(self) -> AgentScopeImpl: ...

    @property
    def session(self) -> SessionLog:
        """The agent's live log (the contract's ``Session``, plus its write state)."""
        ...

    @property
    def history(self) -> list[Message]:
        """The conversation so far; turns and tool calls append to it."""
        ...
