"""The management plugin (profile row ``tool-shadow-mind``): ``/shadow`` and the
model-facing management tools. It finds the runtime of the same host."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hookspecs import hookimpl
from hookspecs.errors import DshError
from hookspecs.values import CommandDefinition, CommandInvocation, CommandResult, ToolDefinition

from .commands import ShadowCommand
from .management import ManagementTools
from .plugin import runtime_for

if TYPE_CHECKING:
    from hookspecs.protocols import Host

    from .runtime.runtime import ShadowRuntime


class RuntimeMissing(DshError):
    code = "SHADOW_RUNTIME_MISSING"


class ShadowMindToolsPlugin:
    def __init__(self) -> None:
        self.host: Host | None = None

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
        return await ShadowCommand(self.host, runtime).handle(invocation)

    @hookimpl
    def dsh_register_tools(self, register: Any) -> None:
        for tool in ManagementTools(self._runtime).definitions():
            register(tool)


__all__ = ["ShadowMindToolsPlugin", "ToolDefinition"]
