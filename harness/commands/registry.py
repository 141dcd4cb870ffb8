"""The slash-command registry. Command output never enters model history."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from hookspecs.errors import CommandError, DshError
from hookspecs.scrub import scrub_text
from hookspecs.values import CancelToken, CommandDefinition, CommandInvocation, CommandResult, EventTypes

from .parse import COMMAND_NAME, parse_command

if TYPE_CHECKING:
    import logging

    from hookspecs.protocols import Agent


class CommandRegistryImpl:
    """Implements :class:`hookspecs.protocols.CommandRegistry`."""

    def __init__(self, logger: logging.Logger) -> None:
        self._commands: dict[str, CommandDefinition] = {}
        self._logger = logger

    def register(self, command: CommandDefinition) -> Callable[[], None]:
        if not COMMAND_NAME.match(command.name):
            raise DshError(f"command name {command.name!r} must match {COMMAND_NAME.pattern}", code="INVALID_COMMAND")
        if command.name in self._commands:
            raise DshError(f"command /{command.name} is already registered", code="DUPLICATE_COMMAND")
        self._commands[command.name] = command

        def dispose() -> None:
            if self._commands.get(command.name) is command:
                del self._commands[command.name]

        return dispose

    def list(self) -> list[CommandDefinition]:
        return [self._commands[name] for name in sorted(self._commands)]

    def find(self, name: str) -> CommandDefinition | None:
        return self._commands.get(name)

    async def execute(self, agent: Agent, line: str, *, cancel: CancelToken | None = None) -> CommandResult | None:
        parsed = parse_command(line)
        if parsed is None:
            return None
        name, raw = parsed
        command = self._commands.get(name)
        if command is None:
            return None
        session = agent.session
        command_id = uuid.uuid4().hex
        run: dict[str, Any] = {"command_id": command_id, "name": name, "source": "user"}
        if command.record_input and raw.strip():
            run["input"] = raw
        session.append(EventTypes.COMMAND_RUN, run)
        result = CommandResult.error(f"/{name} did not finish")
        try:
            result = await command.handler(
                CommandInvocation(
                    command_id=command_id, name=name, raw_input=raw, agent=agent, cancel=cancel or CancelToken()
                )
            )
            if not isinstance(result, CommandResult):
                result = CommandResult.error(f"/{name} returned an invalid result")
        except CommandError as exc:
            result = CommandResult.error(exc.message)
        except Exception as exc:
            self._logger.exception("/%s failed", name)
            result = CommandResult.error(f"/{name} failed: {scrub_text(str(exc) or type(exc).__name__)}")
        finally:
            done: dict[str, Any] = {"command_id": command_id, "kind": result.kind}
            if result.text:
                done["text"] = result.text
            session.append(EventTypes.COMMAND_DONE, done)
        return result


#: a usage longer than this goes on a line of its own, the description under it
_USAGE_COLUMN = 28


def help_text(commands: list[CommandDefinition]) -> str:
    """Every registered command (the host's and every plugin's): its usage and
    its one-line description, in columns while the usage is short."""
    lines = ["Commands:"]
    for command in commands:
        usage = f"/{command.name}" + (f" {command.input_hint}" if command.input_hint else "")
        description = command.description.strip().splitlines()[0] if command.description.strip() else ""
        if len(usage) <= _USAGE_COLUMN:
            lines.append(f"  {usage:<{_USAGE_COLUMN}} {description}".rstrip())
        else:
            lines.append(f"  {usage}")
            lines.append(f"  {'':<{_USAGE_COLUMN}} {description}".rstrip())
    return "\n".join(lines)
