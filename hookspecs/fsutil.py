"""Private-file helpers hosts and plugins share: 0700 dirs, 0600 files, atomic rewrites."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

DIR_MODE = 0o700
FILE_MODE = 0o600


def ensure_private_dir(path: Path) -> Path:
    """Create ``path`` (and parents) with mode 0700 for the directories it creates."""
    path = Path(path)
    missing: list[Path] = []
    current = path
    while not current.exists():
        missing.append(current)
        if current.parent == current:
            break
        current = current.parent
    for directory in reversed(missing):
        try:
            directory.mkdir(mode=DIR_MODE)
        except FileExistsError:
            pass
        os.chmod(directory, DIR_MODE)
    return path


def write_atomic(path: Path, data: str | bytes, *, mode: int = FILE_MODE) -> None:
    """Replace ``path`` with ``data`` atomically (temp file in the same dir + rename).

    Readers see either the old or the new file, never a torn one; the file ends
    up with ``mode`` and its directory is created 0700 when missing.
    """
    path = Path(path)
    ensure_private_dir(path.parent)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def append_line(path: Path, line: str, *, mode: int = FILE_MODE) -> None:
    """Append one line (a newline is added) to a private file, creating it 0600."""
    path = Path(path)
    ensure_private_dir(path.parent)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, mode)
    try:
        os.write(fd, (line.rstrip("\n") + "\n").encode("utf-8"))
    finally:
        os.close(fd)
