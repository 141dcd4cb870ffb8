"""The host's own features, shipped as ordinary plugins (dogfooding the hooks).

* ``harness-core`` (always loaded): built-in tools and the ``/help`` command.
* ``agent-loop`` (entry point; a default instance is loaded when the profile has
  no row for it): the ``agent-loop`` settings namespace — the model route and
  loop limits. A profile row ``{id: agent-loop, name: agent-loop, config: {...}}``
  supplies the namespace's base layer.
* ``compaction`` (entry point; loaded by default the same way): the
  ``compaction`` settings namespace (``docs/compaction.md``).
* ``telemetry`` (entry point; loaded as a built-in only when ``DSH_OTEL=1``
  and no row names it): OpenTelemetry export (``docs/telemetry.md``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from hookspecs import hookimpl
from hookspecs.values import CommandDefinition, CommandInvocation, CommandResult

from .commands import help_text
from .compaction.command import COMPACTION_PLUGIN_NAME, CompactionPlugin
from .loop_settings import AGENT_LOOP_SETTINGS, AgentLoopSettings
from .tools.builtin import builtin_tools

if TYPE_CHECKING:
    from hookspecs.protocols import Host

    from .profiles import ProfileRow

CORE_PLUGIN_NAME = "harness-core"
AGENT_LOOP_PLUGIN_NAME = "agent-loop"
#: ``harness.telemetry.ENABLE_ENV``: the telemetry package loads only when it is set at all
TELEMETRY_ENV = "DSH_OTEL"


class CorePlugin:
    def __init__(self) -> None:
        self.host: Host | None = None

    @hookimpl
    def dsh_plugin_setup(self, host: Host) -> None:
        self.host = host

    @hookimpl
    def dsh_register_tools(self, register: Any) -> None:
        for tool in builtin_tools():
            register(tool)

    @hookimpl
    def dsh_register_commands(self, register: Any) -> None:
        register(CommandDefinition(name="help", description="List the available commands", handler=self._help))

    async def _help(self, invocation: CommandInvocation) -> CommandResult:
        assert self.host is not None
        return CommandResult.ok(help_text(self.host.commands.list()))


class AgentLoopPlugin:
    """Declares the ``agent-loop`` settings namespace."""

    config_schema = AgentLoopSettings

    def __init__(self, config: AgentLoopSettings | None = None) -> None:
        self.config = config or AgentLoopSettings()

    @hookimpl
    def dsh_register_settings(self, register: Any) -> None:
        register(AGENT_LOOP_SETTINGS)


def builtin_plugins(rows: Sequence[ProfileRow], environ: Mapping[str, str] | None = None) -> list[tuple[str, object]]:
    """The plugins every host loads before the profile's rows: the core, a
    default ``agent-loop`` unless the profile configures one (``compaction``
    likewise), and ``telemetry`` when ``DSH_OTEL=1`` and no row names it."""
    builtins: list[tuple[str, object]] = [(CORE_PLUGIN_NAME, CorePlugin())]
    if not any(row.name == AGENT_LOOP_PLUGIN_NAME and not row.disabled for row in rows):
        builtins.append((AGENT_LOOP_PLUGIN_NAME, AgentLoopPlugin()))
    if not any(row.name == COMPACTION_PLUGIN_NAME and not row.disabled for row in rows):
        builtins.append((COMPACTION_PLUGIN_NAME, CompactionPlugin()))
    env = os.environ if environ is None else environ
    if env.get(TELEMETRY_ENV):  # what it holds is for the telemetry package to judge
        from .telemetry import PLUGIN_NAME, builtin_telemetry

        builtins.extend(builtin_telemetry(env, has_row=any(row.name == PLUGIN_NAME for row in rows)))
    return builtins
