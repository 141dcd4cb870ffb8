"""Crash repair: the closing events a log needs when its last turn never ended.

A crash leaves at most an open turn: tool calls without results, a step
without ``step/end``, a turn without ``turn/end``. Repair appends (never
rewrites) error results for unanswered calls, the missing ``step/end`` and a
``turn/end`` with reason ``interrupted`` — no committed event is lost.

A crash can also leave a compaction open (``compaction/start`` without
``compaction/end``): repair closes it first. Its checkpoint ``user/message`` is
the commit point — when it was written the compaction is closed as done
(``repaired: true``), else with an ``INTERRUPTED`` error.

An older host could also leave a call unanswered in a turn that did end (its
``tool/result`` append failed): repair answers those first, with a
``RESULT_NOT_RECORDED`` error result carrying the call's turn and step.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from hookspecs.values import EventTypes, SessionEvent, TextBlock, ToolResultBlock
from hookspecs.values.compaction import is_checkpoint_source
from hookspecs.values.messages import Message, message_to_json

INTERRUPTED_CODE = "INTERRUPTED"
INTERRUPTED_TEXT = "The session stopped before this tool call finished; its result is unknown."
NOT_RECORDED_CODE = "RESULT_NOT_RECORDED"
NOT_RECORDED_TEXT = "The result of this tool call was never recorded; the call may have had effects."
COMPACTION_INTERRUPTED_TEXT = "The session stopped before this compaction finished; the history was not compacted."


def closing_events(events: Iterable[SessionEvent]) -> list[tuple[str, dict[str, Any]]]:
    """``(type, data)`` pairs that close an open turn, in append order."""
    open_turn: int | None = None
    open_step: int | None = None
    step_of_turn = 0
    pending: dict[str, tuple[str, int]] = {}  # call id -> (tool name, step)
    orphans: dict[str, tuple[int, str, int]] = {}  # unanswered in an ended turn: call id -> (turn, name, step)
    compaction: list[Any] = [None, False]  # open compaction id, its checkpoint was written
    for event in events:
        etype = event.type
        data = event.data if isinstance(event.data, dict) else {}
        _track_compaction(compaction, etype, data)
        if etype == EventTypes.TURN_START:
            _orphan(orphans, open_turn, pending)
            open_turn = _int(data.get("turn"), 0)
            open_step = None
        elif etype == EventTypes.TURN_END:
            _orphan(orphans, open_turn, pending)
            open_turn = None
            open_step = None
        elif etype == EventTypes.TOOL_RESULT and open_turn is None:
            orphans.pop(str(data.get("call_id")), None)
        elif open_turn is None:
            continue
        elif etype == EventTypes.STEP_START:
            open_step = step_of_turn = _int(data.get("step"), 0)
        elif etype == EventTypes.STEP_END:
            open_step = None
        elif etype == EventTypes.ASSISTANT_MESSAGE:
            for block in _content(data.get("message")):
                if block.get("type") == "tool-call" and isinstance(block.get("id"), str):
                    pending.setdefault(block["id"], (str(block.get("name", "unknown-tool")), step_of_turn))
        elif etype == EventTypes.TOOL_CALL:
            call_id = data.get("call_id")
            if isinstance(call_id, str):
                pending[call_id] = (str(data.get("name", "unknown-tool")), _int(data.get("step"), step_of_turn))
        elif etype == EventTypes.TOOL_RESULT:
            call_id = str(data.get("call_id"))
            if pending.pop(call_id, None) is None:
                orphans.pop(call_id, None)
    out: list[tuple[str, dict[str, Any]]] = []
    if compaction[0] is not None:
        out.append((EventTypes.COMPACTION_END, compaction_closer(compaction[0], committed=compaction[1])))
    for call_id, (turn, name, step) in orphans.items():
        out.append((EventTypes.TOOL_RESULT, error_result(turn, step, call_id, name, NOT_RECORDED_CODE, NOT_RECORDED_TEXT)))
    if open_turn is None:
        return out
    for call_id, (name, step) in pending.items():
        out.append((EventTypes.TOOL_RESULT, interrupted_result(open_turn, step, call_id, name)))
    if open_step is not None:
        out.append((EventTypes.STEP_END, {"turn": open_turn, "step": open_step}))
    out.append((EventTypes.TURN_END, {"turn": open_turn, "reason": {"kind": "interrupted"}}))
    return out


def _track_compaction(state: list[Any], etype: str, data: dict[str, Any]) -> None:
    if etype == EventTypes.COMPACTION_START and isinstance(data.get("compaction_id"), str):
        state[0], state[1] = data["compaction_id"], False
    elif etype == EventTypes.COMPACTION_END and data.get("compaction_id") == state[0]:
        state[0], state[1] = None, False
    elif etype == EventTypes.USER_MESSAGE and state[0] is not None:
        message = data.get("message")
        source = message.get("source") if isinstance(message, dict) else None
        if is_checkpoint_source(source) and source.get("compaction_id") == state[0]:  # type: ignore[union-attr]
            state[1] = True


def compaction_closer(compaction_id: str, *, committed: bool) -> dict[str, Any]:
    """``compaction/end`` data closing a compaction a crash left open."""
    if committed:
        return {"compaction_id": compaction_id, "repaired": True}
    return {"compaction_id": compaction_id, "error": {"code": INTERRUPTED_CODE, "message": COMPACTION_INTERRUPTED_TEXT}}


def _orphan(orphans: dict[str, tuple[int, str, int]], turn: int | None, pending: dict[str, tuple[str, int]]) -> None:
    """Calls still pending when their turn ended (or a new one began) are orphans."""
    if turn is not None:
        for call_id, (name, step) in pending.items():
            orphans.setdefault(call_id, (turn, name, step))
    pending.clear()


def interrupted_result(turn: int, step: int, call_id: str, name: str) -> dict[str, Any]:
    return error_result(turn, step, call_id, name, INTERRUPTED_CODE, INTERRUPTED_TEXT)


def error_result(turn: int, step: int, call_id: str, name: str, code: str, text: str) -> dict[str, Any]:
    """``tool/result`` data answering ``call_id`` with an error written by repair."""
    message = Message(
        id=f"repair-{call_id}",
        role="tool",
        content=(ToolResultBlock(tool_call_id=call_id, content=(TextBlock(text=text),), is_error=True),),
        source={"kind": "tool", "call_id": call_id},
    )
    return {
        "turn": turn,
        "step": step,
        "call_id": call_id,
        "name": name,
        "message": message_to_json(message),
        "error": {"code": code, "message": text},
    }


def _int(value: Any, default: int) -> int:
    return value if type(value) is int else default


def _content(message: Any) -> list[dict[str, Any]]:
    if isinstance(message, dict) and isinstance(message.get("content"), list):
        return [b for b in message["content"] if isinstance(b, dict)]
    return []
