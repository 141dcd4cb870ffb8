"""The imported session of a transcript: where it is, and appending to it.

The session is an ordinary root session: the reviewer reads it like any
other, and ``harness sessions show`` / ``harness shadow trace`` work on it.
Its header names no ``cwd``: the directory the reviewer's file tools are
confined to is chosen by the person at every review (:mod:`.workspace`) and
given to the host, never taken from the transcript nor kept with the session.
A review with no accepted workspace runs its host in an empty private
directory, with the file tools withdrawn.

One transcript keeps one imported session (:mod:`.record`): the first import
creates it, later ones append the lines that are new since.
"""

from __future__ import annotations

import json
import re
import secrets
import shutil
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import attrs

from harness.sessions.store import SessionStore
from hookspecs.fsutil import ensure_private_dir
from hookspecs.layout import SESSION_FILE, SESSIONS_DIR
from hookspecs.protocols import Session
from hookspecs.values import EventTypes, SessionHeader

from ..sessions.history import HISTORY_TYPES
from .model import Format, ImportedEvent, ImportedTranscript
from .reader import TranscriptSource, import_source
from .record import ImportRecord, mismatch
from .workspace import NO_WORKSPACE, Workspace

#: under the DSH home: the workspace of imported sessions whose directory is not here
EMPTY_WORKSPACE = "imports/empty-workspace"
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


@attrs.frozen(kw_only=True)
class Continuation:
    """Where this import goes: an existing session after ``after_line``, or
    (``session_id`` None) a new one; ``restarted`` says why a recorded session
    is not continued."""

    session_id: str | None
    after_line: int = 0
    restarted: str | None = None


@attrs.frozen(kw_only=True)
class Imported:
    """What one import wrote: the session, the events of this import and the record to keep."""

    session_id: str
    #: the review host's cwd (:func:`host_cwd`)
    workspace: Path
    transcript: ImportedTranscript
    record: ImportRecord
    created: bool
    restarted: str | None = None
    #: the session's seq before this import (events of this call start here)
    base_seq: int = 0
    #: the import's last turn, held back to be appended where the plugin sees it
    held: tuple[ImportedEvent, ...] = ()


#: why a session an earlier version wrote is not continued: its header names the
#: transcript's cwd, which would confine the reviewer to where the transcript said
LEGACY_CWD = "its imported session {} names the transcript's working directory (written by an earlier version)"


def host_cwd(workspace: Workspace, home: Path) -> Path:
    """The review host's cwd: the accepted workspace, else an empty private directory."""
    return workspace.path if workspace.path is not None else ensure_private_dir(home / EMPTY_WORKSPACE)


def new_session_id(transcript: ImportedTranscript) -> str:
    """``<format>-<source id>-<stamp>-<random>``."""
    source = _UNSAFE.sub("-", transcript.source_id or "transcript").strip("-.")[:60] or "transcript"
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    return f"{transcript.format}-{source}-{stamp}-{secrets.token_hex(3)}"


def session_file(home: Path, session_id: str) -> Path:
    return home / SESSIONS_DIR / session_id / SESSION_FILE


def continuation(record: ImportRecord | None, source: TranscriptSource, home: Path) -> Continuation:
    if record is None:
        return Continuation(session_id=None)
    why = mismatch(record, source)
    if why is None and not session_file(home, record.session_id).is_file():
        why = f"its imported session {record.session_id} is gone"
    if why is None and _header_cwd(home, record.session_id):
        why = LEGACY_CWD.format(record.session_id)
    if why is not None:
        return Continuation(session_id=None, restarted=why)
    return Continuation(session_id=record.session_id, after_line=record.lines)


def _header_cwd(home: Path, session_id: str) -> str | None:
    """The ``cwd`` a session's header names (sessions this version writes name none)."""
    try:
        with session_file(home, session_id).open("rb") as handle:
            first = handle.readline(1 << 20)
        header = json.loads(first)
    except (OSError, ValueError, RecursionError):
        return None  # opening it will say what is wrong
    cwd = header.get("cwd") if isinstance(header, dict) else None
    return cwd if isinstance(cwd, str) and cwd else None


def import_into(
    events: Any, source: TranscriptSource, *, format: Format | None, after_line: int, workspace: Workspace
) -> ImportedTranscript:
    """The events of the lines after ``after_line``, numbered after the turns ``events`` hold."""
    turns = sum(1 for event in events if event.type == EventTypes.TURN_START)
    return import_source(source, format=format, after_line=after_line, turns_before=turns, workspace=workspace.path)


