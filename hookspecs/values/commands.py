"""Slash commands: ``/name raw-input`` typed by a person, never seen by the model."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Literal, TypeAlias

import attrs

from .cancel import CancelToken
from .live import Agent

CommandHandler: TypeAlias = Callable[["CommandInvocation"], Awaitable["CommandResult"]]


@attrs.frozen(kw_only=True)
class CommandDefinition:
    """A slash command.

    :param name: ``^[a-z][a-z0-9_-]*$`` without the slash.
    :param input_hint: shown by ``/help`` (``"[new|status]"``).
    :param record_input: write the raw input into ``command/run`` (turn off for
        input that may hold secrets).
    :param handler: ``async (invocation) -> CommandResult``. Output never enters
        model history; a handler that wants model work sends a message itself.
    """

    name: str
    description: str
    handler: CommandHandler = attrs.field(eq=False, repr=False)
    input_hint: str = ""
    record_input: bool = True


@attrs.frozen(kw_only=True)
class CommandInvocation:
    command_id: str
    name: str
    raw_input: str
    agent: Agent = attrs.field(eq=False, repr=False)
    cancel: CancelToken = attrs.field(eq=False, repr=False)


@attrs.frozen(kw_only=True)
class CommandResult:
    kind: Literal["success", "error"]
    text: str = ""

    @classmethod
    def ok(cls, text: str = "") -> CommandResult:
        return cls(kind="success", text=text)

    @classmethod
    def error(cls, text: str) -> CommandResult:
        return cls(kind="error", text=text)
