"""A test plugin for the web tests' live server: ``/notice TEXT`` pushes a notice
to the session it runs in through the host's client service, so a test decides
when a notice is pushed (the host's own notices come from rare failures such as
automatic compaction giving up). Loaded by ``module:attr`` from a profile row."""

from __future__ import annotations

from typing import Any

from hookspecs import hookimpl
from hookspecs.values import CommandDefinition, CommandInvocation, CommandResult, Notice


class NoticePlugin:
    def __init__(self) -> None:
        self._host: Any = None

    @hookimpl
    def dsh_plugin_setup(self, host: Any) -> None:
        self._host = host

    @hookimpl
    def dsh_register_commands(self, register: Any) -> None:
        register(CommandDefinition(name="notice", description="push a notice (web tests)", input_hint="TEXT", handler=self._notice))

    async def _notice(self, invocation: CommandInvocation) -> CommandResult:
        self._host.client.notice(Notice(level="info", text=invocation.raw_input.strip(), session_id=invocation.agent.id))
        return CommandResult.ok()
