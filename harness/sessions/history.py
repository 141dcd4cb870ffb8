"""Folding a session log into the model history."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from hookspecs.values import EventTypes, Message, SessionEvent, ToolCallBlock, message_from_json

_SURFACE = (EventTypes.USER_MESSAGE, EventTypes.ASSISTANT_MESSAGE, EventTypes.TOOL_RESULT)


def derive_messages(events: Iterable[SessionEvent]) -> list[Message]:
    """Messages in log order: entered user messages, assistant messages, tool results.

    A tool result stands right after the results already placed for its call's
    assistant message: a result that repair appended later (for a call an older
    host left unanswered) moves back next to its call, where model APIs expect it.
    """
    out: list[Message] = []
    after_call: dict[str, int] = {}  # call id -> index its result goes to
    for event in events:
        if event.type not in _SURFACE:
            continue
        message = message_from_json(event.data["message"], where=f"event {event.seq} message")
        at = after_call.pop(event.data.get("call_id"), None) if event.type == EventTypes.TOOL_RESULT else None
        if at is None or at >= len(out):
            out.append(message)
        else:
            out.insert(at, message)
            for call_id, index in after_call.items():
                if index >= at:
                    after_call[call_id] = index + 1
        if event.type == EventTypes.ASSISTANT_MESSAGE:
            for block in message.content:
                if isinstance(block, ToolCallBlock):
                    after_call[block.id] = len(out)
        elif at is not None:
            # later results of the same assistant message go after this one
            for call_id, index in after_call.items():
                if index == at:
                    after_call[call_id] = at + 1
    return out



def committed_message(event: SessionEvent, data: dict[str, Any], message: Message | None = None) -> Message:
    """The ``message`` of appended ``data`` as the log committed it, so the live
    history equals the one a resume derives: ``message`` itself unless the
    append escaped undecodable text (then the event holds other data)."""
    if message is not None and event.data is data:
        return message
    return message_from_json(event.data["message"], where=f"event {event.seq} message")
