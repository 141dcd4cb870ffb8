"""deliberationChars and child tool telemetry (docs/shadow-mind.md §7 "Diagnostics")."""

from __future__ import annotations

from typing import Any

from hookspecs.values.events import SessionEvent
from shadow_mind_plugin.governance.telemetry import ToolTelemetry, deliberation_chars, tool_telemetry


def log(*items: tuple[str, Any]) -> list[SessionEvent]:
    return [SessionEvent(type=t, seq=i, time=0.0, data=d) for i, (t, d) in enumerate(items)]


def chunk(kind: str, text: str | None = None) -> tuple[str, Any]:
    payload: dict[str, Any] = {"type": kind}
    if text is not None:
        payload["text"] = text
    return ("assistant/chunk", {"turn": 1, "step": 0, "chunk": payload})


def call(call_id: str, name: str) -> tuple[str, Any]:
    return ("tool/call", {"turn": 1, "step": 0, "call_id": call_id, "name": name, "arguments": "{}"})


def result(call_id: str, name: str, code: str | None = None) -> tuple[str, Any]:
    data: dict[str, Any] = {"turn": 1, "step": 0, "call_id": call_id, "name": name, "message": {}}
    if code is not None:
        data["error"] = {"code": code, "message": "bad"}
    return ("tool/result", data)


def test_deliberation_counts_text_and_reasoning_before_structured_output() -> None:
    events = log(
        chunk("reasoning-delta", "think"),
        chunk("text-delta", "plan"),
        chunk("tool-call-delta"),
        chunk("usage"),
        call("c1", "read"),
        chunk("text-delta", "more"),
        call("c2", "structured_output"),
        chunk("text-delta", "after the answer"),
        call("c3", "structured_output"),
    )
    assert deliberation_chars(events) == len("think") + len("plan") + len("more")


def test_deliberation_counts_everything_without_structured_output() -> None:
    events = log(chunk("text-delta", "ab"), call("c1", "read"), chunk("reasoning-delta", "cd"))
    assert deliberation_chars(events) == 4


def test_deliberation_counts_utf16_units() -> None:
    assert deliberation_chars(log(chunk("text-delta", "😀é"))) == 3


def test_deliberation_ignores_other_events_and_malformed_chunks() -> None:
    events = log(
        ("assistant/message", {"message": {"content": [{"type": "text", "text": "not counted"}]}}),
        ("assistant/chunk", {"chunk": "nonsense"}),
        chunk("text-delta"),
        chunk("text-delta", "ok"),
    )
    assert deliberation_chars(events) == 2
    assert deliberation_chars([]) == 0


def test_tool_telemetry_counts_and_pairs() -> None:
    events = log(
        call("c1", "read"),
        result("c1", "read"),
        call("c2", "grep"),
        result("c2", "grep", "INVALID_ARGS"),
        call("c3", "read"),
        result("c3", "read", "NOT_FOUND"),
        call("c4", "structured_output"),
        result("c4", "structured_output", "INVALID_ARGS"),
        call("c5", "structured_output"),
        result("c5", "structured_output"),
        result("ghost", "read", "INVALID_ARGS"),
    )
    telemetry = tool_telemetry(events)
    assert telemetry == ToolTelemetry(
        calls=5,
        by_name={"read": 2, "grep": 1, "structured_output": 2},
        invalid_args=3,
        invalid_args_by_tool={"grep": 1, "structured_output": 1, "(unpaired)": 1},
    )


def test_tool_telemetry_pairs_by_call_id_not_result_name() -> None:
    events = log(call("c1", "glob"), result("c1", "something-else", "INVALID_ARGS"), result("c9", "x", "INVALID_ARGS"))
    assert tool_telemetry(events).invalid_args_by_tool == {"glob": 1, "(unpaired)": 1}


def test_tool_telemetry_empty() -> None:
    assert tool_telemetry([]) == ToolTelemetry(calls=0, by_name={}, invalid_args=0, invalid_args_by_tool={})
