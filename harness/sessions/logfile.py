"""Opening a session's log without trusting what sits in ``$DSH_HOME/sessions/``.

A session folder, or the ``session.jsonl`` in it, may have been replaced by a
symlink to a file outside ``$DSH_HOME`` (which the host would then read as a
session and append the person's conversation to), by a FIFO, or made
unreadable. Every read and append goes through :func:`open_log`: the folder
is opened with ``O_NOFOLLOW | O_DIRECTORY`` and the log relative to it with
``O_NOFOLLOW`` (no window between checking and opening), and only a regular
file is accepted. Failures are one :class:`SessionFormatError` line naming the
folder or the log relative to the home, never a traceback.
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
from pathlib import Path
from typing import BinaryIO

from hookspecs.errors import SessionFormatError

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


def _folder_label(label: str) -> str:
    return label.rsplit("/", 1)[0] if "/" in label else label


def open_log_fd(path: Path, label: str, flags: int = os.O_RDONLY) -> int:
    """A descriptor on the regular file ``path`` (``flags``: the access mode
    and ``O_APPEND``...), reached without following a symlink in its last two
    components. ``FileNotFoundError`` when the folder or the log is missing;
    ``SessionFormatError`` naming it for anything else."""
    folder = _folder_label(label)
    try:
        dir_fd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | _CLOEXEC)
    except FileNotFoundError:
        raise
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR) and os.path.islink(path.parent):
            raise SessionFormatError(f"{folder}: the session folder is a symlink; refused") from None
        raise SessionFormatError(f"{folder}: cannot open the session folder: {exc.strerror or exc}") from None
    try:
        try:
            # O_NONBLOCK: a FIFO in place of the log cannot hang the open
            fd = os.open(path.name, flags | os.O_NOFOLLOW | os.O_NONBLOCK | _CLOEXEC, dir_fd=dir_fd)
        except FileNotFoundError:
            raise
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise SessionFormatError(f"{label}: the session file is a symlink; refused") from None
            raise SessionFormatError(f"{label}: cannot open the session file: {exc.strerror or exc}") from None
    finally:
        os.close(dir_fd)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise SessionFormatError(f"{label}: not a regular file")
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_log(path: Path, label: str) -> BinaryIO:
    """:func:`open_log_fd` for reading, as a binary file object."""
    return os.fdopen(open_log_fd(path, label), "rb")


def read_log_bytes(path: Path, label: str) -> bytes:
    """The whole log (see :func:`open_log_fd`)."""
    with open_log(path, label) as handle:
        try:
            return handle.read()
        except OSError as exc:
            raise SessionFormatError(f"{label}: cannot read the session file: {exc.strerror or exc}") from None


def check_log(path: Path, label: str) -> None:
    """Refuse ``path`` now, before anything is written next to it (the lock)."""
    os.close(open_log_fd(path, label))
