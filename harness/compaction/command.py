"""``/compact`` and the ``compaction`` plugin row (its settings namespace)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hookspecs import hookimpl
from hookspecs.errors import ManualCompactionError
from hookspecs.values import CommandDefinition, CommandInvocation, CommandResult

from .policy import COMPACTION_SETTINGS, CompactionSettings

if TYPE_CHECKING:
    from hookspecs.protocols import CompactionEngine

COMPACTION_PLUGIN_NAME = "compaction"


def compact_command(service: CompactionEngine) -> CommandDefinition:
    async def handler(invocation: CommandInvocation) -> CommandResult:
        if invocation.raw_input.strip():
            return CommandResult.error("/compact takes no arguments")
        try:
            result = await service.compact_now(
                invocation.agent, invocation.cancel, source_command_id=invocation.command_id
            )
        except ManualCompactionError as exc:
            return CommandResult.error(f"compaction failed ({exc.code}): {exc.message}")
        if not result.compacted:
            return CommandResult.ok(f"nothing was compacted: {result.reason}")
        count = len(result.shadowed_seqs)
        return CommandResult.ok(
            f"compacted {count} message{'s' if count != 1 else ''} into a summary "
            f"(about {result.tokens_before} -> {result.tokens_after} tokens)"
        )

    return CommandDefinition(
        name="compact", description="Replace the older history with a summary (from idle)", handler=handler
    )


class CompactionPlugin:
    """Declares the ``compaction`` settings namespace; a profile row
    ``{id: compaction, name: compaction, config: {...}}`` is its base layer."""

    config_schema = CompactionSettings

    def __init__(self, config: CompactionSettings | None = None) -> None:
        self.config = config or CompactionSettings()

    @hookimpl
    def dsh_register_settings(self, register: Any) -> None:
        register(COMPACTION_SETTINGS)
