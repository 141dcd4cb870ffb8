"""Tolerant reading of JSON Lines files: lines with their numbers, and the
objects that parse (damaged lines are counted, never fatal)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

from hookspecs.values import loads_strict

from ..definitions.files import JOURNAL_LIMIT, read_home_file

NUL: Final = b"\0"


def split_lines(data: bytes) -> Iterator[tuple[int, bytes, bool]]:
    """``(lineno, line without newline, terminated)``; the last line is
    unterminated when the data does not end with a newline."""
    if not data:
        return
    parts = data.split(b"\n")
    last = parts.pop()
    for index, part in enumerate(parts, start=1):
        yield index, part, True
    if last:
        yield len(parts) + 1, last, False


def parse_line(raw: bytes) -> Any:
    """One JSON value; raises ValueError (incl. NaN/Infinity, bad UTF-8)."""
    return loads_strict(raw.decode("utf-8"))


def read_objects(path: Path) -> tuple[list[tuple[int, dict[str, Any]]], int]:
    """The JSON object lines of ``path`` (1-based line numbers) and how many
    lines were skipped as damaged. A missing file reads as empty."""
    try:
        # a FIFO or /dev/zero in place of a journal is refused (OSError naming it), not read forever
        data = read_home_file(path, limit=JOURNAL_LIMIT)
    except FileNotFoundError:
        return [], 0
    records: list[tuple[int, dict[str, Any]]] = []
    skipped = 0
    for lineno, raw, _terminated in split_lines(data):
        if not raw.strip():
            continue
        try:
            value = parse_line(raw) if NUL not in raw else None
        except ValueError:
            value = None
        if isinstance(value, dict):
            records.append((lineno, value))
        else:
            skipped += 1
    return records, skipped
