"""The ``/evolution`` command: one name, two jobs dispatched on the first word.

``config ...`` reads and changes the live settings (:mod:`.config_command`);
``staged``, ``show``, ``approve`` and ``reject`` answer the memory notes and
skill writes a review staged for approval (:mod:`.staged_command`). A command is the user's
own act (its output never enters model history), so the agent can neither
approve its own review's writes nor change the review's settings.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Final

from hookspecs.scrub import scrub_text
from hookspecs.values import CommandDefinition, CommandInvocation, CommandResult

from .config_command import USAGE as CONFIG_USAGE
from .config_command import config_verb
from .staged_command import USAGE as STAGED_USAGE
from .staged_command import VERBS, staged_verb
from .vocabulary import COMMAND

if TYPE_CHECKING:
    from hookspecs.stores import MemoryStore, SkillLibrary

    from .live import LiveSettings
    from .staging import SkillStaging

USAGE: Final = f"{CONFIG_USAGE}\n{STAGED_USAGE}"
#: characters of an unknown word quoted back
_EXCERPT: Final = 80


def evolution_command(
    *,
    live: Callable[[], LiveSettings | None],
    staging: Callable[[], SkillStaging | None],
    library: Callable[[], SkillLibrary],
    memory: Callable[[], MemoryStore | None] = lambda: None,
) -> CommandDefinition:
    async def handle(invocation: CommandInvocation) -> CommandResult:
        text = invocation.raw_input.strip()
        if not text or text == "help":
            return CommandResult.ok(USAGE)
        verb = text.split(None, 1)[0]
        if verb == "config":
            return await config_verb(text.split(None, 2), live())
        if verb in VERBS:
            return await staged_verb(text.split(), staging, library, memory)
        return CommandResult.error(
            f"unknown subcommand {scrub_text(verb)[:_EXCERPT]!r}; /{COMMAND} help lists them"
        )

    return CommandDefinition(
        name=COMMAND,
        description="Self-improvement review: its live settings, and the notes and skill changes it staged for approval",
        input_hint="config [KEY [VALUE]] | staged | show|approve|reject PLAN",
        handler=handle,
    )
