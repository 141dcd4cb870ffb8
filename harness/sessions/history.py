"""Folding a session log into the model history."""

from __future__ import annotations

from collections.abc import Iterable

from hookspecs.values import EventTypes, Message, SessionEvent, message_from_json

_SURFACE = (EventTypes.USER_MESSAGE, EventTypes.ASSISTANT_MESSAGE, EventTypes.TOOL_RESULT)


def derive_messages(events: Iterable[SessionEvent]) -> list[Message]:
    """Messages in log order: entered user messages, assistant messages, tool results."""
    out: list[Message] = []
    for event in events:
        if event.type in _SURFACE:
            out.append(message_from_json(event.data["message"], where=f"event {event.seq} message"))
    return out
