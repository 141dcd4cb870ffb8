"""Loading a session log with the core payload shapes checked.

:func:`harness.sessions.jsonl.read_log` checks the line framing (JSON objects,
contiguous ``seq``, known types); this module adds what readers of the events
rely on: every core event's ``data`` is a JSON object, and the events that
carry a model-history message (``user/message``, ``assistant/message``,
``tool/result``) hold one that decodes, with the role its event type implies.
A log that breaks a rule is refused with one :class:`SessionFormatError` line
naming the file, the line, the event seq and the field.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from hookspecs.errors import JsonDataError, SessionFormatError
from hookspecs.values import EventTypes, Message, SessionEvent, message_from_json
from hookspecs.values.wire import describe_value

from .jsonl import LoadedLog, check_header_id, read_log

#: the role each message-bearing core event's ``data.message`` must have
MESSAGE_ROLES: dict[str, str] = {
    EventTypes.USER_MESSAGE: "user",
    EventTypes.ASSISTANT_MESSAGE: "assistant",
    EventTypes.TOOL_RESULT: "tool",
}


def load_log(
    path: Path, *, is_known: Callable[[str], bool], where: str, session_id: str | None = None
) -> LoadedLog:
    """:func:`read_log` plus :func:`check_events`; an unreadable file is a
    :class:`SessionFormatError` naming ``where`` (a directory, no permission...).
    With ``session_id`` (the folder's name) the header must carry that id."""
    try:
        loaded = read_log(path, is_known=is_known, where=where)
    except OSError as exc:
        raise SessionFormatError(f"{where}: cannot read the session file: {exc.strerror or exc}") from None
    if session_id is not None:
        check_header_id(loaded.header, session_id, where)
    check_events(loaded.events, where)
    return loaded


def check_events(events: Iterable[SessionEvent], where: str) -> None:
    """Refuse the first core event whose payload has the wrong shape."""
    for event in events:
        check_event(event.type, event.seq, event.data, where)


def check_event(etype: str, seq: int, data: Any, where: str) -> Message | None:
    """Check one event's payload; returns the decoded message of a message event."""
    if etype not in EventTypes.CORE:
        return None  # a plugin's payload is the plugin's business
    at = f"{where}:{seq + 2}: event seq {seq} ({etype})"
    if type(data) is not dict:
        raise SessionFormatError(f"{at}: field 'data' must be a JSON object, got {describe_value(data)}")
    role = MESSAGE_ROLES.get(etype)
    if role is None:
        return None
    raw = data.get("message")
    if type(raw) is not dict:
        raise SessionFormatError(f"{at}: field 'data.message' must be a JSON object, got {describe_value(raw)}")
    try:
        message = message_from_json(raw, where=f"{at}: field 'data.message'")
    except JsonDataError as exc:
        raise SessionFormatError(exc.message) from None
    if message.role != role:
        raise SessionFormatError(f"{at}: field 'data.message.role' must be {role!r}, got {message.role!r}")
    return message
