"""Agent scopes: tools, prompt sections, restrictions, guards and plugins that
exist for one agent and unwind with it."""

from __future__ import annotations

import inspect
import itertools
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from hookspecs.errors import AgentError
from hookspecs.values import PromptSection, ToolDefinition, ToolExecution, ToolFilter

if TYPE_CHECKING:
    from hookspecs.protocols import Agent

    from ..hook_facade import HostHooks

_counter = itertools.count(1)


class _Disposers:
    def __init__(self) -> None:
        self._stack: list[Callable[[], Any]] = []

    def push(self, fn: Callable[[], Any]) -> Callable[[], None]:
        done = False

        def dispose() -> None:
            nonlocal done
            if not done:
                done = True
                fn()

        self._stack.append(dispose)
        return dispose

    def drain(self) -> list[Callable[[], Any]]:
        stack, self._stack = self._stack, []
        return list(reversed(stack))


class ScopedToolsImpl:
    def __init__(self, disposers: _Disposers, check_tool: Callable[[ToolDefinition], None]) -> None:
        self._disposers = disposers
        self._check_tool = check_tool
        self.tools: dict[str, ToolDefinition] = {}
        self.filters: list[ToolFilter] = []
        self.guards: list[Callable[[ToolExecution], str | None]] = []

    def register(self, tool: ToolDefinition) -> Callable[[], None]:
        self._check_tool(tool)
        if tool.name in self.tools:
            raise AgentError(f"scoped tool {tool.name!r} is already registered for this agent")
        self.tools[tool.name] = tool
        return self._disposers.push(lambda: self.tools.pop(tool.name, None))

    def restrict(self, allow: Iterable[str] | None = None, deny: Iterable[str] = ()) -> Callable[[], None]:
        flt = ToolFilter.of(allow, deny)
        self.filters.append(flt)
        return self._disposers.push(lambda: self.filters.remove(flt))

    def guard(self, guard: Callable[[ToolExecution], str | None]) -> Callable[[], None]:
        self.guards.append(guard)
        return self._disposers.push(lambda: self.guards.remove(guard))

    def permits(self, name: str) -> bool:
        return all(f.permits(name) for f in self.filters)


class ScopedPromptImpl:
    def __init__(self, disposers: _Disposers) -> None:
        self._disposers = disposers
        self.sections: dict[str, PromptSection] = {}
        self.suppress_count = 0

    def section(self, section: PromptSection) -> Callable[[], None]:
        self.sections[section.name] = section
        return self._disposers.push(lambda: self.sections.pop(section.name, None))

    def suppress_runtime_context(self) -> Callable[[], None]:
        self.suppress_count += 1

        def undo() -> None:
            self.suppress_count -= 1

        return self._disposers.push(undo)

    @property
    def suppresses_runtime_context(self) -> bool:
        return self.suppress_count > 0


class AgentScopeImpl:
    """Implements :class:`hookspecs.protocols.AgentScope`."""

    def __init__(self, agent: Agent, hooks: HostHooks, check_tool: Callable[[ToolDefinition], None]) -> None:
        self._agent = agent
        self._hooks = hooks
        self._disposers = _Disposers()
        self._on_dispose: list[Callable[[], Any]] = []
        self.tools = ScopedToolsImpl(self._disposers, check_tool)
        self.system_prompt = ScopedPromptImpl(self._disposers)

    @property
    def agent(self) -> Agent:
        return self._agent

    def add_plugin(self, plugin: object, name: str | None = None) -> Callable[[], None]:
        label = name or f"{type(plugin).__name__}"
        unique = f"scope:{self._agent.id}:{label}:{next(_counter)}"
        return self._disposers.push(self._hooks.register_scoped(plugin, self._agent.id, unique))

    def on_dispose(self, callback: Callable[[], Any]) -> None:
        self._on_dispose.append(callback)

    async def unwind(self, logger: Any) -> None:
        """Run on-dispose callbacks, then every scoped registration's disposer, LIFO.

        The disposers run even when the callbacks are cut short (a deadline on a
        hung callback): they are synchronous and leave nothing registered."""
        callbacks, self._on_dispose = self._on_dispose, []
        try:
            for callback in reversed(callbacks):
                try:
                    result = callback()
                    if inspect.isawaitable(result):
                        await result
                except Exception:
                    logger.exception("on_dispose callback of agent %s failed", self._agent.id)
        finally:
            for dispose in self._disposers.drain():
                try:
                    dispose()
                except Exception:
                    logger.exception("scope disposer of agent %s failed", self._agent.id)
