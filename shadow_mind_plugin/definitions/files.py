"""Reading the operator's files under ``$DSH_HOME/shadow-minds/`` safely.

Definitions and the holdout sidecar are read on the operator's behalf, so a
FIFO there must not hang the host and a symlink to ``/dev/zero`` must not be
read until memory runs out. :func:`read_home_file` wraps the shared
``read_regular_bytes`` in the ``OSError`` shape the readers already handle
(``FileNotFoundError`` when missing, else ``strerror`` is a short reason
without the absolute path, which these messages never show).
"""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Final

from hookspecs.errors import InputFileError
from hookspecs.fsutil import read_regular_bytes

#: a definition is a page of Markdown; the sidecar a short JSON object
HOME_FILE_LIMIT: Final = 1 << 20
#: the journals grow with use, but far slower than this
JOURNAL_LIMIT: Final = 256 << 20
_WHAT: Final = "file"


def read_home_file(path: Path, *, limit: int = HOME_FILE_LIMIT) -> bytes:
    """The bytes of the regular file ``path`` (at most ``limit``).

    Raises ``FileNotFoundError`` when nothing is there, and an ``OSError``
    whose ``strerror`` says why otherwise (a FIFO, a device, too large...).
    """
    try:
        return read_regular_bytes(path, limit=limit, what=_WHAT)
    except InputFileError as exc:
        if not os.path.lexists(path):
            raise FileNotFoundError(errno.ENOENT, "no such file") from None
        reason = exc.message.removeprefix(f"{_WHAT} {Path(path)}: ")
        # strerror stays path-free for messages that must not show one; str() names the file
        raise OSError(errno.EINVAL, reason, str(path)) from None
