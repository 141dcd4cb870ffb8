"""The services an agent's loop uses, bundled so agents need one reference."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

import attrs

from .loop_settings import AgentLoopSettings

if TYPE_CHECKING:
    import trio

    from .agents.prompt import SystemPromptRegistry
    from .approval import ApprovalServiceImpl
    from .clock import HostClock
    from .hook_facade import HostHooks
    from .llm.service import LlmService
    from .sessions import SessionStore
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
