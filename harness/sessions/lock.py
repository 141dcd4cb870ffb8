"""One writer per session: an OS lock on ``sessions/<id>/session.lock``.

The lock is an exclusive ``fcntl.flock`` on the lock file, taken without
waiting when a store creates or opens a session and held until it closes it.
The OS drops it when the holder's file descriptor closes, also when the
process dies, so a lock file left behind by a crash never blocks anyone: only
a live holder does. The holder writes its pid into the file so the refused
opener can name it. The descriptor is not inherited by child processes
(Python opens files non-inheritable).

On a platform without ``fcntl`` (Windows) sessions open unlocked: the pid is
still recorded, and a warning says that a second writer is not refused there.
"""

from __future__ import annotations

import errno
import logging
import os
from pathlib import Path
from types import ModuleType

from hookspecs.errors import SessionError
from hookspecs.fsutil import FILE_MODE, write_all

fcntl: ModuleType | None
try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX
    fcntl = None

LOCK_FILE = "session.lock"

_HELD = frozenset({errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK})


class SessionLock:
    """The held lock of one session (``release`` is idempotent)."""

    def __init__(self, session_id: str, path: Path, fd: int) -> None:
        self.session_id = session_id
        self.path = path
        self._fd: int | None = fd

    @classmethod
    def acquire(cls, session_id: str, directory: Path, *, logger: logging.Logger) -> SessionLock:
        """Lock ``directory/session.lock`` (``directory`` must exist) or raise
        :class:`SessionError` (``SESSION_LOCKED``) naming the holder's pid."""
        path = directory / LOCK_FILE
        where = f"sessions/{session_id}/{LOCK_FILE}"
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, FILE_MODE)
        except OSError as exc:
            raise SessionError(f"session {session_id}: cannot open {where}: {exc.strerror}", code="SESSION_LOCK_FAILED") from None
        try:
            if fcntl is None:  # pragma: no cover - not POSIX
                logger.warning("session %s: this platform has no fcntl; a second writer is not refused", session_id)
            else:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except OSError as exc:
                    if exc.errno not in _HELD:
                        raise SessionError(
                            f"session {session_id}: cannot lock {where}: {exc.strerror}", code="SESSION_LOCK_FAILED"
                        ) from None
                    raise _held(session_id, _read_pid(fd)) from None
            os.ftruncate(fd, 0)
            write_all(fd, f"{os.getpid()}\n".encode("ascii"))
        except BaseException:
            os.close(fd)
            raise
        return cls(session_id, path, fd)

    @property
    def held(self) -> bool:
        return self._fd is not None

    def release(self, *, remove: bool = False) -> None:
        """Drop the lock; ``remove`` also deletes the lock file (while still
        holding it, so nobody can be locking the file being removed)."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        try:
            if remove:
                try:
                    self.path.unlink()
                except FileNotFoundError:
                    pass
            else:
                os.ftruncate(fd, 0)  # no pid of a process that no longer holds it
        except OSError:
            pass  # the lock itself goes with the descriptor
        finally:
            os.close(fd)


def _held(session_id: str, pid: int | None) -> SessionError:
    shown = f"pid {pid}" if pid is not None else "pid unknown"
    where = "another host of this process" if pid == os.getpid() else "another process"
    return SessionError(f"session {session_id} is open in {where} ({shown})", code="SESSION_LOCKED")


def _read_pid(fd: int) -> int | None:
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None

