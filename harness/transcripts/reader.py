"""Reading a transcript file: framing, bounds, format detection, then the format's parser."""

from __future__ import annotations

import gc
import hashlib
import json
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import attrs

from hookspecs.errors import InputFileError
from hookspecs.fsutil import read_at, read_regular_bytes
from hookspecs.scrub import scrub_text

from . import claude_code, codex
from .builder import EventBuilder, loads, type_of
from .model import Format, ImportedTranscript, TranscriptError

#: a transcript larger than this is refused rather than read into memory
MAX_BYTES = 256 * 1024 * 1024
#: the bytes at each end of an imported prefix whose digests say it is unchanged
WINDOW = 64 * 1024


@attrs.frozen(kw_only=True)
class TranscriptSource:
    """A transcript file as read: its bytes and its entries (``(line, object)``).

    A whole read has ``offset`` 0. An appended read (:func:`read_appended`)
    holds only the bytes after an earlier import's end (``offset`` bytes,
    ``base_line`` lines), with the file's first :data:`WINDOW` bytes
    (``head``) and the :data:`WINDOW` bytes before ``offset`` (``before``), so
    the record of what it imported can be written without the rest."""

    path: Path
    raw: bytes
    entries: list[tuple[int, dict[str, Any]]]
    offset: int = 0
    base_line: int = 0
    head: bytes = b""
    before: bytes = b""
    #: digests already taken, by size: a Stop hashes the whole file more than once
    _digests: dict[int, str] = attrs.field(factory=dict, init=False, eq=False, repr=False)

    @property
    def lines(self) -> int:
        return self.entries[-1][0] if self.entries else self.base_line

    @property
    def size(self) -> int:
        """The file's size as read."""
        return self.offset + len(self.raw)

    def size_through(self, line: int) -> int:
        """The number of bytes up to and including line ``line`` and its newline."""
        size = self.offset
        for number, chunk in enumerate(self.raw.split(b"\n"), start=self.base_line + 1):
            if number > line:
                break
            size += len(chunk) + 1
        return min(size, self.size)

    def digest(self, size: int | None = None) -> str:
        """sha256 of the first ``size`` bytes (all of them by default); a whole read only."""
        if self.offset:
            raise ValueError("an appended read has no digest of the whole prefix")
        size = len(self.raw) if size is None else size
        if size not in self._digests:
            self._digests[size] = hashlib.sha256(self.raw[:size]).hexdigest()
        return self._digests[size]

    def windows(self, size: int) -> tuple[str, str]:
        """sha256 of the first and of the last :data:`WINDOW` bytes of the file's first ``size`` bytes."""
        if size < self.offset or max(0, size - WINDOW) < self.offset - len(self.before):
            raise ValueError(f"size {size} is outside what was read")
        first = self._span(0, min(WINDOW, size))
        last = self._span(max(0, size - WINDOW), size)
        return hashlib.sha256(first).hexdigest(), hashlib.sha256(last).hexdigest()

    def tail_window(self) -> bytes:
        """The file's last :data:`WINDOW` bytes as read."""
        return self._span(max(0, self.size - WINDOW), self.size)

    def _span(self, start: int, end: int) -> bytes:
        """The file's bytes ``[start, end)`` from what was read, slicing
        ``head``, ``before`` and ``raw``, never copying ``raw`` whole."""
        known = self.offset - len(self.before)
        if start < known:  # only the first window lies before what ``before`` holds
            return self.head[start:end]
        early = self.before[start - known : max(0, min(end, self.offset) - known)]
        return early + self.raw[max(0, start - self.offset) : max(0, end - self.offset)]


def read_source(path: Path) -> TranscriptSource:
    """Read and frame a transcript; :class:`TranscriptError` names the file and line."""
    label = scrub_text(str(path), limit=300, path_marker=path.name) if path.is_absolute() else str(path)
    raw = read_bytes(path, label)
    return TranscriptSource(path=path, raw=raw, entries=frame(raw, label))


