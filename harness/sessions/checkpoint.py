"""Where a resume may start reading a session log: the last point found clean.

Resuming used to read and validate the whole log and fold all of it for the
crash repair. A log only grows, and after a repair (or a close that finds
nothing to repair) it holds no open turn, step or compaction and no
unanswered tool call: the repair's fold (:func:`.repair.closing_events`) is
back in its empty start state there. So once seq N was found clean, the next
resume needs only the events from N on: it validates them, repairs from them,
and counts turns from the number recorded for N. The earlier events are
loaded (and validated as a whole load does) only when something reads them
(:class:`.events_view.LazyEvents`).

``<session folder>/checked.json`` records that point: N, the byte offset of
event N's line, the number of ``turn/start`` events before it, and the
``time`` of event N-1, whose line (just before the offset) a resume reads
back and compares, so a log rewritten since is not trusted; that event is
kept in memory with the ones after it, so the log's last event is always
there. A missing, unreadable or stale record only costs speed: the log is
then read whole, as before.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import attrs

from hookspecs.errors import DshError, SessionFormatError
from hookspecs.fsutil import read_at, read_regular_bytes, write_atomic
from hookspecs.values import EventTypes, SessionEvent, SessionHeader

from .jsonl import check_header_id, decode_events, event_line, parse_header
from .log import STATE_EVENT_TYPES, SessionLog
from .logfile import open_log_fd
from .repair import closing_events
from .shapes import check_events
from .tail import CHUNK, MAX_BACK

CHECKPOINT_FILE = "checked.json"
#: a state event whose line is longer is recorded as unknown (the record stays small)
MAX_STATE_LINE = 16 * 1024
UNKNOWN = "unknown"
#: the fields, and each state line escaped as a JSON string (at most twice as long)
_MAX_RECORD = 4096 + len(STATE_EVENT_TYPES) * (2 * MAX_STATE_LINE + 256)
#: how long a header line may be before the resume leaves the log to the whole load
_MAX_HEADER = 1 << 20
_HEADER_STEP = 4096


@attrs.frozen(kw_only=True)
class Checkpoint:
    #: the first event not covered: the events before it were found clean
    seq: int
    #: the byte offset of that event's line
    offset: int
    #: the number of ``turn/start`` events before ``seq``
    turns: int
    #: the ``time`` of event ``seq - 1``
    time: float
    #: the newest event of each state type before ``seq`` (None: there is none); a type missing is unknown
    latest: Mapping[str, SessionEvent | None] = attrs.field(factory=dict)

    def to_json(self) -> str:
        latest = {etype: _state_entry(self.latest, etype) for etype in sorted(STATE_EVENT_TYPES)}
        return json.dumps(
            {"seq": self.seq, "offset": self.offset, "turns": self.turns, "time": self.time, "latest": latest},
            ensure_ascii=False,
        )


def _state_entry(latest: Mapping[str, SessionEvent | None], etype: str) -> Any:
    if etype not in latest:
        return UNKNOWN
    event = latest[etype]
    if event is None:
        return None
    try:
        line = event_line(event)
    except ValueError:  # a lone surrogate (or a non-finite number) read from a hand-written log: left to the log
        return UNKNOWN
    if len(line) > MAX_STATE_LINE:
        return UNKNOWN
    return {"seq": event.seq, "line": line.decode("utf-8").rstrip("\n")}


@attrs.frozen(kw_only=True)
class ResumedTail:
    """What a resume read: the header and the events from ``checkpoint.seq - 1`` on."""

    header: SessionHeader
    checkpoint: Checkpoint
    events: list[SessionEvent]
    #: byte length of the intact log; anything after it was a torn last line
    intact_bytes: int
    torn_tail: bool


def read_tail_from_checkpoint(path: Path, where: str, session_id: str, *, is_known: Any) -> ResumedTail | None:
    """The header and the events after the log's checkpoint, checked as a whole
    load checks them (framing, known types, payload shapes; the header's id);
    a :class:`~hookspecs.errors.SessionFormatError` for what breaks a rule. None
    when the log has no checkpoint to trust (the caller loads it whole)."""
    fd = open_log_fd(path, where)
    try:
        size = os.fstat(fd).st_size
        found = _read_checkpoint(path.parent, fd, size, where, is_known)
        if found is None:
            return None
        checkpoint, last_line = found
        header_line = _first_line(fd, checkpoint.offset)
        if header_line is None:
            return None
        header = parse_header(header_line, where)
        check_header_id(header, session_id, where)
        # the checkpoint's own line too: the events read start with the last one it covers
        raw = last_line + b"\n" + (read_at(fd, checkpoint.offset, size - checkpoint.offset) or b"")
    finally:
        os.close(fd)
    lines = raw.split(b"\n")
    last = lines.pop()  # "" when the log ends with a whole line
    torn = bool(last)
    events, garbled = decode_events(lines, 0, first_seq=checkpoint.seq - 1, label=where, is_known=is_known, torn=torn)
    intact = size - len(last)
    if garbled is not None:
        torn, intact = True, intact - garbled - 1
    check_events(events, where)
    covered = events[0] if events else None  # the record's own line, kept in memory
    for recorded in checkpoint.latest.values():
        if recorded is not None and recorded.seq == checkpoint.seq - 1 and recorded != covered:
            return None  # the record names another event there: not trusted
    return ResumedTail(header=header, checkpoint=checkpoint, events=events, intact_bytes=intact, torn_tail=torn)


def _read_checkpoint(
    folder: Path, fd: int, size: int, where: str, is_known: Callable[[str], bool]
) -> tuple[Checkpoint, bytes] | None:
    try:
        record = json.loads(read_regular_bytes(folder / CHECKPOINT_FILE, limit=_MAX_RECORD, follow_symlinks=False))
    except (DshError, ValueError, RecursionError):
        return None
    if not isinstance(record, dict):
        return None
    seq, offset, turns, time = (record.get(key) for key in ("seq", "offset", "turns", "time"))
    if not (type(seq) is int and type(offset) is int and type(turns) is int and seq >= 1 and turns >= 0):
        return None
    if isinstance(time, bool) or not isinstance(time, (int, float)) or not 0 < offset <= size:
        return None
    line = _line_before(fd, offset)
    try:
        event = json.loads(line) if line is not None else None
    except (ValueError, RecursionError):
        return None
    if not isinstance(event, dict) or event.get("seq") != seq - 1 or event.get("time") != time:
        return None  # not the log the record was written for
    assert line is not None
    latest = _recorded_state(record, seq, where, is_known)
    if latest is None:
        return None
    return Checkpoint(seq=seq, offset=offset, turns=turns, time=time, latest=latest), line


def _recorded_state(
    record: dict[str, Any], below: int, where: str, is_known: Callable[[str], bool]
) -> dict[str, SessionEvent | None] | None:
    """The state events the record holds, each line decoded and checked as a log
    line; None when the field is malformed (the record is not trusted)."""
    if "latest" not in record:
        return {}  # written before the field existed: all unknown
    raw = record["latest"]
    if type(raw) is not dict or not raw.keys() <= STATE_EVENT_TYPES:
        return None
    out: dict[str, SessionEvent | None] = {}
    for etype, entry in raw.items():
        if entry is None:
            out[etype] = None
            continue
        if entry == UNKNOWN:
            continue
        if type(entry) is not dict or entry.keys() != {"seq", "line"}:
            return None
        seq, line = entry["seq"], entry["line"]
        if type(seq) is not int or not 0 <= seq < below or type(line) is not str or len(line) > MAX_STATE_LINE:
            return None
        try:
            events, _ = decode_events(
                [line.encode("utf-8")], 0, first_seq=seq, label=where, is_known=is_known, torn=True
            )
            check_events(events, where)
        except (SessionFormatError, UnicodeEncodeError):
            return None
        if events[0].type != etype:
            return None
        out[etype] = events[0]
    return out


def _first_line(fd: int, end: int) -> bytes | None:
    """The header line (a few hundred bytes), read in small steps up to ``end``."""
    found = b""
    while len(found) < min(end, _MAX_HEADER):
        chunk = os.pread(fd, min(_HEADER_STEP, end - len(found)), len(found))
        if not chunk:
            return None
        found += chunk
        cut = found.find(b"\n")
        if cut >= 0:
            return found[:cut]
    return None


def _line_before(fd: int, end: int) -> bytes | None:
    """The whole line that ends at byte ``end`` (its newline excluded), read backwards."""
    if os.pread(fd, 1, end - 1) != b"\n":
        return None
    position, found, step = end - 1, b"", _HEADER_STEP
    while position > 0 and end - position < MAX_BACK:
        start, step = max(0, position - step), min(step * 2, CHUNK)  # most lines are short
        found = os.pread(fd, position - start, start) + found
        position = start
        cut = found.rfind(b"\n")
        if cut >= 0:
            return found[cut + 1 :]
    return found if position == 0 else None


def write_checkpoint(folder: Path, checkpoint: Checkpoint) -> bool:
    """Record ``checkpoint`` (atomically, 0600); False when it could not be
    written: the next resume then reads more, nothing else changes."""
    try:
        write_atomic(folder / CHECKPOINT_FILE, checkpoint.to_json())
    except OSError:
        return False
    return True


def mark_clean(log: SessionLog, path: Path, where: str, *, repaired: bool = False) -> None:
    """Record the log's end as its clean point when nothing there needs a
    repair (``repaired``: a repair just made it so). Called at resume and close."""
    if log.clean is None or log.closed or log.write_failure is not None or log.seq == 0:
        return
    since, turns = log.clean
    latest = log.known_state()
    if log.seq == since and latest.keys() <= log.recorded_state:
        return  # nothing new to record
    events = log.events_since(since)
    if not repaired and closing_events(events):
        return  # an open turn or compaction: the next resume repairs it from the last clean point
    turns += sum(1 for event in events if event.type == EventTypes.TURN_START)
    # nothing appended since the record (it learnt state only): the record's own last event
    last = events[-1] if events else log.events_since(log.seq - 1)[0]
    try:
        fd = open_log_fd(path, where)
        try:
            size = os.fstat(fd).st_size  # whole lines only: the writer has not failed
        finally:
            os.close(fd)
    except (OSError, DshError):
        return
    mark = Checkpoint(seq=log.seq, offset=size, turns=turns, time=last.time, latest=latest)
    if write_checkpoint(path.parent, mark):
        log.clean = (mark.seq, mark.turns)
        log.recorded_state = frozenset(latest)
