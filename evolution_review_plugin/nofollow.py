"""Reading and writing the files of the memory and skills folders without
following what someone planted there.

Those files end up in prompts sent to a model, so a symlink
(``skills/foo/SKILL.md -> ~/.ssh/id_rsa``, a skill directory pointing
elsewhere, ``MEMORY.md -> /dev/zero``) must be refused, not read through or
written through, and a FIFO must not hang the host. Each check is an
``lstat`` of the entry itself; the read is :func:`hookspecs.fsutil.read_regular_text`
with ``follow_symlinks=False`` (``O_NOFOLLOW``, non-blocking open, regular files
only, bounded by bytes read), so a symlink or special file swapped in after the
check is still refused at the open or by its ``fstat``.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from hookspecs.errors import InputFileError
from hookspecs.fsutil import read_regular_text


def _lstat(path: Path) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise InputFileError(f"{path}: cannot inspect ({exc.strerror or exc})") from None


def _link(path: Path, what: str) -> InputFileError:
    return InputFileError(f"{what} {path}: is a symbolic link; refused (it is not followed)")


def refuse_link(path: Path, *, what: str, directory: bool = False) -> bool:
    """Whether ``path`` exists; raises :class:`InputFileError` (one line) when it
    is a symlink, or is not a directory (``directory``) / not a regular file."""
    info = _lstat(path)
    if info is None:
        return False
    if stat.S_ISLNK(info.st_mode):
        raise _link(path, what)
    if not (stat.S_ISDIR if directory else stat.S_ISREG)(info.st_mode):
        raise InputFileError(f"{what} {path}: is not {'a directory' if directory else 'a regular file'}; refused")
    return True


def read_unfollowed(path: Path, *, limit: int, what: str) -> str | None:
    """The text of ``path``, None when there is no such entry. A symlink is
    refused here; a FIFO or device by ``read_regular_text`` (at once, without
    blocking); more than ``limit`` bytes too. Each refusal is one
    :class:`InputFileError` line."""
    try:
        return read_regular_text(path, limit=limit, what=what, follow_symlinks=False)
    except InputFileError:
        if _lstat(path) is None:  # "no such file" is an answer here, not an error
            return None
        raise
