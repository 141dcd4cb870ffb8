"""Which root turns are reviewable: completed turns that used a tool."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hookspecs.values import EventTypes, SessionEvent

if TYPE_CHECKING:
    from hookspecs.protocols import Session


def turn_used_tools(session: Session, turn_end: SessionEvent) -> bool:
    """Whether the turn that ``turn_end`` closes committed at least one tool result."""
    turn = turn_end.data.get("turn")
    events = session.events
    for index in range(min(turn_end.seq, len(events)) - 1, -1, -1):
        event = events[index]
        if event.type == EventTypes.TOOL_RESULT and event.data.get("turn") == turn:
            return True
        if event.type == EventTypes.TURN_START:
            return False
    return False
