"""What every CLI command shares: profile loading, logging, exit codes."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import IO, TYPE_CHECKING

from harness.paths import resolve_dsh_home
from hookspecs.errors import DshError

if TYPE_CHECKING:
    from harness.profiles import ComposedProfile

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


def setup_logging(verbosity: int) -> None:
    level = logging.WARNING if verbosity <= 0 else logging.INFO if verbosity == 1 else logging.DEBUG
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(ScrubbingFormatter("%(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)


def dsh_home(environ: Mapping[str, str] | None = None) -> Path:
    return resolve_dsh_home(environ)


def load_profile(args: argparse.Namespace, home: Path) -> ComposedProfile | None:
    """The composed profile named by ``--profile`` (or ``$DSH_PROFILE``); None when
    no profile was asked for and ``$DSH_HOME/profiles/default.yml`` does not exist."""
    # imported here: the profile machinery (and the contract's values under it)
    # loads only for a command that reads a profile, not for --help or a Stop
    # hook that finds nothing new
    from harness.profiles import compose_profile
    from harness.profiles.compose import PROFILES_DIR

    name = args.profile or os.environ.get("DSH_PROFILE")
    patches = [Path(p) for p in (args.patch or [])]
    if not name:
        default = home / PROFILES_DIR / "default.yml"
        if not default.exists():
            return None
        name = str(default)
    return compose_profile(name, dsh_home=home, patches=patches)


def add_profile_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--profile",
        metavar="P",
        help="profile file, or a name in $DSH_HOME/profiles/ (default: $DSH_PROFILE, then 'default' if present)",
    )
    parser.add_argument(
        "--patch", metavar="FILE", action="append", help="extra profile patch layer (repeatable, applied last)"
    )


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
