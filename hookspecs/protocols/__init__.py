"""The host services a plugin may call, as ``typing.Protocol`` classes.

A plugin receives a :class:`Host` in ``dsh_plugin_setup`` and keeps it. Every
registration returns a :data:`Disposer`; the host also runs a plugin's
disposers at teardown, so calling them is only needed for early removal.

Import every name from here. The modules hold them by what they describe:
``sessions``, ``agents``, ``tools`` (with commands and approval), ``subagents``,
``services`` (settings, models, client, compaction) and ``host``. The live
objects values carry (:class:`Agent`, :class:`Session`, :class:`Inbox`,
:class:`ToolRunContext`) are defined with the values in
:mod:`hookspecs.values.live`, so no value imports a protocol.
"""

from ..values.live import Agent, Inbox, Session, ToolRunContext
from .agents import (
    AgentHandle,
    AgentRegistry,
    AgentScope,
    CreateAgentOptions,
    ScopedPrompt,
    ScopedTools,
    SystemPromptRegistry,
)
from .disposer import Disposer
from .host import Clock, Host, Paths
from .services import ClientService, CompactionEngine, LlmAdapter, LlmService, SettingsService
from .sessions import EventTypeRegistrar, SessionStore, SessionSummary
from .subagents import (
    FinishRun,
    StructuredCapture,
    SubagentProvider,
    SubagentRun,
    SubagentService,
    SubagentToolkit,
)
from .tools import ApprovalService, CommandRegistry, ToolRegistry

__all__ = [
    "Agent",
    "AgentHandle",
    "AgentRegistry",
    "AgentScope",
    "ApprovalService",
    "ClientService",
    "Clock",
    "CommandRegistry",
    "CompactionEngine",
    "CreateAgentOptions",
    "Disposer",
    "EventTypeRegistrar",
    "FinishRun",
    "Host",
    "Inbox",
    "LlmAdapter",
    "LlmService",
    "Paths",
    "ScopedPrompt",
    "ScopedTools",
    "Session",
    "SessionStore",
    "SessionSummary",
    "SettingsService",
    "StructuredCapture",
    "SubagentProvider",
    "SubagentRun",
    "SubagentService",
    "SubagentToolkit",
    "SystemPromptRegistry",
    "ToolRegistry",
    "ToolRunContext",
]
