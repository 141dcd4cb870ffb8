"""The management plugin (profile row ``tool-shadow-mind``): ``/shadow`` and the
model-facing management tools, offered while the ``managementTools`` setting is
on. It finds the runtime of the same host."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from hookspecs import hookimpl
from hookspecs.errors import DshError, SettingsError
from hookspecs.values import CommandDefinition, CommandInvocation, CommandResult, ToolDefinition

from .plugin import runtime_for
from .settings import ShadowMindSettings
from .vocabulary import SETTINGS_NAMESPACE

if TYPE_CHECKING:
    from hookspecs.protocols import Host

    from .runtime.runtime import ShadowRuntime


class RuntimeMissing(DshError):
    code = "SHADOW_RUNTIME_MISSING"


class ShadowMindToolsPlugin:
    def __init__(self) -> None:
        self.host: Host | None = None
        self._disposers: list[Callable[[], None]] = []

    def _runtime(self) -> ShadowRuntime:
        runtime = runtime_for(self.host) if self.host is not None else None
        if runtime is None:
            raise RuntimeMissing(
                "the Shadow Mind runtime is not loaded; add the shadow-mind-runtime row (or the shadow-mind bundle) to the profile"
            )
        return runtime

    @hookimpl
    def dsh_plugin_setup(self, host: Host) -> None:
        self.host = host
        self._offer_tools()

    @hookimpl
    def dsh_register_commands(self, register: Any) -> None:
        register(
            CommandDefinition(
                name="shadow",
                description="Shadow Mind: status, forced reviews, pause/resume, the default reviewer and settings",
                input_hint="[status|new|retry RUN|pause|resume|cycles|show|set F V|use S|config [K [V]]|help]",
                handler=self._handle,
            )
        )

    async def _handle(self, invocation: CommandInvocation) -> CommandResult:
        try:
            runtime = self._runtime()
        except RuntimeMissing as exc:
            return CommandResult.error(exc.message)
        assert self.host is not None
        from .commands import ShadowCommand  # loaded when /shadow first runs, not at every start

        return await ShadowCommand(self.host, runtime).handle(invocation)

    def _offer_tools(self) -> None:
        """Register the management tools while ``managementTools`` is on, withdraw
        them when it goes off: they are part of every root request while offered
        (schemas the model reads, tokens it pays for), so only on request."""
        host = self.host
        if host is None:
            return
        try:
            settings = host.settings.get(SETTINGS_NAMESPACE)
        except SettingsError:
            settings = None  # no runtime row, no namespace: nothing to manage
        wanted = isinstance(settings, ShadowMindSettings) and settings.management_tools
        if wanted and not self._disposers:
            from .management import ManagementTools  # only when the setting offers them

            self._disposers = [host.tools.register(tool) for tool in ManagementTools(self._runtime).definitions()]
        elif not wanted and self._disposers:
            for dispose in self._disposers:
                dispose()
            self._disposers = []

    @hookimpl
    def dsh_settings_updated(self, namespace: str, value: Any, previous: Any) -> None:
        if namespace == SETTINGS_NAMESPACE:
            self._offer_tools()

    @hookimpl
    def dsh_plugin_teardown(self, host: Host) -> None:
        for dispose in self._disposers:
            dispose()
        self._disposers = []


__all__ = ["ShadowMindToolsPlugin", "ToolDefinition"]
