"""Folding a session log into the model history."""

from __future__ import annotations

import weakref
from collections.abc import Iterable
from typing import Any

from hookspecs.protocols import Session
from hookspecs.values import EventTypes, Message, SessionEvent, ToolCallBlock, message_from_json

#: the event types whose messages make up the model history (the one list: the
#: compaction engine and the transcript importer read it too)
HISTORY_TYPES = frozenset({EventTypes.USER_MESSAGE, EventTypes.ASSISTANT_MESSAGE, EventTypes.TOOL_RESULT})


def derive_messages(events: Iterable[SessionEvent]) -> list[Message]:
    """Messages in log order: entered user messages, assistant messages, tool
    results, with compaction checkpoints in place of what they replaced
    (see :func:`derive_surface`)."""
    return derive_surface(events)[0]


def derive_surface(events: Iterable[SessionEvent]) -> tuple[list[Message], list[int]]:
    """The model history and, index for index, the seq of the event each message
    came from (see :class:`SurfaceFold`)."""
    fold = SurfaceFold()
    fold.feed(events)
    return fold.messages, fold.seqs


class SurfaceFold:
    """The model history folded from a log, event by event, so a growing log is
    folded once (``feed`` the events appended since ``consumed``).

    A tool result stands right after the results already placed for its call's
    assistant message: a result that repair appended later (for a call an older
    host left unanswered) moves back next to its call, where model APIs expect it.

    A ``user/message`` whose data has ``surface_op: {op: replace, ...}`` (a
    compaction checkpoint) removes the messages of the events its
    ``source_event_seqs`` lists and takes the place of the first one it removed
    (``start``/``end`` of the op record those positions, end exclusive).
    """

    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.seqs: list[int] = []  # index for index: the seq each message came from
        self.consumed = 0  # events fed so far
        self._after_call: dict[str, int] = {}  # call id -> index its result goes to

    def feed(self, events: Iterable[SessionEvent]) -> None:
        out, seqs, after_call = self.messages, self.seqs, self._after_call
        for event in events:
            self.consumed += 1
            if event.type not in HISTORY_TYPES:
                continue
            data = event.data
            message = message_from_json(data["message"], where=f"event {event.seq} message")
            replace = _replaced_seqs(data) if event.type == EventTypes.USER_MESSAGE else None
            if replace is not None:
                first = _replace(out, seqs, after_call, replace)
                out.insert(first, message)
                seqs.insert(first, event.seq)
                _shift(after_call, first, 1)
                continue
            at = after_call.pop(data.get("call_id"), None) if event.type == EventTypes.TOOL_RESULT else None
            if at is None or at >= len(out):
                out.append(message)
                seqs.append(event.seq)
            else:
                out.insert(at, message)
                seqs.insert(at, event.seq)
                _shift(after_call, at, 1)
            if event.type == EventTypes.ASSISTANT_MESSAGE:
                for block in message.content:
                    if isinstance(block, ToolCallBlock):
                        after_call[block.id] = len(out)
            elif at is not None:
                # later results of the same assistant message go after this one
                for call_id, index in after_call.items():
                    if index == at:
                        after_call[call_id] = at + 1


def _replaced_seqs(data: dict[str, Any]) -> frozenset[int] | None:
    op = data.get("surface_op")
    if not isinstance(op, dict) or op.get("op") != "replace":
        return None
    seqs = data.get("source_event_seqs")
    if not isinstance(seqs, list):
        return None
    return frozenset(seq for seq in seqs if type(seq) is int)


def _replace(out: list[Message], seqs: list[int], after_call: dict[str, int], replaced: frozenset[int]) -> int:
    """Remove the messages of the events in ``replaced``; returns where the first was."""
    keep = [i for i, seq in enumerate(seqs) if seq not in replaced]
    if len(keep) == len(seqs):
        return len(out)
    at = next(i for i, seq in enumerate(seqs) if seq in replaced)
    removed = len(seqs) - len(keep)
    out[:] = [out[i] for i in keep]
    seqs[:] = [seqs[i] for i in keep]
    for call_id, index in list(after_call.items()):
        if index > at + removed:
            after_call[call_id] = index - removed
        elif index > at:
            del after_call[call_id]  # its call was shadowed: a late result just appends
    return at


def _shift(after_call: dict[str, int], at: int, by: int) -> None:
    for call_id, index in after_call.items():
        if index >= at:
            after_call[call_id] = index + by


def committed_message(event: SessionEvent, data: dict[str, Any], message: Message | None = None) -> Message:
    """The ``message`` of appended ``data`` as the log committed it, so the live
    history equals the one a resume derives: ``message`` itself unless the
    append escaped undecodable text (then the event holds other data)."""
    if message is not None and event.data is data:
        return message
    return message_from_json(event.data["message"], where=f"event {event.seq} message")


class LiveSurfaces:
    """One :class:`SurfaceFold` per live session, advanced to the session's newest
    event on each call: the compacted history without refolding the whole log.
    Folds go away with their sessions."""

    def __init__(self) -> None:
        self._folds: weakref.WeakKeyDictionary[Any, SurfaceFold] = weakref.WeakKeyDictionary()

    def of(self, session: Session) -> SurfaceFold:
        fold = self._folds.get(session)
        if fold is None or fold.consumed > session.seq:
            fold = self._folds[session] = SurfaceFold()
        if fold.consumed < session.seq:
            fold.feed(session.events_since(fold.consumed))
        return fold
