"""Read-only, tolerant access to the host's session logs, and the Shadow relay
provenance they carry.

The host service for sessions (``hookspecs.protocols.SessionStore.read``) needs a
running host; these readers work on the files alone.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Final

import attrs

from hookspecs.layout import SESSION_FILE, SESSION_HEADER_TYPE, SESSION_ID_PATTERN, SESSIONS_DIR
from hookspecs.values import EventTypes

from ..core.clock import iso
from ..governance.holdout import redact_value
from ..vocabulary import CHILD_LABEL_PREFIX, REPORT_SOURCE_KIND
from .jsonl import parse_line, read_objects

#: The provenance fields of one relayed report.
RELAY_FIELDS: Final = ("run_id", "shadow_id", "child_session_id", "captured_through_seq", "verdict", "severity", "refs")


def is_session_id(text: str) -> bool:
    """Whether ``text`` can name a session directory (the host's id alphabet)."""
    return bool(SESSION_ID_PATTERN.match(text)) and ".." not in text


def iso_ms(epoch_ms: Any) -> str:
    """An event or header time (epoch milliseconds) as ISO 8601; ``?`` when it is not one."""
    if not isinstance(epoch_ms, (int, float)) or isinstance(epoch_ms, bool):
        return "?"
    try:
        return iso(epoch_ms / 1000)
    except (OverflowError, OSError, ValueError):
        return "?"


def _plain_log(path: Path) -> bool:
    """Whether ``path`` is a regular file in a real folder: a log or a session
    folder symlinked elsewhere (outside the home) is not a session of this home."""
    try:
        return not os.path.islink(path.parent) and stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


@attrs.define(eq=False)
class SessionLogs:
    """The ``sessions/<id>/session.jsonl`` files of one home, parsed once each."""

    home: Path
    #: holdout literals redacted from every event as it is read, before any
    #: summary cuts a text head (a cut key would otherwise leak its prefix)
    holdout: tuple[str, ...] = ()
    _headers: dict[str, dict[str, Any] | None] = attrs.field(factory=dict, init=False)
    _events: dict[str, tuple[list[dict[str, Any]], int]] = attrs.field(factory=dict, init=False)

    @property
    def root(self) -> Path:
        return self.home / SESSIONS_DIR

    def path(self, session_id: str) -> Path | None:
        if not is_session_id(session_id):
            return None
        candidate = self.root / session_id / SESSION_FILE
        return candidate if _plain_log(candidate) else None

    def exists(self, session_id: str) -> bool:
        return self.path(session_id) is not None

    def ids(self) -> list[str]:
        try:
            entries = sorted(self.root.iterdir())
        except OSError:
            return []
        return [entry.name for entry in entries if _plain_log(entry / SESSION_FILE) and SESSION_ID_PATTERN.match(entry.name)]

    def header(self, session_id: str) -> dict[str, Any] | None:
        if session_id not in self._headers:
            self._headers[session_id] = self._read_header(session_id)
        return self._headers[session_id]

    def _read_header(self, session_id: str) -> dict[str, Any] | None:
        path = self.path(session_id)
        if path is None:
            return None
        try:
            with path.open("rb") as handle:
                value = parse_line(handle.readline())
        except (OSError, ValueError):
            return None
        return value if isinstance(value, dict) and value.get("type") == SESSION_HEADER_TYPE else None

    def events(self, session_id: str) -> tuple[list[dict[str, Any]], int]:
        """The event lines (header left out) and the number of damaged lines skipped."""
        if session_id not in self._events:
            path = self.path(session_id)
            records, skipped = read_objects(path) if path else ([], 0)
            events = [
                redact_value(record, self.holdout) for _, record in records if record.get("type") != SESSION_HEADER_TYPE
            ]
            self._events[session_id] = (events, skipped)
        return self._events[session_id]

    def contains(self, session_id: str, needle: str) -> bool:
        path = self.path(session_id)
        if path is None:
            return False
        try:
            return needle.encode("utf-8") in path.read_bytes()
        except OSError:
            return False

    def descriptor(self, session_id: str) -> dict[str, Any] | None:
        events, _ = self.events(session_id)
        for event in events:
            data = event.get("data")
            if event.get("type") == EventTypes.SUBAGENT_DESCRIPTOR and isinstance(data, dict):
                return data
        return None

    def label(self, session_id: str) -> Any:
        """The descriptor's label (any JSON value; None without a descriptor)."""
        return (self.descriptor(session_id) or {}).get("label")

    def is_child(self, session_id: str) -> bool:
        header = self.header(session_id) or {}
        depth = header.get("delegation_depth")
        return bool(header.get("parent_session")) or (isinstance(depth, int) and not isinstance(depth, bool) and depth > 0)

    def shadow_children(self, root_id: str) -> list[str]:
        """Child sessions of ``root_id`` started by the Shadow provider, oldest first."""
        found = []
        for session_id in self.ids():
            header = self.header(session_id)
            if not header or header.get("parent_session") != root_id:
                continue
            if shadow_label_id(self.label(session_id)) is not None:
                created = header.get("created_at")
                found.append((created if isinstance(created, (int, float)) else 0, session_id))
        return [session_id for _, session_id in sorted(found)]


def shadow_label_id(label: Any) -> str | None:
    """The definition id in a Shadow child's label (``shadow:<id>``), else None."""
    if isinstance(label, str) and label.startswith(CHILD_LABEL_PREFIX):
        return label[len(CHILD_LABEL_PREFIX) :]
    return None


def relays_in(events: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One row per report in the relay ``user/message`` events: provenance only."""
    rows = []
    for event in events:
        if event.get("type") != EventTypes.USER_MESSAGE:
            continue
        data = event.get("data")
        message = data.get("message") if isinstance(data, dict) else None
        source = message.get("source") if isinstance(message, dict) else None
        if not isinstance(source, dict) or source.get("kind") != REPORT_SOURCE_KIND:
            continue
        reports = source.get("reports")
        for report in reports if isinstance(reports, list) else []:
            if not isinstance(report, dict):
                continue
            rows.append(
                {
                    "seq": event.get("seq"),
                    "time": iso_ms(event.get("time")),
                    "form": source.get("form"),
                    **{key: report.get(key) for key in RELAY_FIELDS},
                    # a checks-only review's report names its check; a model's has none
                    **({"check": report["check"]} if isinstance(report.get("check"), str) else {}),
                }
            )
    return rows