def read_appended(path: Path, *, size: int, lines: int, head_sha256: str, tail_sha256: str) -> TranscriptSource | None:
    """The bytes of ``path`` after its first ``size`` bytes (``lines`` lines),
    when those still start and end as they did (their first and last
    :data:`WINDOW` bytes hash to ``head_sha256`` and ``tail_sha256``); else
    None, and the caller reads the whole file. Reads the two windows and what
    was appended, never the prefix between them: a Stop costs the same at any
    length. A change confined to the middle of the prefix that keeps its size
    and both windows goes unnoticed (an agent's transcript only grows).

    :class:`TranscriptError` for what :func:`read_source` refuses too."""
    label = scrub_text(str(path), limit=300, path_marker=path.name) if path.is_absolute() else str(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except (OSError, ValueError):
        return None  # the whole read says what is wrong
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size < size:
            return None
        if info.st_size - size > MAX_BYTES:
            raise TranscriptError(f"transcript {label}: more than {MAX_BYTES} bytes were appended since the last import")
        head = read_at(fd, 0, min(WINDOW, size))
        before = read_at(fd, max(0, size - WINDOW), size - max(0, size - WINDOW))
        raw = _pread_to_end(fd, size, MAX_BYTES)
    except OSError:
        return None
    finally:
        os.close(fd)
    if head is None or before is None:
        return None  # shrunk while read
    if hashlib.sha256(head).hexdigest() != head_sha256 or hashlib.sha256(before).hexdigest() != tail_sha256:
        return None
    # an earlier import that ended on a line without its newline: that line goes on here
    first = lines + 1 if size == 0 or before.endswith(b"\n") else lines
    return TranscriptSource(
        path=path,
        raw=raw,
        entries=frame(raw, label, first=first, allow_empty=True),
        offset=size,
        base_line=lines,
        head=head,
        before=before,
    )


def _pread_to_end(fd: int, offset: int, limit: int) -> bytes:
    chunks: list[bytes] = []
    total = 0
    while total <= limit:
        chunk = os.pread(fd, 1 << 20, offset + total)
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    return b"".join(chunks)


def import_transcript(
    path: Path, *, format: Format | None = None, workspace: str | Path | None = None
) -> ImportedTranscript:
    """Import a Claude Code or Codex transcript (``format`` None: detected from the first entry).

    Paths under ``workspace`` (an accepted one, :mod:`.workspace`) are written
    relative; the transcript's own recorded cwd is reported, never used.

    Raises :class:`TranscriptError` naming the file and line for an unreadable
    file, a line that is not a JSON object, or a last line cut short.
    """
    return import_source(read_source(path), format=format, workspace=workspace)


def import_source(
    source: TranscriptSource,
    *,
    format: Format | None = None,
    after_line: int = 0,
    turns_before: int = 0,
    workspace: str | Path | None = None,
    state: dict[str, Any] | None = None,
) -> ImportedTranscript:
    """The events of the lines after ``after_line`` (0: all of them).

    A later import of a grown transcript goes on from where an earlier one
    ended: from the earlier import's ``state`` (an appended read, which holds
    only the new lines), or by replaying the earlier lines without events
    (``after_line``; a record an earlier version wrote has no state). Either
    way the new turns are numbered after the ``turns_before`` turns the
    session holds now.
    """
    entries = source.entries
    if source.offset and state is None:
        raise ValueError("an appended read needs the state of the import it continues")
    resumed_from = state if source.offset else None
    chosen = _format_of_state(resumed_from) or format or detect(entries)
    parser = codex if chosen == "codex" else claude_code
    if resumed_from is not None:
        source_id, cwd = resumed_from.get("source_id"), resumed_from.get("cwd")
        after_line = source.base_line
    else:
        source_id, cwd = parser.source_of(entries)
    builder = EventBuilder(
        workspace=str(workspace) if workspace is not None else None,
        source={"kind": "model", "provider": "anthropic" if chosen == "claude-code" else "openai", "model": "unknown"},
        after_line=0 if resumed_from is not None else after_line,
    )
    if resumed_from is not None:
        builder.restore(resumed_from, turns_before=turns_before)
    resumed = after_line == 0 or resumed_from is not None
    feed = parser.feed
    with paused_gc():
        for line, entry in entries:
            if not resumed and line > after_line:
                builder.continue_after(turns_before)
                resumed = True
            builder.line, builder.replaying = line, line <= after_line and resumed_from is None
            feed(builder, line, entry)
        events = builder.finish(source.lines)
    about = {"format": chosen, "source_id": source_id, "cwd": cwd}
    turn = builder.turn_start_line()
    return ImportedTranscript(
        format=chosen,
        source_id=source_id if isinstance(source_id, str) else None,
        cwd=cwd if isinstance(cwd, str) else None,
        events=tuple(events),
        lines=source.lines,
        first_line=after_line + 1,
        skipped=dict(builder.skipped),
        unknown=dict(builder.unknown),
        unknown_lines={kind: list(lines) for kind, lines in builder.unknown_lines.items()},
        synthesised=builder.synthesised,
        state={**builder.state(), **about},
        turn_state=(turn, {**builder.state_before(turn), **about}) if turn is not None else None,
    )


def _format_of_state(state: dict[str, Any] | None) -> Format | None:
    value = state.get("format") if state is not None else None
    return "codex" if value == "codex" else "claude-code" if value == "claude-code" else None


def read_bytes(path: Path, label: str) -> bytes:
    """The transcript's bytes. A FIFO, a device or a directory is refused at once
    (opened non-blocking, judged by ``fstat`` of what was opened), and the bound
    counts bytes actually read: ``st_size`` is 0 for ``/dev/zero``."""
    try:
        return read_regular_bytes(path, limit=MAX_BYTES, what="transcript")
    except InputFileError as exc:
        # the message names the file as the other transcript errors do (its label)
        raise TranscriptError(exc.message.replace(str(path), label, 1)) from None
    except ValueError:  # a NUL in the path
        raise TranscriptError(f"transcript {label}: not a valid path") from None


def frame(raw: bytes, label: str, *, first: int = 1, allow_empty: bool = False) -> list[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` for every non-blank line (the first is line ``first``)."""
    # one decode of the whole file: invalid bytes become lone surrogates as a
    # per-line decode would make them (a newline byte never ends a UTF-8 sequence)
    lines = raw.decode("utf-8", errors="surrogateescape").split("\n")
    last = first + len(lines) - 1
    entries: list[tuple[int, dict[str, Any]]] = []
    with paused_gc():
        for number, chunk in enumerate(lines, start=first):
            if not chunk or (chunk[0] in _BLANK and not chunk.strip(_BLANK)):
                continue
            try:
                value = loads(chunk)
            except (ValueError, RecursionError) as exc:
                raise _not_json(label, number, exc, cut=number == last and not raw.endswith(b"\n")) from None
            if not isinstance(value, dict):
                raise TranscriptError(f"{label}:{number}: line {number} is not a JSON object")
            entries.append((number, value))
    if not entries and not allow_empty:
        raise TranscriptError(f"{label}: the transcript has no entries")
    return entries


#: what ``bytes.strip()`` took for blank (JSON's white space and the other ASCII ones)
_BLANK = " \t\n\r\x0b\x0c"


def _not_json(label: str, number: int, exc: Exception, *, cut: bool) -> TranscriptError:
    what = "is cut short (no newline, not complete JSON)" if cut else f"is not JSON ({_reason(exc)})"
    return TranscriptError(f"{label}:{number}: line {number} {what}")


@contextmanager
def paused_gc() -> Iterator[None]:
    """The cyclic garbage collector paused: an import makes only acyclic
    containers (parsed lines, events), and the collector's passes over them as
    they pile up cost a third of an import. Reference counting still frees
    them; the collector runs again after (and is left alone if it was off).

    Resumed, the collector would start at once with one pass over every
    container made meanwhile (they all count as new): a tenth of an import,
    spent finding no cycle. So they go to the oldest generation unvisited
    (``freeze`` then ``unfreeze``, each a list splice) unless something is
    frozen already, which ``unfreeze`` would thaw. Any young object of the
    process goes with them: a cycle among those waits for a full collection."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            if gc.get_freeze_count() == 0:
                gc.freeze()
                gc.unfreeze()
            gc.enable()


def detect(entries: list[tuple[int, dict[str, Any]]]) -> Format:
    first = entries[0][1]
    if type_of(first) in codex.LINE_TYPES and "payload" in first:
        return "codex"
    return "claude-code"


def _reason(exc: Exception) -> str:
    return exc.msg if isinstance(exc, json.JSONDecodeError) else type(exc).__name__
