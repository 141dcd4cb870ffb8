"""Bytes read per file, counted at the system call: how tests pin "reads no
more than" without timing anything."""

from __future__ import annotations

import os
from collections import Counter
from typing import Any

import pytest


class Reads:
    """Bytes read per path (``os.read``/``os.pread``, and reads of a file object
    made with ``os.fdopen``, which read below ``os``). A file opened by absolute
    or relative path is counted under its absolute path; one opened relative to
    a directory descriptor (the session log, ``O_NOFOLLOW``) under its bare name."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.by_path: Counter[str] = Counter()
        self._fds: dict[int, str] = {}
        real_open, real_read, real_pread = os.open, os.read, os.pread

        def opened(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
            fd = real_open(path, flags, *args, **kwargs)
            self._fds[fd] = os.fspath(path) if kwargs.get("dir_fd") is not None else os.path.abspath(path)
            return fd

        def read(fd: int, n: int) -> bytes:
            data = real_read(fd, n)
            self.by_path[self._fds.get(fd, "?")] += len(data)
            return data

        def pread(fd: int, n: int, offset: int) -> bytes:
            data = real_pread(fd, n, offset)
            self.by_path[self._fds.get(fd, "?")] += len(data)
            return data

        real_fdopen = os.fdopen

        def fdopen(fd: int, *args: Any, **kwargs: Any) -> Any:
            name = self._fds.get(fd, "?")
            return _Counted(real_fdopen(fd, *args, **kwargs), lambda n: self.by_path.update({name: n}))

        monkeypatch.setattr(os, "open", opened)
        monkeypatch.setattr(os, "fdopen", fdopen)
        monkeypatch.setattr(os, "read", read)
        monkeypatch.setattr(os, "pread", pread)


class _Counted:
    """A file object whose reads are counted (``count(bytes)``)."""

    def __init__(self, file: Any, count: Any) -> None:
        self._file, self._count = file, count

    def read(self, *args: Any) -> Any:
        data = self._file.read(*args)
        self._count(len(data))
        return data

    def readline(self, *args: Any) -> Any:
        data = self._file.readline(*args)
        self._count(len(data))
        return data

    def __iter__(self) -> Any:
        for line in self._file:
            self._count(len(line))
            yield line

    def __getattr__(self, name: str) -> Any:
        return getattr(self._file, name)

    def __enter__(self) -> _Counted:
        return self

    def __exit__(self, *exc: Any) -> None:
        self._file.close()
