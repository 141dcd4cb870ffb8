"""JSONL persistence: ``<dsh_home>/sessions/<id>/session.jsonl``.

Line 1 is the header (``{"type": "session", ...}``); every further line is one
event ``{"type", "seq", "time", "data"[, "ignorable": true]}``. An append writes
its whole line (looping over short writes); a write that fails truncates the
file back to its last whole line. A crash can only tear the last line, which
load drops.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

import attrs
import cattrs

from hookspecs.errors import SessionError, SessionFormatError
from hookspecs.fsutil import FILE_MODE, write_all
from hookspecs.layout import SESSION_FILE, SESSION_HEADER_TYPE, SESSIONS_DIR
from hookspecs.values import (
    SESSION_FORMAT_VERSION,
    SessionEvent,
    SessionHeader,
    decode_strict,
    dumps_compact,
    loads_strict,
)
from hookspecs.values.wire import make_converter, structure

from .logfile import open_log_fd, read_log_bytes

#: the code of every failed write, fsync or truncation of a session file
WRITE_FAILED = "SESSION_WRITE_FAILED"


@functools.cache
def _header_converter() -> cattrs.Converter:
    # made when a header is first read (a resumed or listed session), not by every
    # process that writes a new one: a converter costs about a millisecond to make
    return make_converter()


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
    """The event's line; raises ``UnicodeEncodeError`` for text holding lone
    surrogates (see :func:`escape_undecodable`)."""
    out: dict[str, Any] = {"type": event.type, "seq": event.seq, "time": event.time, "data": event.data}
    if event.ignorable:
        out["ignorable"] = True
    return (dumps_compact(out) + "\n").encode("utf-8")


_SURROGATE = re.compile("[\ud800-\udfff]")


def _escape_char(match: re.Match[str]) -> str:
    code = ord(match.group())
    # U+DC80..U+DCFF is how Python decodes an undecodable byte of a file name
    # (``surrogateescape``): show the byte; any other lone surrogate by its code
    return f"\\x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"\\u{code:04x}"


def escape_undecodable(value: Any) -> Any:
    """JSON data with every lone surrogate in its strings (keys too) spelled as
    text: an undecodable file-name byte as ``\\xNN`` (``caf\\xe9.txt``), any
    other surrogate as ``\\uNNNN``. Strings without one are returned as they are."""
    if isinstance(value, str):
        return _SURROGATE.sub(_escape_char, value)
    if isinstance(value, dict):
        return {escape_undecodable(k): escape_undecodable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [escape_undecodable(item) for item in value]
    return value


class JsonlWriter:
    """Appends lines to one session file. Not thread-safe (trio is single-threaded).

    The first failed write, fsync or truncation fails the writer: the file is
    cut back to its last whole line (when the OS lets it) and every later call
    raises the same :class:`SessionError` (``SESSION_WRITE_FAILED``), so nothing
    is ever appended after a line that may be torn.
    """

    def __init__(self, path: Path, *, session_id: str) -> None:
        self.path = path
        self.session_id = session_id
        self.where = f"{SESSIONS_DIR}/{session_id}/{SESSION_FILE}"
        self._fd: int | None = None
        self._size = 0  # bytes of whole lines: where a failed append is truncated back to
        self._failure: SessionError | None = None

    @classmethod
    def create(cls, path: Path, header: SessionHeader) -> JsonlWriter:
        """Write and fsync a new file holding only the header (never overwrites)."""
        writer = cls(path, session_id=header.id)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
        except FileExistsError:
            raise SessionError(f"session {header.id} already exists", code="SESSION_EXISTS") from None
        except OSError as exc:
            raise writer._error("create", exc) from None
        try:
            write_all(fd, (dumps_compact(header_to_json(header)) + "\n").encode("utf-8"))
            os.fsync(fd)
        except OSError as exc:
            os.close(fd)
            path.unlink(missing_ok=True)
            raise writer._error("create", exc) from None
        os.close(fd)
        return writer

    @property
    def failure(self) -> SessionError | None:
        return self._failure

    def _error(self, action: str, exc: OSError) -> SessionError:
        reason = exc.strerror or str(exc) or type(exc).__name__
        return SessionError(f"session {self.session_id}: cannot {action} {self.where}: {reason}", code=WRITE_FAILED)

    def _fail(self, action: str, exc: OSError) -> SessionError:
        self._failure = self._error(action, exc)
        return self._failure

    def _open(self) -> int:
        if self._failure is not None:
            raise SessionError(self._failure.message, code=WRITE_FAILED)
        if self._fd is None:
            try:
                # never through a symlink put in place of the log or its folder
                fd = open_log_fd(self.path, self.where, os.O_WRONLY | os.O_APPEND)
            except SessionFormatError as exc:
                self._failure = SessionError(f"session {self.session_id}: cannot append: {exc.message}", code=WRITE_FAILED)
                raise self._failure from None
            except OSError as exc:
                raise self._fail("append to", exc) from None
            self._size = os.fstat(fd).st_size
            self._fd = fd
        return self._fd

    def write(self, line: bytes) -> None:
        """Append one whole line, or raise with the file cut back to its last whole line."""
        fd = self._open()
        try:
            write_all(fd, line)
        except OSError as exc:
            error = self._fail("append to", exc)
            try:
                os.ftruncate(fd, self._size)
            except OSError:
                pass  # the torn tail has no newline: the loader drops it
            raise error from None
        self._size += len(line)

    def sync(self) -> None:
        if self._fd is not None and self._failure is None:
            try:
                os.fsync(self._fd)
            except OSError as exc:
                raise self._fail("sync", exc) from None

    def close(self) -> None:
        """fsync and close; after a failure (already reported) it only closes."""
        fd = self._fd
        if fd is None:
            return
        try:
            self.sync()
        finally:
            self._fd = None
            os.close(fd)


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
        raw = read_log_bytes(path, label)
    except FileNotFoundError:
        raise SessionFormatError(f"{label}: session file not found") from None
    lines = raw.split(b"\n")
    # ``raw`` ending in "\n" yields a final empty element: a clean tail.
    last = lines.pop()
    torn = bool(last)
    intact = len(raw) - len(last)
    if not lines:
        raise SessionFormatError(f"{label}: empty session file (no header line)")
    header = parse_header(lines[0], label)
    events, garbled = decode_events(lines, 1, first_seq=0, label=label, is_known=is_known, torn=torn)
    if garbled is not None:
        # a final line that is complete but garbled is also a torn write
        torn = True
        intact -= garbled + 1
    return LoadedLog(header=header, events=events, intact_bytes=intact, torn_tail=torn)


def _too_deep(label: str) -> str:
    """The JSON decoder recurses per nesting level: a line past its limit is a
    format error of the file, wherever the file is read from."""
    return f"{label}: a line is nested too deeply to load"


def decode_events(
    lines: list[bytes], start: int, *, first_seq: int, label: str, is_known: Callable[[str], bool], torn: bool
) -> tuple[list[SessionEvent], int | None]:
    """The events of ``lines[start:]`` (whole lines, the first one event
    ``first_seq``), each framing rule checked as :func:`read_log` states it, and
    the byte length of a final line that is complete but not JSON (None: there
    is none; it is dropped as a torn write when the tail is not ``torn``
    already). Errors name the file line: event ``seq`` sits on line ``seq + 2``."""
    events: list[SessionEvent] = []
    append = events.append
    decode = decode_strict
    last = len(lines) - 1
    for index in range(start, len(lines)):
        line = lines[index]
        expected = first_seq + index - start
        number = expected + 2
        try:
            obj = decode(line.decode("utf-8"))
        except (ValueError, UnicodeDecodeError) as exc:
            if index == last and not torn:
                return events, len(line)
            raise SessionFormatError(f"{label}:{number}: not a JSON event line ({exc})") from None
        except RecursionError:
            raise SessionFormatError(_too_deep(label)) from None
        if type(obj) is not dict:
            raise SessionFormatError(f"{label}:{number}: event line is not a JSON object")
        etype = obj.get("type")
        seq = obj.get("seq")
        if type(etype) is not str or seq != expected or type(seq) is not int:
            raise SessionFormatError(f"{label}:{number}: expected event seq {expected} with a string type, got seq {seq!r}")
        ignorable = obj.get("ignorable", False) is True
        if not ignorable and not is_known(etype):
            raise SessionFormatError(
                f"{label}:{number}: unknown event type {etype!r}; the plugin that writes it is not loaded"
            )
        time = obj.get("time")
        if isinstance(time, bool) or not isinstance(time, (int, float)):  # JSON numbers only
            raise SessionFormatError(f"{label}:{number}: event time must be a number")
        append(SessionEvent(type=etype, seq=seq, time=time, data=obj.get("data"), ignorable=ignorable))
    return events, None


def parse_header(line: bytes, label: str) -> SessionHeader:
    try:
        obj = loads_strict(line)
    except ValueError as exc:
        raise SessionFormatError(f"{label}:1: header is not JSON ({exc})") from None
    except RecursionError:
        raise SessionFormatError(_too_deep(label)) from None
    parsed: _HeaderLine = structure(
        _header_converter(), obj, _HeaderLine, where=f"{label}:1 header", error=SessionFormatError
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
    try:
        fd = os.open(path, os.O_RDWR | os.O_NOFOLLOW)
        try:
            os.ftruncate(fd, intact_bytes)
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError as exc:
        raise SessionError(f"{path}: cannot drop the torn last line: {exc.strerror or exc}", code=WRITE_FAILED) from None


def count_events(handle: BinaryIO) -> int:
    """Number of complete event lines after the header (cheap: counts newlines
    from the start of the open log ``handle``)."""
    handle.seek(0)
    count = 0
    while chunk := handle.read(1 << 20):
        count += chunk.count(b"\n")
    return max(0, count - 1)


def read_header(handle: BinaryIO, label: str) -> SessionHeader:
    """The header line of the open log ``handle``."""
    handle.seek(0)
    return parse_header(handle.readline().rstrip(b"\n"), label)


def check_header_id(header: SessionHeader, session_id: str, label: str) -> None:
    """A log belongs to the folder it sits in: a header naming another session
    (a copied or moved folder) would make two folders one session."""
    if header.id != session_id:
        raise SessionFormatError(f"{label}:1: header id {header.id!r} differs from its folder {session_id!r}")
