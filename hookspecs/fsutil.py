"""File helpers hosts and plugins share: 0700 dirs, 0600 files, atomic and durable rewrites."""

from __future__ import annotations

import errno
import fcntl
import os
import secrets
import stat
from pathlib import Path
from typing import Final

from .errors import InputFileError

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


#: ``write_atomic(..., mode=KEEP_MODE)``: a user's file keeps its permissions.
KEEP_MODE: Final = None


def write_atomic(path: Path, data: str | bytes, *, mode: int | None = FILE_MODE) -> bool:
    """Replace ``path`` with ``data`` atomically and durably; True when the file is new.

    The data goes to a temp file in the same directory, which is flushed and
    fsynced, renamed over ``path`` (``os.replace``), and then the directory is
    fsynced so the rename itself survives a crash. Readers see either the old
    or the new file, never a torn one; on failure the temp file is removed.

    ``mode`` is the permission rule:

    * an ``int`` (default ``FILE_MODE``, 0600) is for private state: the file
      always ends up with that mode, and missing parent directories are
      created 0700;
    * ``KEEP_MODE`` (``None``) is for a user's files (the workspace tools): an
      existing file keeps its permission bits, a new one gets what the umask
      allows (0666 & ~umask), and the parent directory must exist.
    """
    path = Path(path)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    if mode is None:
        try:
            final_mode: int | None = stat.S_IMODE(path.stat().st_mode)
        except FileNotFoundError:
            final_mode = None
        created = final_mode is None
    else:
        ensure_private_dir(path.parent)
        final_mode = mode
        created = not path.exists()
    tmp, fd = _create_temp(path, 0o600 if mode is not None else 0o666)
    try:
        with os.fdopen(fd, "wb") as handle:
            if final_mode is not None:
                os.fchmod(handle.fileno(), final_mode)
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
    fsync_dir(path.parent)
    return created


def _create_temp(path: Path, perms: int) -> tuple[Path, int]:
    """A new hidden temp file next to ``path`` (``O_EXCL``: never an existing one)."""
    while True:
        tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
        try:
            return tmp, os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, perms)
        except FileExistsError:
            continue


#: What ``fsync_dir`` shrugs off: a file system that cannot fsync a directory
#: (EINVAL, ENOTSUP) or a directory that may not be opened for reading.
_NO_DIR_FSYNC: Final = frozenset({errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EACCES, errno.EPERM})


def fsync_dir(directory: Path) -> None:
    """Make a rename or creation inside ``directory`` durable (where the OS can)."""
    try:
        fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError as exc:
        if exc.errno in _NO_DIR_FSYNC:
            return
        raise
    try:
        os.fsync(fd)
    except OSError as exc:
        if exc.errno not in _NO_DIR_FSYNC:
            raise
    finally:
        os.close(fd)


def write_all(fd: int, data: bytes) -> None:
    """Write every byte of ``data`` (``os.write`` may write only part of it)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def read_at(fd: int, offset: int, size: int) -> bytes | None:
    """Exactly ``size`` bytes of ``fd`` at ``offset``, or None when the file ends before."""
    chunks: list[bytes] = []
    while size > 0:
        chunk = os.pread(fd, size, offset)
        if not chunk:
            return None
        chunks.append(chunk)
        offset += len(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def append_line(path: Path, line: str, *, mode: int = FILE_MODE) -> None:
    """Append one whole line (a newline is added) to a private file, creating it 0600."""
    path = Path(path)
    ensure_private_dir(path.parent)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, mode)
    try:
        write_all(fd, (line.rstrip("\n") + "\n").encode("utf-8"))
    finally:
        os.close(fd)


def read_regular_bytes(path: Path, *, limit: int, what: str = "file", follow_symlinks: bool = True) -> bytes:
    """The bytes of ``path``, which must be a regular file of at most ``limit`` bytes.

    Special files are refused at once with :class:`InputFileError`: the file is
    opened non-blocking (a FIFO with no writer cannot hang the open) and checked
    with ``fstat`` on the open descriptor (a symlink to ``/dev/zero`` or to a FIFO
    is judged by what it points at, with no race between check and read). The
    bound counts bytes actually read, not ``st_size`` (which a growing file or a
    procfs entry misreports): reading stops at ``limit + 1`` bytes and refuses.
    ``what`` names the file's role in the one-line message ("profile", "transcript").
    ``follow_symlinks=False`` refuses a symlink as the last component (``O_NOFOLLOW``,
    so there is no window between a check and the open) for folders where a planted
    link must not redirect a read.
    """
    path = Path(path)
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    if not follow_symlinks:
        flags |= os.O_NOFOLLOW
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise InputFileError(f"{what} {path}: no such file") from None
    except IsADirectoryError:
        raise InputFileError(f"{what} {path}: is a directory, not a file") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP and not follow_symlinks:
            raise InputFileError(f"{what} {path}: is a symbolic link; refused (it is not followed)") from None
        raise InputFileError(f"{what} {path}: cannot open ({exc.strerror or exc})") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise InputFileError(f"{what} {path}: {_kind(info.st_mode)}, not a regular file")
        # back to blocking reads: a regular file never blocks, and O_NONBLOCK only mattered for the open
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
        chunks: list[bytes] = []
        total = 0
        while True:
            chunk = os.read(fd, min(1 << 20, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:
                raise InputFileError(f"{what} {path}: larger than {limit} bytes")
        return b"".join(chunks)
    except OSError as exc:
        raise InputFileError(f"{what} {path}: cannot read ({exc.strerror or exc})") from None
    finally:
        os.close(fd)


def read_regular_text(path: Path, *, limit: int, what: str = "file", follow_symlinks: bool = True) -> str:
    """:func:`read_regular_bytes` decoded as UTF-8; bytes that do not decode are an
    :class:`InputFileError` naming the byte offset, not a ``UnicodeDecodeError``."""
    data = read_regular_bytes(path, limit=limit, what=what, follow_symlinks=follow_symlinks)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputFileError(f"{what} {Path(path)}: not UTF-8 at byte {exc.start}") from None


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISDIR(mode):
        return "a directory"
    return "a special file"
