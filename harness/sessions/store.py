"""Session files, the event-type registry and the publication guard."""

from __future__ import annotations

import builtins
import json
import logging
import os
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from hookspecs.errors import SessionError, SessionFormatError
from hookspecs.fsutil import ensure_private_dir
from hookspecs.layout import SESSION_FILE, SESSION_ID_PATTERN, SESSIONS_DIR
from hookspecs.protocols import SessionSummary
from hookspecs.values import EventTypes, SessionEvent, SessionHeader

from .jsonl import JsonlWriter, LoadedLog, check_header_id, count_events, read_header, truncate_torn_tail
from .lock import SessionLock
from .log import SessionLog
from .logfile import check_log, open_log
from .repair import closing_events
from .shapes import check_event, load_log

if TYPE_CHECKING:
    from .checkpoint import ResumedTail

_EVENT_TYPE = re.compile(r"^[a-z][a-z0-9-]*(?:/[a-z0-9][a-z0-9-]*)+$")

PublishFn = Callable[[SessionLog, SessionEvent], None]

#: Characters a session id prefix needs before it may stand for a whole id.
MIN_ID_PREFIX = 4
_CANDIDATES_SHOWN = 3


def check_session_id(session_id: str) -> str:
    if not SESSION_ID_PATTERN.match(session_id) or ".." in session_id:
        raise SessionError(f"invalid session id {session_id!r}", code="INVALID_SESSION_ID")
    return session_id


