"""Reading a transcript file: framing, bounds, format detection, then the format's parser."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hookspecs.scrub import scrub_text

from . import claude_code, codex
from .builder import EventBuilder, type_of
from .model import Format, ImportedTranscript, TranscriptError

#: a transcript larger than this is refused rather than read into memory
MAX_BYTES = 256 * 1024 * 1024


def import_transcript(path: Path, *, format: Format | None = None) -> ImportedTranscript:
    """Import a Claude Code or Codex transcript (``format`` None: detected from the first entry).

    Raises :class:`TranscriptError` naming the file and line for an unreadable
    file, a line that is not a JSON object, or a last line cut short.
    """
    label = scrub_text(str(path), limit=300, path_marker=path.name) if path.is_absolute() else str(path)
    entries = read_entries(path, label)
    chosen = format or detect(entries)
    parser = codex if chosen == "codex" else claude_code
    source_id, cwd = parser.source_of(entries)
    builder = EventBuilder(
        cwd=cwd,
        source={"kind": "model", "provider": "anthropic" if chosen == "claude-code" else "openai", "model": "unknown"},
    )
    for line, entry in entries:
        parser.feed(builder, line, entry)
    last = entries[-1][0] if entries else 1
    events = builder.finish(last)
    return ImportedTranscript(
        format=chosen,
        source_id=source_id,
        cwd=cwd,
        events=tuple(events),
        lines=last,
        skipped=dict(builder.skipped),
        unknown=dict(builder.unknown),
        synthesised=builder.synthesised,
    )


def read_entries(path: Path, label: str) -> list[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` for every non-blank line."""
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise TranscriptError(f"{label}: {size} bytes is more than the {MAX_BYTES} a transcript may have")
        raw = path.read_bytes()
    except OSError as exc:
        raise TranscriptError(f"{label}: cannot read the transcript: {exc.strerror or exc}") from None
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
