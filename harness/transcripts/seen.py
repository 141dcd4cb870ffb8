"""What a Stop remembers of the transcript it saw, checked without reading it.

A Stop on a transcript that has not changed since the last one must cost the
same for 100 lines as for 20,000. The hook therefore keeps the
size it saw and the sha256 of the last :data:`WINDOW` bytes up to that size,
and a later Stop compares them by reading at most that window at the end of
the file: no full read, no parse, no importer loaded.

A transcript rewritten in place to the same size with the same last window
passes for unchanged; that Stop is answered ``{}``, and the next one that
finds the file grown goes through the import, whose record keeps the digests
of the imported bytes' first and last windows (:mod:`.record`) and so still
starts a new imported session for a transcript rewritten there.
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from hookspecs.fsutil import read_at

if TYPE_CHECKING:
    from .reader import TranscriptSource

#: the bytes at the end of the seen transcript whose digest is compared
WINDOW = 64 * 1024


class Seen(NamedTuple):
    size: int
    #: sha256 of the last ``min(size, WINDOW)`` bytes
    tail_sha256: str

    @classmethod
    def of_bytes(cls, raw: bytes) -> Seen:
        return cls(size=len(raw), tail_sha256=hashlib.sha256(raw[-WINDOW:] if raw else b"").hexdigest())

    @classmethod
    def of_source(cls, source: TranscriptSource) -> Seen:
        """What a Stop saw of the transcript it read (whole, or what was appended)."""
        return cls(size=source.size, tail_sha256=hashlib.sha256(source.tail_window()).hexdigest())

    @classmethod
    def of_file(cls, path: Path) -> Seen:
        return cls.of_bytes(Path(path).read_bytes())

    @classmethod
    def of_path(cls, path: Path, *, size: int | None = None) -> Seen | None:
        """What a Stop sees of ``path`` now, reading only its last window; None
        for anything but a readable regular file (of ``size`` bytes, when given:
        then a file of another size is not read at all)."""
        try:
            # non-blocking: a FIFO without a writer must not hang the open
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        except (OSError, ValueError):
            return None
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode) or (size is not None and info.st_size != size):
                return None
            start = max(0, info.st_size - WINDOW)
            tail = read_at(fd, start, info.st_size - start)
        except OSError:
            return None
        finally:
            os.close(fd)
        return None if tail is None else cls(size=info.st_size, tail_sha256=hashlib.sha256(tail).hexdigest())

    def to_state(self) -> dict[str, Any]:
        return {"seen_size": self.size, "seen_tail_sha256": self.tail_sha256}

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> Seen | None:
        """What the state file says was seen; None for nothing, a damaged entry
        or a state an earlier version wrote (the Stop then imports as before)."""
        size, digest = state.get("seen_size"), state.get("seen_tail_sha256")
        if type(size) is not int or size < 0 or not isinstance(digest, str):
            return None
        return cls(size=size, tail_sha256=digest)


def unchanged(path: Path, seen: Seen | None) -> bool:
    """True when ``path`` is a regular file of exactly ``seen.size`` bytes ending
    in the same window; reads at most :data:`WINDOW` bytes. Anything else
    (another size, a special file, an error) is "changed": the import that
    follows reads the file properly and reports what is wrong with it."""
    return seen is not None and Seen.of_path(path, size=seen.size) == seen

