"""What every CLI command shares: profile loading, logging, exit codes."""

from __future__ import annotations

import gc
import logging
import os
import sys
from collections.abc import Mapping
from typing import IO

from hookspecs.errors import DshError

from .profile_args import add_profile_arguments, dsh_home, load_profile

__all__ = [
    "EXIT_BROKEN_PIPE",
    "EXIT_CODES",
    "EXIT_INTERRUPTED",
    "EXIT_USAGE",
    "ScrubbingFormatter",
    "add_profile_arguments",
    "discard_output",
    "dsh_home",
    "load_profile",
    "pause_collection",
    "resume_collection",
    "setup_logging",
    "single_dsh_error",
]


#: Ctrl-C stopped the command (128 + SIGINT, as a shell reports it)
EXIT_INTERRUPTED = 130
#: the reader of stdout went away (``harness run … | head -1``): 128 + SIGPIPE
EXIT_BROKEN_PIPE = 141
#: exit codes by turn-end reason
EXIT_CODES: Mapping[str, int] = {
    "completed": 0,
    "error": 1,
    "interrupted": 1,
    "max-tokens": 3,
    "blocked": 4,
    "aborted": EXIT_INTERRUPTED,
}
EXIT_USAGE = 2


def discard_output(stream: IO[str]) -> None:
    """Point ``stream``'s file descriptor at the null device after its reader
    went away, so nothing written later (the interpreter's final flush
    included) fails again."""
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):  # not backed by a descriptor
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fd)
    finally:
        os.close(devnull)


class ScrubbingFormatter(logging.Formatter):
    """Log lines never carry credentials or absolute paths."""

    def format(self, record: logging.LogRecord) -> str:
        from hookspecs.scrub import scrub_text  # its detector compiles at first use, not at every start

        return scrub_text(super().format(record), limit=4000)


#: the collector was paused by :func:`pause_collection` and not resumed yet
_PAUSED = False


def pause_collection() -> None:
    """Pause the cyclic garbage collector for a command's start-up.

    Start-up builds the objects the process keeps to its end (modules, classes,
    the profile, the host's plugins): collecting while they are built walks
    them again and again for no garbage (about a tenth of ``harness run`` to
    its first request). :func:`resume_collection` ends the pause. A collector
    someone else turned off is left alone."""
    global _PAUSED
    if gc.isenabled():
        gc.disable()
        _PAUSED = True


def resume_collection(*, freeze: bool = True) -> None:
    """End :func:`pause_collection`'s pause; what start-up built is frozen
    (``freeze``), so later collections do not walk it again: only for a
    command that owns its process, since nothing frozen is ever collected. A
    no-op when not paused."""
    global _PAUSED
    if _PAUSED:
        _PAUSED = False
        if freeze:
            gc.freeze()
        gc.enable()


def setup_logging(verbosity: int) -> None:
    level = logging.WARNING if verbosity <= 0 else logging.INFO if verbosity == 1 else logging.DEBUG
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(ScrubbingFormatter("%(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)


def single_dsh_error(group: BaseExceptionGroup[BaseException]) -> DshError | None:
    """The one :class:`DshError` a (nested) exception group carries, if that is all
    it carries. trio wraps errors raised inside the host's task groups; a lone
    usage error (an unknown ``--session``) should print as a message, not a
    traceback."""
    leaves: list[BaseException] = []
    pending: list[BaseException] = [group]
    while pending:
        current = pending.pop()
        if isinstance(current, BaseExceptionGroup):
            pending.extend(current.exceptions)
        else:
            leaves.append(current)
    return leaves[0] if len(leaves) == 1 and isinstance(leaves[0], DshError) else None