class SessionStore:
    """Implements :class:`hookspecs.protocols.SessionStore` over JSONL files."""

    def __init__(
        self,
        *,
        sessions_dir: Path,
        on_event: PublishFn,
        now_ms: Callable[[], float],
        logger: logging.Logger | None = None,
    ) -> None:
        self.sessions_dir = Path(sessions_dir)
        self._on_event = on_event
        self._now_ms = now_ms
        self._logger = logger or logging.getLogger("harness.sessions")
        self._types: dict[str, bool] = {name: False for name in EventTypes.CORE}
        self._live: dict[str, SessionLog] = {}
        self._publishing = 0

    # --- event types ---------------------------------------------------------------

    def register_event_type(self, name: str, *, ignorable: bool = False) -> Callable[[], None]:
        if not isinstance(name, str) or not _EVENT_TYPE.match(name):
            raise SessionError(f"invalid event type name {name!r}; use lowercase 'area/name'")
        if name in self._types:
            raise SessionError(f"event type {name!r} is already registered")
        self._types[name] = bool(ignorable)

        def dispose() -> None:
            if name not in EventTypes.CORE:
                self._types.pop(name, None)

        return dispose

    def is_known_type(self, name: str) -> bool:
        return name in self._types

    def event_type_flag(self, name: str) -> bool | None:
        """None when unknown; else whether events of the type are ignorable."""
        return self._types.get(name)

    # --- publication ----------------------------------------------------------------

    @property
    def publishing(self) -> bool:
        return self._publishing > 0

    def publish(self, session: SessionLog, event: SessionEvent) -> None:
        self._publishing += 1
        try:
            self._on_event(session, event)
        finally:
            self._publishing -= 1

    # --- files -----------------------------------------------------------------------

    def path_for(self, session_id: str) -> Path:
        return self.sessions_dir / check_session_id(session_id) / SESSION_FILE

    def resolve_id(self, text: str) -> str:
        """The session ``text`` names: an existing id, else the one live or
        persisted session whose id starts with ``text`` (at least
        :data:`MIN_ID_PREFIX` characters). Listings print shortened ids, so
        every command that takes an id takes them too.

        Not found: ``SessionFormatError`` naming the file; several matches:
        ``SessionError`` ``AMBIGUOUS_SESSION_ID`` with their count.
        """
        check_session_id(text)
        # lexists of the folder, not exists() of the log: an unreadable or symlinked
        # folder is still the session named; loading reports what is wrong with it
        if text in self._live or os.path.lexists(self.path_for(text).parent):
            return text
        matches = self._ids_starting_with(text) if len(text) >= MIN_ID_PREFIX else []
        if len(matches) == 1:
            return matches[0]
        if matches:
            shown = ", ".join(matches[:_CANDIDATES_SHOWN]) + (", ..." if len(matches) > _CANDIDATES_SHOWN else "")
            raise SessionError(
                f"session id prefix {text!r} is ambiguous: it matches {len(matches)} sessions ({shown}); "
                "give more characters",
                code="AMBIGUOUS_SESSION_ID",
            )
        raise SessionFormatError(f"{_label(text)}: session file not found")

    def _ids_starting_with(self, prefix: str) -> builtins.list[str]:
        found = {session_id for session_id in self._live if session_id.startswith(prefix)}
        try:
            entries = builtins.list(self.sessions_dir.iterdir()) if self.sessions_dir.is_dir() else []
        except OSError:
            entries = []
        for entry in entries:
            name = entry.name
            if name.startswith(prefix) and SESSION_ID_PATTERN.match(name) and _may_hold_a_log(entry):
                found.add(name)
        return sorted(found)

    def create(self, header: SessionHeader) -> SessionLog:
        path = self.path_for(header.id)
        if path.exists() or header.id in self._live:
            raise SessionError(f"session {header.id} already exists", code="SESSION_EXISTS")
        ensure_private_dir(path.parent)
        lock = SessionLock.acquire(header.id, path.parent, logger=self._logger)
        try:
            writer = JsonlWriter.create(path, header)
        except BaseException:
            lock.release()
            raise
        log = SessionLog(header=header, events=[], store=self, writer=writer, now_ms=self._now_ms, lock=lock)
        self._live[header.id] = log
        return log

    def open(self, session_id: str) -> SessionLog:
        """Open a persisted log for appending, holding its lock until it is closed.

        A session another process (or another store) holds is refused with
        ``SESSION_LOCKED``. A torn last line (a crash mid-write; never committed)
        is truncated away. Call :meth:`repair` once the session is published to
        close a turn the crash left open and answer unanswered tool calls.

        A log with a checkpoint (:mod:`.checkpoint`) is read from it: its header
        and the events after it are read and validated now, the events before
        it when something first reads them (their load validates the whole log
        and raises its ``SessionFormatError`` there).
        """
        from .checkpoint import read_tail_from_checkpoint  # resuming, closing: not a new run's start

        path, where, lock = self._lock_existing(session_id)
        try:
            tail = read_tail_from_checkpoint(path, where, session_id, is_known=self.is_known_type)
            read: ResumedTail | LoadedLog = tail or load_log(
                path, is_known=self.is_known_type, where=where, session_id=session_id
            )
            if read.torn_tail:
                self._logger.warning("session %s: dropped a torn last line left by a crash", session_id)
                truncate_torn_tail(path, read.intact_bytes)
        except BaseException:
            lock.release()
            raise
        writer = JsonlWriter(path, session_id=session_id)
        if tail is None:
            log = SessionLog(
                header=read.header, events=read.events, store=self, writer=writer, now_ms=self._now_ms, lock=lock
            )
        else:
            mark = tail.checkpoint
            log = SessionLog(
                header=tail.header,
                events=tail.events,
                store=self,
                writer=writer,
                now_ms=self._now_ms,
                lock=lock,
                first_seq=mark.seq - 1,
                load_head=lambda: self._head(path, where, session_id, mark.seq - 1),
                clean=(mark.seq, mark.turns),
                state_before=mark.latest,
            )
        self._live[session_id] = log
        return log

    def _head(self, path: Path, where: str, session_id: str, count: int) -> builtins.list[SessionEvent]:
        """The first ``count`` events of a log opened from its checkpoint: the
        whole log is loaded and validated as :meth:`open` without one does."""
        loaded = load_log(path, is_known=self.is_known_type, where=where, session_id=session_id)
        if len(loaded.events) < count:
            raise SessionFormatError(
                f"{where}: holds {len(loaded.events)} events, fewer than the {count} before its checkpoint"
            )
        return loaded.events[:count]

    def _lock_existing(self, session_id: str) -> tuple[Path, str, SessionLock]:
        """The log's path and label, checked and locked for this store."""
        if session_id in self._live:
            raise SessionError(f"session {session_id} is already open", code="SESSION_OPEN")
        path = self.path_for(session_id)
        where = _label(session_id)
        try:
            # before the lock file is written next to it: a symlinked or unreadable folder is refused
            check_log(path, where)
        except (FileNotFoundError, NotADirectoryError):
            raise SessionFormatError(f"{where}: session file not found") from None
        return path, where, SessionLock.acquire(session_id, path.parent, logger=self._logger)

    def open_tail(self, session_id: str) -> tuple[SessionLog, int] | None:
        """Open a persisted log to append to it without loading it: ``(log, the
        number of its last turn)``; the log's ``events`` are not available.
        None when its end cannot be trusted without a full read (a torn last
        line, an end that does not parse): :meth:`open` repairs or reports it.
        Reads back from the end to the last turn's start, never the whole log."""
        from .tail import read_tail  # an importer's append, not a run's start

        path, where, lock = self._lock_existing(session_id)
        try:
            tail = read_tail(path, where)
            if tail is None:
                lock.release()
                return None
            with open_log(path, where) as handle:
                header = read_header(handle, where)
            check_header_id(header, session_id, where)
        except BaseException:
            lock.release()
            raise
        log = SessionLog(
            header=header,
            events=[],
            store=self,
            writer=JsonlWriter(path, session_id=session_id),
            now_ms=self._now_ms,
            lock=lock,
            first_seq=tail.next_seq,
            clean=None,
        )
        self._live[session_id] = log
        return log, tail.turns

    def repair(self, log: SessionLog) -> int:
        """Append the closing events of a turn a crash left open, and results for
        tool calls an older host left unanswered; returns how many.

        Only the events after the log's last clean point are folded (the whole
        log when it has none: :mod:`.checkpoint`), and the repaired end is
        recorded as the next one. Closers go through the normal append path, so
        observers see them.
        """
        from .checkpoint import mark_clean

        since, _ = log.clean or (0, 0)
        closers = closing_events(log.events_since(since))
        for etype, data in closers:
            log.append(etype, data)
        if closers:
            self._logger.warning("session %s: closed a turn interrupted by a crash or answered lost tool results", log.id)
            log.sync()
        mark_clean(log, self.path_for(log.id), _label(log.id), repaired=True)
        return len(closers)

    def read(self, session_id: str) -> tuple[SessionHeader, Sequence[SessionEvent]]:
        live = self._live.get(session_id)
        if live is not None:
            return live.header, live.events
        loaded = load_log(
            self.path_for(session_id), is_known=self.is_known_type, where=_label(session_id), session_id=session_id
        )
        return loaded.header, loaded.events

    def get(self, session_id: str) -> SessionLog | None:
        return self._live.get(session_id)

    def close(self, session_id: str) -> None:
        log = self._live.pop(session_id, None)
        if log is not None:
            try:
                from .checkpoint import mark_clean  # loaded here first: under the try, so the log closes

                mark_clean(log, self.path_for(session_id), _label(session_id))  # the next resume reads from here
            finally:
                log.close()

    def discard(self, session_id: str) -> None:
        """Remove a session that was created but never published (setup failed)."""
        log = self._live.pop(session_id, None)
        if log is not None:
            log.close(remove_lock=True)
        path = self.path_for(session_id)
        try:
            path.unlink()
            path.parent.rmdir()
        except OSError:
            pass

    def list(self) -> list[SessionSummary]:
        summaries, problems = self.scan()
        for problem in problems:
            self._logger.warning("skipping unreadable session: %s", problem)
        return summaries

    def scan(self) -> tuple[builtins.list[SessionSummary], builtins.list[str]]:
        """Persisted sessions, newest first, and one line per session that cannot
        be listed (a directory or unreadable file in place of the log, a bad
        header, a malformed first user message); the others are listed."""
        if not self.sessions_dir.is_dir():
            return [], []
        out: builtins.list[SessionSummary] = []
        problems: builtins.list[str] = []
        for directory in sorted(self.sessions_dir.iterdir()):
            if not directory.is_dir() or not _may_hold_a_log(directory):
                continue  # not a session directory
            label = _label(directory.name)
            try:
                with open_log(directory / SESSION_FILE, label) as handle:
                    header = read_header(handle, label)
                    check_header_id(header, directory.name, label)
                    summary = SessionSummary(
                        id=header.id,
                        created_at=header.created_at,
                        cwd=header.cwd,
                        parent_session=header.parent_session,
                        delegation_depth=header.delegation_depth,
                        events=count_events(handle),
                        title=_first_prompt(handle, label),
                    )
            except FileNotFoundError:
                continue  # removed while we scanned
            except SessionFormatError as exc:
                problems.append(exc.message)
                continue
            except OSError as exc:
                problems.append(f"{label}: cannot read the session file: {exc.strerror or exc}")
                continue
            out.append(summary)
        out.sort(key=lambda s: s.created_at, reverse=True)
        return out, problems


