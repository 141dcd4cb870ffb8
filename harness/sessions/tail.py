"""What the end of a session log says, read without loading the log.

An importer that appends a foreign transcript's new lines to its imported
session needs two numbers: the next event's seq and the number of the last
turn. Both are on the log's last lines, so they are read backwards from the
end, in chunks, up to the last ``turn/start`` line: the cost is the length of
the last turn, never of the session. A log whose last line is torn (a crash
mid-write) or whose end does not parse is left to the full open, which
repairs or reports it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import attrs

from hookspecs.layout import SESSION_HEADER_TYPE
from hookspecs.values import EventTypes

from .logfile import open_log_fd

#: bytes read per step backwards
CHUNK = 64 * 1024
#: how far back the last turn's start is looked for before the caller loads the log
MAX_BACK = 16 * 1024 * 1024


@attrs.frozen(kw_only=True)
class LogTail:
    #: the seq the next event gets
    next_seq: int
    #: the number of the last ``turn/start`` (0: the log holds none)
    turns: int


def read_tail(path: Path, label: str) -> LogTail | None:
    """The log's :class:`LogTail`, or None when its end cannot be trusted
    without a full read (torn, not JSON, out of order, the last turn too far back)."""
    fd = open_log_fd(path, label)
    try:
        end = os.fstat(fd).st_size
        if end == 0 or os.pread(fd, 1, end - 1) != b"\n":
            return None
        position, carry = end, b""
        next_seq: int | None = None
        while position > 0 and end - position < MAX_BACK:
            start = max(0, position - CHUNK)
            chunk = os.pread(fd, position - start, start) + carry
            position = start
            lines = chunk.split(b"\n")
            carry = lines[0] if position > 0 else b""  # maybe a partial line: finished next step
            for raw in reversed(lines[1:] if position > 0 else lines):
                if not raw.strip():
                    continue
                found = _line(raw)
                if found is None:
                    return None
                kind, seq, turn = found
                if kind == SESSION_HEADER_TYPE:  # the header: no turn before this point
                    return LogTail(next_seq=next_seq if next_seq is not None else 0, turns=0)
                if next_seq is None:
                    next_seq = seq + 1
                if kind == EventTypes.TURN_START:
                    return LogTail(next_seq=next_seq, turns=turn) if turn is not None else None
        return None
    finally:
        os.close(fd)


def _line(raw: bytes) -> tuple[str, int, int | None] | None:
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    if not isinstance(value, dict) or not isinstance(value.get("type"), str):
        return None
    if value["type"] == SESSION_HEADER_TYPE:
        return SESSION_HEADER_TYPE, -1, None
    seq, data = value.get("seq"), value.get("data")
    if type(seq) is not int or seq < 0:
        return None
    turn = data.get("turn") if isinstance(data, dict) else None
    return value["type"], seq, turn if type(turn) is int and turn >= 0 else None
