"""JSONL persistence: ``<dsh_home>/sessions/<id>/session.jsonl``.

Line 1 is the header (``{"type": "session", ...}``); every further line is one
event ``{"type", "seq", "time", "data"[, "ignorable": true]}``. Writes append
one line and flush; a crash can only tear the last line, which load drops.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

import attrs

from hookspecs.errors import SessionFormatError
from hookspecs.fsutil import FILE_MODE, ensure_private_dir
from hookspecs.layout import SESSION_HEADER_TYPE
from hookspecs.values import SESSION_FORMAT_VERSION, SessionEvent, SessionHeader, dumps_compact
from hookspecs.values.wire import make_converter, structure

_HEADER_CONVERTER = make_converter()


@attrs.frozen(kw_only=True)
class _HeaderLine:
    type: str
    id: str
    created_at: float
    version: int
    delegation_depth: int = 0
    cwd: str | None = None
    parent_session: str | None = None
    origin: str | None = None


def header_to_json(header: SessionHeader) -> dict[str, Any]:
    out: dict[str, Any] = {
        "type": SESSION_HEADER_TYPE,
        "version": header.version,
        "id": header.id,
        "created_at": header.created_at,
        "delegation_depth": header.delegation_depth,
    }
    for key in ("cwd", "parent_session", "origin"):
        value = getattr(header, key)
        if value is not None:
            out[key] = value
    return out


def event_line(event: SessionEvent) -> bytes:
    out: dict[str, Any] = {"type": event.type, "seq": event.seq, "time": event.time, "data": event.data}
    if event.ignorable:
        out["ignorable"] = True
    return (dumps_compact(out) + "\n").encode("utf-8")


class JsonlWriter:
    """Appends lines to one session file. Not thread-safe (trio is single-threaded)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._handle: BinaryIO | None = None

    @classmethod
    def create(cls, path: Path, header: SessionHeader) -> JsonlWriter:
        ensure_private_dir(path.parent)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
        with os.fdopen(fd, "wb") as handle:
            handle.write((dumps_compact(header_to_json(header)) + "\n").encode("utf-8"))
            handle.flush()
            os.fsync(handle.fileno())
        return cls(path)

    def _open(self) -> BinaryIO:
        if self._handle is None:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND, FILE_MODE)
            self._handle = os.fdopen(fd, "ab", buffering=0)
        return self._handle

    def write(self, line: bytes) -> None:
        self._open().write(line)

    def sync(self) -> None:
        if self._handle is not None:
            os.fsync(self._handle.fileno())

    def close(self) -> None:
        if self._handle is not None:
            try:
                os.fsync(self._handle.fileno())
            finally:
                self._handle.close()
                self._handle = None


@attrs.frozen(kw_only=True)
class LoadedLog:
    header: SessionHeader
    events: list[SessionEvent]
    #: byte length of the intact prefix; anything after it was a torn last line
    intact_bytes: int
    torn_tail: bool


def read_log(path: Path, *, is_known: Callable[[str], bool], where: str | None = None) -> LoadedLog:
    """Read and validate a session file.

    Only a torn *last* line (no trailing newline, or not JSON) is tolerated and
    dropped; any other malformed line, a seq gap or an unknown non-ignorable event
    type refuses the load with :class:`SessionFormatError` naming file and line.
    """
    label = where or str(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise SessionFormatError(f"{label}: session file not found") from None
    lines = raw.split(b"\n")
    # ``raw`` ending in "\n" yields a final empty element: a clean tail.
    last = lines.pop()
    torn = bool(last)
    intact = len(raw) - len(last)
    if not lines:
        raise SessionFormatError(f"{label}: empty session file (no header line)")
    header = _parse_header(lines[0], label)
    events: list[SessionEvent] = []
    append = events.append
    decode = _DECODER.decode
    for index in range(1, len(lines)):
        line = lines[index]
        try:
            obj = decode(line.decode("utf-8"))
        except (ValueError, UnicodeDecodeError) as exc:
            if index == len(lines) - 1 and not torn:
                # a final line that is complete but garbled is also a torn write
                torn = True
                intact -= len(line) + 1
                break
            raise SessionFormatError(f"{label}:{index + 1}: not a JSON event line ({exc})") from None
        if type(obj) is not dict:
            raise SessionFormatError(f"{label}:{index + 1}: event line is not a JSON object")
        etype = obj.get("type")
        seq = obj.get("seq")
        if type(etype) is not str or seq != index - 1 or type(seq) is not int:
            raise SessionFormatError(
                f"{label}:{index + 1}: expected event seq {index - 1} with a string type, got seq {seq!r}"
            )
        ignorable = obj.get("ignorable", False) is True
        if not ignorable and not is_known(etype):
            raise SessionFormatError(
                f"{label}:{index + 1}: unknown event type {etype!r}; the plugin that writes it is not loaded"
            )
        time = obj.get("time")
        if isinstance(time, bool) or not isinstance(time, (int, float)):  # JSON numbers only
            raise SessionFormatError(f"{label}:{index + 1}: event time must be a number")
        append(SessionEvent(type=etype, seq=seq, time=time, data=obj.get("data"), ignorable=ignorable))
    return LoadedLog(header=header, events=events, intact_bytes=intact, torn_tail=torn)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


#: one decoder for every line (building one per ``json.loads`` call is costly)
_DECODER = json.JSONDecoder(parse_constant=_reject_constant)


def _parse_header(line: bytes, label: str) -> SessionHeader:
    try:
        obj = json.loads(line, parse_constant=_reject_constant)
    except ValueError as exc:
        raise SessionFormatError(f"{label}:1: header is not JSON ({exc})") from None
    parsed: _HeaderLine = structure(
        _HEADER_CONVERTER, obj, _HeaderLine, where=f"{label}:1 header", error=SessionFormatError
    )
    if parsed.type != SESSION_HEADER_TYPE:
        raise SessionFormatError(f"{label}:1: header type must be 'session'")
    if parsed.version > SESSION_FORMAT_VERSION:
        raise SessionFormatError(
            f"{label}:1: session format version {parsed.version} is newer than this host understands "
            f"({SESSION_FORMAT_VERSION}); upgrade the harness"
        )
    if parsed.origin not in (None, "subagent"):
        raise SessionFormatError(f"{label}:1: header origin must be 'subagent' when present")
    return SessionHeader(
        id=parsed.id,
        created_at=parsed.created_at,
        cwd=parsed.cwd,
        parent_session=parsed.parent_session,
        origin=parsed.origin,  # type: ignore[arg-type]
        delegation_depth=parsed.delegation_depth,
        version=parsed.version,
    )


def truncate_torn_tail(path: Path, intact_bytes: int) -> None:
    """Drop a torn last line so later appends start on a clean line."""
    with open(path, "r+b") as handle:
        handle.truncate(intact_bytes)
        handle.flush()
        os.fsync(handle.fileno())


def count_events(path: Path) -> int:
    """Number of complete event lines (cheap: counts newlines)."""
    count = 0
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            count += chunk.count(b"\n")
    return max(0, count - 1)


def read_header(path: Path) -> SessionHeader:
    with open(path, "rb") as handle:
        first = handle.readline()
    return _parse_header(first.rstrip(b"\n"), str(path))
