"""The tool registry: global tools, agent-scoped tools and visibility rules."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Protocol, cast

from hookspecs.errors import DshError
from hookspecs.values import ToolDefinition

from .schema import check_object_schema

if TYPE_CHECKING:
    from hookspecs.protocols import Agent

TOOL_NAME = re.compile(r"^[a-z][a-z0-9_-]*$")


def check_tool_definition(tool: ToolDefinition) -> None:
    """Refuse a malformed tool before any model can see it."""
    if not isinstance(tool, ToolDefinition):
        raise DshError(f"expected a ToolDefinition, got {type(tool).__name__}", code="INVALID_TOOL")
    if not TOOL_NAME.match(tool.name):
        raise DshError(f"tool name {tool.name!r} must match {TOOL_NAME.pattern}", code="INVALID_TOOL")
    try:
        check_object_schema(tool.parameters, f"tool {tool.name!r} parameters")
    except ValueError as exc:
        raise DshError(str(exc), code="INVALID_TOOL") from None


class ScopedToolSet(Protocol):
    """An agent's own tools and restrictions (the agent scope's ``tools``)."""

    @property
    def tools(self) -> Mapping[str, ToolDefinition]: ...

    def permits(self, name: str) -> bool: ...


class _ToolScope(Protocol):
    @property
    def tools(self) -> ScopedToolSet: ...


class ToolUser(Protocol):
    """An agent as visibility rules see it (``LoopAgent`` implements it): whether
    it is a root, and the tools its scope adds or restricts."""

    @property
    def is_root(self) -> bool: ...

    @property
    def scope(self) -> _ToolScope: ...


class ToolRegistry:
    """Implements :class:`hookspecs.protocols.ToolRegistry`.

    A tool is visible to an agent when the agent's scope does not shadow or
    restrict it away and, for ``root_only`` tools, the agent is a root. What is
    hidden is also refused at execution (the pipeline resolves through here).
    """

    def __init__(self) -> None:
        self._tools: dict[str, ToolDefinition] = {}

    def register(self, tool: ToolDefinition) -> Callable[[], None]:
        check_tool_definition(tool)
        if tool.name in self._tools:
            raise DshError(f"tool {tool.name!r} is already registered", code="DUPLICATE_TOOL")
        self._tools[tool.name] = tool

        def dispose() -> None:
            if self._tools.get(tool.name) is tool:
                del self._tools[tool.name]

        return dispose

    def get(self, name: str, agent: Agent | ToolUser | None = None) -> ToolDefinition | None:
        if agent is None:
            return self._tools.get(name)
        return self._resolve(name, _tool_user(agent))

    def _resolve(self, name: str, user: ToolUser) -> ToolDefinition | None:
        scope = user.scope.tools
        tool = scope.tools.get(name) or self._tools.get(name)
        if tool is None or not scope.permits(name):
            return None
        if tool.root_only and not user.is_root:
            return None
        return tool

    def visible(self, agent: Agent | ToolUser) -> list[ToolDefinition]:
        user = _tool_user(agent)
        names = sorted(set(self._tools) | set(user.scope.tools.tools))
        out: list[ToolDefinition] = []
        for name in names:
            tool = self._resolve(name, user)
            if tool is not None:
                out.append(tool)
        return out


def _tool_user(agent: object) -> ToolUser:
    """Visibility needs the agent's scope, which only this host's agents have.
    (An attribute test, not ``isinstance`` against a runtime-checkable protocol:
    this runs for every tool of every request.)"""
    if getattr(agent, "scope", None) is None:
        raise DshError(
            f"tool visibility needs an agent of this host; got {type(agent).__name__}", code="FOREIGN_AGENT"
        )
    return cast(ToolUser, agent)
