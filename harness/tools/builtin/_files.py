"""File helpers the built-in tools share: binary sniffing, link checks, safe errors.

Writes go through the one atomic writer, ``hookspecs.fsutil.write_atomic``,
under its user-file rule (``mode=KEEP_MODE``): an existing file keeps its
permissions, a new one gets the umask's, and the parent must already exist.

Hard links: a name inside the workspace may be a second link to a file that
lives outside it (``ln /etc/shadow-copy ws/x``), and nothing about the name
says so. Rather than walk the workspace looking for the other links, the
file tools refuse to open a file whose link count is above one
(:func:`single_link`); ``read`` and ``edit`` say so, ``grep`` skips it.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from hookspecs.errors import ToolArgsError, ToolError

#: How much of a file is sniffed for a NUL byte (what git and grep do).
SNIFF_BYTES = 8192


def looks_binary(head: bytes) -> bool:
    return b"\x00" in head


def os_reason(exc: OSError) -> str:
    """The reason without the filename: ``str(OSError)`` embeds absolute host paths."""
    return exc.strerror or type(exc).__name__


def require_regular_file(path: Path, shown: str, *, argument: str = "path") -> os.stat_result:
    """Refuse directories, FIFOs and devices (reading a FIFO would block forever)."""
    try:
        st = path.stat()
    except FileNotFoundError:
        raise ToolArgsError(f"{argument} {shown!r} does not exist") from None
    except OSError as exc:
        raise ToolError(f"cannot access {shown!r}: {os_reason(exc)}") from None
    if stat.S_ISDIR(st.st_mode):
        raise ToolArgsError(f"{argument} {shown!r} is a directory, not a file (glob or grep look inside it)")
    if not stat.S_ISREG(st.st_mode):
        raise ToolArgsError(f"{argument} {shown!r} is not a regular file")
    if not single_link(st):
        raise ToolArgsError(hard_link_refusal(shown, st, argument=argument))
    return st


def single_link(st: os.stat_result) -> bool:
    """False for a regular file with other hard links (one may be outside the workspace)."""
    return not stat.S_ISREG(st.st_mode) or st.st_nlink <= 1


def hard_link_refusal(shown: str, st: os.stat_result, *, argument: str = "path") -> str:
    return (
        f"{argument} {shown!r} has {st.st_nlink} hard links; files with more than one link are not opened "
        "(another link may lie outside the workspace)"
    )

