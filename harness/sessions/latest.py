"""The newest event of one type in a session, without walking the log.

A :class:`~harness.sessions.log.SessionLog` knows the newest event of its
state types (:data:`~harness.sessions.log.STATE_EVENT_TYPES`: the approval
policy every approval asks for, the sandbox mode a spawn or a bash call
needs) without reading its earlier part, even when resumed from its
checkpoint. For another type, or another session object, logs are
append-only, so each question reads only the events appended since the
previous one.
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping
from operator import attrgetter
from typing import Any

from hookspecs.values import EventTypes

from .log import STATE_EVENT_TYPES

_TYPE = attrgetter("type")


class LatestEventData:
    """The ``data`` of the newest ``event_type`` event of each session asked about."""

    def __init__(self, event_type: str) -> None:
        self._type = event_type
        self._seen: weakref.WeakKeyDictionary[Any, tuple[int, Mapping[str, Any] | None]] = weakref.WeakKeyDictionary()

    def of(self, session: Any) -> Mapping[str, Any] | None:
        """None when the session has no such event (or its data is not a mapping)."""
        newest = getattr(session, "latest_event", None) if self._type in STATE_EVENT_TYPES else None
        if newest is not None:
            event = newest(self._type)
            found = event.data if event is not None else None
            return found if isinstance(found, Mapping) else None
        events = session.events
        count = len(events)
        try:
            seen, data = self._seen.get(session, (0, None))
        except TypeError:  # a session that cannot be weakly referenced: no memory, read it all
            seen, data = 0, None
        if count < seen:  # not the log we read before
            seen, data = 0, None
        if count > seen:
            new = events[seen:count]
            types = list(map(_TYPE, new))  # C-speed; the newest match wins
            types.reverse()
            if self._type in types:
                found = new[len(new) - 1 - types.index(self._type)].data
                data = found if isinstance(found, Mapping) else None
        try:
            self._seen[session] = (count, data)
        except TypeError:
            pass
        return data


class LatestSandboxMode:
    """The mode of the newest ``sandbox/mode`` event, or None."""

    def __init__(self) -> None:
        self._latest = LatestEventData(EventTypes.SANDBOX_MODE)

    def of(self, session: Any) -> str | None:
        data = self._latest.of(session)
        raw = data.get("mode") if data is not None else None
        return str(raw) if raw else None