def append_imported(log: Session, events: Iterable[ImportedEvent]) -> None:
    """Append imported events; a compaction summary shadows every history event
    the session holds before it (the relays and notes of earlier reviews too)."""
    events = list(events)
    compacts = any(event.type == EventTypes.COMPACTION_SUMMARY for event in events)
    # only a compaction needs the history so far (a log opened to append has none loaded)
    history = [event.seq for event in log.events if event.type in HISTORY_TYPES] if compacts else []
    for event in events:
        data = event.data
        if event.type == EventTypes.COMPACTION_SUMMARY:
            data = {**data, "shadowed_seqs": list(history)}
        appended = log.append(event.type, data)
        if appended.type in HISTORY_TYPES:
            history.append(appended.seq)


def write_offline(
    source: TranscriptSource,
    home: Path,
    *,
    record: ImportRecord | None,
    format: Format | None,
    workspace: Workspace = NO_WORKSPACE,
    hold_last_turn: bool = False,
) -> Imported:
    """Import into the transcript's session with no host running (nobody observes
    the appends): a new session, or the recorded one continued.

    With ``hold_last_turn`` the import's last turn is not written but returned
    (``held``), and the record says what the session holds without it.

    An appended read (``source.offset``) continues its recorded session from
    the record's importer state, and the session is opened to append only
    (:meth:`SessionStore.open_tail`): neither the transcript's nor the
    session's earlier part is read. A compaction among the new lines, or a log
    whose end cannot be trusted, opens the session whole."""
    where = continuation(record, source, home)
    store = SessionStore(sessions_dir=home / SESSIONS_DIR, on_event=lambda _log, _event: None, now_ms=now_ms)
    if where.session_id is None:
        if source.offset:
            raise ValueError("an appended read continues its recorded session only")
        transcript = import_source(source, format=format, workspace=workspace.path)
        log = store.create(SessionHeader(id=new_session_id(transcript), created_at=now_ms()))
    else:
        log, transcript = _open_and_import(store, where, source, record, format=format, workspace=workspace)
    base = log.seq
    events, held = split_last_turn(transcript.events) if hold_last_turn else (transcript.events, ())
    try:
        append_imported(log, events)
    finally:
        store.close(log.id)  # as a host closes it: a clean end is recorded for the next resume
    through = held[0].line - 1 if held else None
    state = transcript.state_through(through) if through is not None else transcript.state
    return Imported(
        session_id=log.id,
        workspace=host_cwd(workspace, home),
        transcript=transcript,
        record=ImportRecord.of(log.id, source, through=through, importer=state),
        created=where.session_id is None,
        restarted=where.restarted,
        base_seq=base,
        held=held,
    )


def _open_and_import(
    store: SessionStore,
    where: Continuation,
    source: TranscriptSource,
    record: ImportRecord | None,
    *,
    format: Format | None,
    workspace: Workspace,
) -> tuple[Any, ImportedTranscript]:
    assert where.session_id is not None
    if not (source.offset and record is not None and record.importer is not None):
        log = store.open(where.session_id)
        return log, import_into(log.events, source, format=format, after_line=where.after_line, workspace=workspace)
    opened = store.open_tail(where.session_id)
    if opened is None:  # an end not to be trusted: the whole open repairs or reports it
        log = store.open(where.session_id)
        turns = sum(1 for event in log.events if event.type == EventTypes.TURN_START)
    else:
        log, turns = opened
    transcript = import_source(
        source, format=format, turns_before=turns, workspace=workspace.path, state=record.importer
    )
    if opened is not None and any(event.type == EventTypes.COMPACTION_SUMMARY for event in transcript.events):
        store.close(log.id)  # a compaction shadows the history so far: the log is needed whole
        log = store.open(where.session_id)
    return log, transcript


def split_last_turn(
    events: tuple[ImportedEvent, ...],
) -> tuple[tuple[ImportedEvent, ...], tuple[ImportedEvent, ...]]:
    """``(events before the last turn, the last turn and what follows it)``.

    The events before hold every earlier turn closed (a turn is closed when the
    next begins), so they are what an import ending the line before the last
    turn's first line writes."""
    starts = [index for index, event in enumerate(events) if event.type == EventTypes.TURN_START]
    if not starts:
        return events, ()
    return events[: starts[-1]], events[starts[-1] :]


def remove_session(home: Path, session_id: str) -> None:
    """Delete a session this import created and no review used (its directory)."""
    shutil.rmtree(home / SESSIONS_DIR / session_id, ignore_errors=True)


def now_ms() -> float:
    return round(time.time() * 1000, 3)
