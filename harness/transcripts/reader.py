"""Reading a transcript file: framing, bounds, format detection, then the format's parser."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import attrs

from hookspecs.errors import InputFileError
from hookspecs.fsutil import read_regular_bytes
from hookspecs.scrub import scrub_text

from . import claude_code, codex
from .builder import EventBuilder, type_of
from .model import Format, ImportedTranscript, TranscriptError

#: a transcript larger than this is refused rather than read into memory
MAX_BYTES = 256 * 1024 * 1024


@attrs.frozen(kw_only=True)
class TranscriptSource:
    """A transcript file as read: its bytes and its entries (``(line, object)``)."""

    path: Path
    raw: bytes
    entries: list[tuple[int, dict[str, Any]]]
    #: digests already taken, by size: a Stop hashes the whole file more than once
    _digests: dict[int, str] = attrs.field(factory=dict, init=False, eq=False, repr=False)

    @property
    def lines(self) -> int:
        return self.entries[-1][0]

    def size_through(self, line: int) -> int:
        """The number of bytes up to and including line ``line`` and its newline."""
        size = 0
        for number, chunk in enumerate(self.raw.split(b"\n"), start=1):
            if number > line:
                break
            size += len(chunk) + 1
        return min(size, len(self.raw))

    def digest(self, size: int | None = None) -> str:
        """sha256 of the first ``size`` bytes (all of them by default)."""
        size = len(self.raw) if size is None else size
        if size not in self._digests:
            self._digests[size] = hashlib.sha256(self.raw[:size]).hexdigest()
        return self._digests[size]


def read_source(path: Path) -> TranscriptSource:
    """Read and frame a transcript; :class:`TranscriptError` names the file and line."""
    label = scrub_text(str(path), limit=300, path_marker=path.name) if path.is_absolute() else str(path)
    raw = read_bytes(path, label)
    return TranscriptSource(path=path, raw=raw, entries=frame(raw, label))


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
) -> ImportedTranscript:
    """The events of the lines after ``after_line`` (0: all of them).

    A later import of a grown transcript passes the line an earlier import
    ended at and the number of turns its session holds now: the earlier lines
    are replayed without events, so the new events continue the session.
    """
    entries = source.entries
    chosen = format or detect(entries)
    parser = codex if chosen == "codex" else claude_code
    source_id, cwd = parser.source_of(entries)
    builder = EventBuilder(
        workspace=str(workspace) if workspace is not None else None,
        source={"kind": "model", "provider": "anthropic" if chosen == "claude-code" else "openai", "model": "unknown"},
        after_line=after_line,
    )
    resumed = after_line == 0
    for line, entry in entries:
        if not resumed and line > after_line:
            builder.continue_after(turns_before)
            resumed = True
        builder.line, builder.replaying = line, line <= after_line
        parser.feed(builder, line, entry)
    events = builder.finish(source.lines)
    return ImportedTranscript(
        format=chosen,
        source_id=source_id,
        cwd=cwd,
        events=tuple(events),
        lines=source.lines,
        first_line=after_line + 1,
        skipped=dict(builder.skipped),
        unknown=dict(builder.unknown),
        unknown_lines={kind: list(lines) for kind, lines in builder.unknown_lines.items()},
        synthesised=builder.synthesised,
    )


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


def frame(raw: bytes, label: str) -> list[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` for every non-blank line."""
    lines = raw.split(b"\n")
    entries: list[tuple[int, dict[str, Any]]] = []
    for number, chunk in enumerate(lines, start=1):
        if not chunk.strip():
            continue
        try:
            value = json.loads(chunk.decode("utf-8", errors="surrogateescape"))
        except (ValueError, RecursionError) as exc:
            cut = number == len(lines) and not raw.endswith(b"\n")
            what = "is cut short (no newline, not complete JSON)" if cut else f"is not JSON ({_reason(exc)})"
            raise TranscriptError(f"{label}:{number}: line {number} {what}") from None
        if not isinstance(value, dict):
            raise TranscriptError(f"{label}:{number}: line {number} is not a JSON object")
        entries.append((number, value))
    if not entries:
        raise TranscriptError(f"{label}: the transcript has no entries")
    return entries


def detect(entries: list[tuple[int, dict[str, Any]]]) -> Format:
    first = entries[0][1]
    if type_of(first) in codex.LINE_TYPES and "payload" in first:
        return "codex"
    return "claude-code"


def _reason(exc: Exception) -> str:
    return exc.msg if isinstance(exc, json.JSONDecodeError) else type(exc).__name__
