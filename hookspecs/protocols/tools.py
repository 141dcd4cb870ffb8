"""Tools, slash commands and approval (``host.tools``, ``host.commands``,
``host.approval``)."""

from __future__ import annotations

import builtins
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from ..values.commands import CommandDefinition, CommandResult
    from ..values.live import Agent
    from ..values.tools import ApprovalOutcome, ApprovalRequest, ToolDefinition
    from .disposer import Disposer


class ToolRegistry(Protocol):
    def register(self, tool: ToolDefinition) -> Disposer:
        """A global tool; a duplicate name is an error."""
        ...

    def get(self, name: str, agent: Agent | None = None) -> ToolDefinition | None:
        """The tool ``agent`` would get for ``name`` (scoped first), or None when
        unknown or hidden from it."""
        ...

    def visible(self, agent: Agent) -> list[ToolDefinition]:
        """The tools ``agent``'s model is offered, in name order."""
        ...


class CommandRegistry(Protocol):
    def register(self, command: CommandDefinition) -> Disposer: ...

    def list(self) -> builtins.list[CommandDefinition]: ...

    async def execute(self, agent: Agent, line: str) -> CommandResult | None:
        """Run ``/name raw-input`` for ``agent``; None when ``line`` is not a
        known command. Records ``command/run`` and ``command/done``."""
        ...


class ApprovalService(Protocol):
    async def request(self, request: ApprovalRequest) -> ApprovalOutcome:
        """Walk the ``dsh_approval_request`` chain. With no answerer the outcome is
        ``unavailable`` (fail closed); a session whose approval policy is
        ``never`` gets ``rejected`` without asking."""
        ...