def _label(session_id: str) -> str:
    """How messages name a session's log: relative to the home."""
    return f"{SESSIONS_DIR}/{session_id}/{SESSION_FILE}"


def _may_hold_a_log(folder: Path) -> bool:
    """Whether ``folder`` looks like a session's: it has a log, or it cannot be
    looked into (so that opening it reports why, instead of skipping it)."""
    try:
        os.lstat(folder / SESSION_FILE)
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError:
        pass
    return True


def _first_prompt(handle: BinaryIO, label: str, *, max_lines: int = 64) -> str:
    """The head of the first user message, for listings (reads a few lines only).

    A line that is not JSON (a torn tail) gives no title; a ``user/message``
    whose payload has the wrong shape raises :class:`SessionFormatError`.
    """
    handle.seek(0)
    for _ in range(max_lines):
        line = handle.readline()
        if not line:
            break
        if b'"user/message"' not in line:
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            return ""
        if type(obj) is not dict or obj.get("type") != EventTypes.USER_MESSAGE or type(obj.get("seq")) is not int:
            continue  # the text merely mentions the type; read_log judges the framing
        message = check_event(EventTypes.USER_MESSAGE, obj["seq"], obj.get("data"), label)
        return " ".join(message.text.split())[:80] if message is not None else ""
    return ""
