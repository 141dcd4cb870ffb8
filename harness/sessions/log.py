"""A live session: the append-only event log an agent drives."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from operator import attrgetter
from typing import Any, Protocol

from hookspecs.errors import SessionError
from hookspecs.scrub import scrub_json
from hookspecs.secrets_detect import may_hold_credentials
from hookspecs.values import EventTypes, SessionEvent, SessionHeader, check_json

from .events_view import EventsView, LazyEvents
from .jsonl import JsonlWriter, escape_undecodable, event_line
from .lock import SessionLock

#: the types whose newest event the log knows without reading its earlier part:
#: every approval asks for the policy, every spawn and bash call for the sandbox mode
STATE_EVENT_TYPES: frozenset[str] = frozenset({EventTypes.APPROVAL_POLICY, EventTypes.SANDBOX_MODE})

_TYPE = attrgetter("type")


class LogOwner(Protocol):
    """What a live log needs from the store that opened it (``SessionStore``
    implements it): the event-type registry and the publication guard."""

    @property
    def publishing(self) -> bool:
        """True while a ``dsh_session_event`` observer runs (appends are refused)."""
        ...

    def event_type_flag(self, name: str) -> bool | None:
        """None when ``name`` is unknown; else whether its events are ignorable."""
        ...

    def publish(self, session: SessionLog, event: SessionEvent) -> None:
        """Hand a committed event to the observers."""
        ...


class SessionLog:
    """Implements :class:`hookspecs.protocols.Session`.

    ``append`` validates, hides credentials in the data's string values (see
    :func:`hookspecs.scrub.scrub_json`; keys and structure are kept), writes
    the line, commits in memory, then publishes to
    ``dsh_session_event`` observers synchronously. While any observer runs, every
    append is refused: an observer that appended would reorder the feed other
    observers see. Text that UTF-8 cannot encode (lone surrogates: undecodable
    file names) is escaped before the line is written, and the committed event
    holds the escaped data (see :func:`~harness.sessions.jsonl.escape_undecodable`).
    A write that fails raises ``SESSION_WRITE_FAILED`` and commits nothing.

    The log holds its session's OS lock (``lock``) until it is closed.
    """

    def __init__(
        self,
        *,
        header: SessionHeader,
        events: list[SessionEvent],
        store: LogOwner,
        writer: JsonlWriter | None,
        now_ms: Callable[[], float],
        lock: SessionLock | None = None,
        first_seq: int = 0,
        load_head: Callable[[], list[SessionEvent]] | None = None,
        clean: tuple[int, int] | None = (0, 0),
        state_before: Mapping[str, SessionEvent | None] | None = None,
    ) -> None:
        self._header = header
        #: a log opened from its end holds the events from ``first_seq`` on; the
        #: earlier ones come from ``load_head`` when first read (a log opened to
        #: append only, :meth:`SessionStore.open_tail`, has none to load)
        self._first = first_seq
        self._events = events
        self._load_head = load_head
        #: (seq, turn/start events before it): the last point found clean (:mod:`.checkpoint`);
        #: None when unknown (a log opened to append only)
        self.clean: tuple[int, int] | None = clean
        #: the newest event of each state type among the events before the loaded
        #: part, as the checkpoint records it (a type missing: unknown, ask the log)
        self._before: Mapping[str, SessionEvent | None] = state_before or {}
        #: the state types the checkpoint at ``clean`` records (a close adds the others it learnt)
        self.recorded_state: frozenset[str] = frozenset(self._before)
        #: the newest event of each state type asked about (or appended) so far
        self._latest: dict[str, SessionEvent | None] = {}
        self._store = store
        self._writer = writer
        self._now_ms = now_ms
        self._lock = lock
        self._closed = False

    # --- reading ---------------------------------------------------------------------

    @property
    def id(self) -> str:
        return self._header.id

    @property
    def header(self) -> SessionHeader:
        return self._header

    @property
    def seq(self) -> int:
        return self._first + len(self._events)

    @property
    def events(self) -> Sequence[SessionEvent]:
        return self.events_since(0)

    def events_since(self, seq: int) -> Sequence[SessionEvent]:
        seq = max(0, seq)
        if seq < self._first:
            self._head_loader()  # raises when there is nothing to load the earlier part from
            return LazyEvents(self, seq, self.seq)
        return EventsView(self._events, min(seq - self._first, len(self._events)))

    def _head_loader(self) -> Callable[[], list[SessionEvent]]:
        if self._load_head is None:
            raise SessionError(
                f"session {self.id} was opened to append only: its events before seq {self._first} are not loaded",
                code="SESSION_APPEND_ONLY",
            )
        return self._load_head

    @property
    def loaded_seq(self) -> int:
        """The seq of the first event in memory (0 once the whole log is)."""
        return self._first

    def in_memory(self) -> tuple[list[SessionEvent], int]:
        return self._events, self._first

    def loaded_from(self, seq: int) -> tuple[list[SessionEvent], int]:
        """The events in memory and the seq of the first, the log's earlier part
        loaded first when ``seq`` is before them (its errors are the load's)."""
        if seq < self._first:
            head = self._head_loader()()
            # a new list: snapshots taken before keep reading the old one
            self._events = head[: self._first] + self._events
            self._first = 0
            self._load_head = None
        return self._events, self._first

    def latest_event(self, etype: str) -> SessionEvent | None:
        """The newest event of ``etype`` (one of :data:`STATE_EVENT_TYPES`), or None.
        Kept up to date on append; the first ask reads the events in memory and the
        checkpoint's record, and loads the earlier part only when neither knows."""
        if etype not in self._latest:
            if etype not in STATE_EVENT_TYPES:
                raise ValueError(f"the log keeps no newest {etype!r} event")
            self._latest.update(self._known((etype,)))
            if etype not in self._latest:
                self.loaded_from(0)  # its errors are the load's
                self._latest.update(self._known((etype,)))
        return self._latest[etype]

    def known_state(self) -> dict[str, SessionEvent | None]:
        """The newest event of each state type known without loading anything
        (a type missing: only the earlier part of the log could tell)."""
        missing = STATE_EVENT_TYPES - self._latest.keys()
        if missing:
            self._latest.update(self._known(missing))
        return dict(self._latest)

    def _known(self, wanted: Collection[str]) -> dict[str, SessionEvent | None]:
        events = self._events
        types = list(map(_TYPE, events))  # C-speed; the newest match wins
        types.reverse()
        found: dict[str, SessionEvent | None] = {}
        for etype in wanted:
            try:
                found[etype] = events[len(events) - 1 - types.index(etype)]
                continue
            except ValueError:
                pass
            if self._first == 0:
                found[etype] = None
            elif etype in self._before:
                found[etype] = self._before[etype]
        return found

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def write_failure(self) -> SessionError | None:
        """The error of the write that failed this log (every later append raises
        it again), or None while the file and the log agree."""
        return self._writer.failure if self._writer is not None else None

    # --- writing ---------------------------------------------------------------------

    def append(self, type: str, data: Any, *, ignorable: bool = False) -> SessionEvent:
        store = self._store
        if store.publishing:
            raise SessionError(
                f"cannot append {type!r} to session {self.id}: appends are not allowed while a "
                "dsh_session_event observer runs; schedule the work with host.spawn(...)",
                code="SESSION_APPEND_REENTRANT",
            )
        if self._closed:
            raise SessionError(f"session {self.id} is closed", code="SESSION_CLOSED")
        registered = store.event_type_flag(type)
        if registered is None:
            raise SessionError(
                f"unknown event type {type!r}: register it with dsh_register_event_types",
                code="UNKNOWN_EVENT_TYPE",
            )
        check_json(data, f"{type} data")
        event = SessionEvent(
            type=type, seq=self.seq, time=self._now_ms(), data=data, ignorable=ignorable or registered
        )
        try:
            line = event_line(event)
        except UnicodeEncodeError:
            event = _with_data(event, escape_undecodable(data))
            line = event_line(event)
        if may_hold_credentials(line):
            # Credentials never reach the file, memory or observers: what the
            # caller, the projection, the web client and a resume see is what
            # is on disk. One scan of the line clears nearly every event.
            clean = scrub_json(event.data)
            if clean is not event.data:
                event = _with_data(event, clean)
                line = event_line(event)
        if self._writer is not None:
            self._writer.write(line)
        self._events.append(event)
        if type in STATE_EVENT_TYPES:
            self._latest[type] = event
        store.publish(self, event)
        return event

    def sync(self) -> None:
        """Force committed lines to disk (called at turn ends and on close)."""
        if self._writer is not None:
            self._writer.sync()

    def close(self, *, remove_lock: bool = False) -> None:
        """fsync, close the file and release the session lock (idempotent)."""
        if self._closed:
            return
        self._closed = True
        try:
            if self._writer is not None:
                self._writer.close()
        finally:
            if self._lock is not None:
                self._lock.release(remove=remove_lock)


def _with_data(event: SessionEvent, data: Any) -> SessionEvent:
    return SessionEvent(type=event.type, seq=event.seq, time=event.time, data=data, ignorable=event.ignorable)
