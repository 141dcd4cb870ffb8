"""The :class:`Host` a plugin receives in ``dsh_plugin_setup``, and its small
parts (paths, clock)."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Protocol

from .agents import AgentRegistry, SystemPromptRegistry
from .services import ClientService, CompactionEngine, LlmService, SettingsService
from .sessions import SessionStore
from .subagents import SubagentService
from .tools import ApprovalService, CommandRegistry, ToolRegistry


class Paths(Protocol):
    @property
    def dsh_home(self) -> Path: ...

    @property
    def sessions_dir(self) -> Path: ...

    @property
    def settings_file(self) -> Path: ...


class Clock(Protocol):
    def now(self) -> float:
        """Wall-clock epoch seconds. Under trio's MockClock it advances with
        virtual time, so wall-clock cooldowns are testable without sleeping."""
        ...


class Host(Protocol):
    """Everything a plugin may use. Passed to ``dsh_plugin_setup``."""

    @property
    def sessions(self) -> SessionStore: ...

    @property
    def agents(self) -> AgentRegistry: ...

    @property
    def subagents(self) -> SubagentService: ...

    @property
    def settings(self) -> SettingsService: ...

    @property
    def tools(self) -> ToolRegistry: ...

    @property
    def commands(self) -> CommandRegistry: ...

    @property
    def llm(self) -> LlmService: ...

    @property
    def approval(self) -> ApprovalService: ...

    @property
    def compaction(self) -> CompactionEngine | None:
        """The compaction engine (a plugin's from ``dsh_register_compaction_engine``,
        else the host's own); None when the host compacts nothing."""
        ...

    @property
    def client(self) -> ClientService: ...

    @property
    def system_prompt(self) -> SystemPromptRegistry: ...

    @property
    def paths(self) -> Paths: ...

    @property
    def clock(self) -> Clock: ...

    @property
    def logger(self) -> logging.Logger: ...

    @property
    def headless(self) -> bool:
        """True when no person is attached (``harness run``): plugins should drain
        their background work instead of waiting for input."""
        ...

    def spawn(self, fn: Callable[..., Awaitable[Any]], *args: Any, name: str | None = None) -> None:
        """Run ``fn(*args)`` in the host's background task group. Exceptions are
        logged, never propagated; headless runs wait for these tasks to finish;
        remaining tasks are cancelled after ``dsh_plugin_teardown``."""
        ...
