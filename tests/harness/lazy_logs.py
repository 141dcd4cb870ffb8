"""Session logs for the resume-from-checkpoint tests: real files written by
the real store, turns shaped as the host and the importers write them."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

from harness.sessions import SessionStore
from harness.sessions.log import SessionLog
from hookspecs.values import SessionHeader, create_user_message, message_to_json


def store_at(home: Path) -> SessionStore:
    ticks = itertools.count(1)
    return SessionStore(
        sessions_dir=home / "sessions", on_event=lambda _log, _event: None, now_ms=lambda: float(next(ticks))
    )


def turn_events(turn: int, pad: int = 0, *, route: bool = False) -> list[tuple[str, dict[str, Any]]]:
    """One finished tool-using turn: ``(type, data)`` in append order."""
    where = {"turn": turn, "step": 0}
    call = f"call-{turn}"
    user = message_to_json(create_user_message(f"do task {turn} " + "u" * pad))
    asked = {
        "id": f"a-{turn}",
        "role": "assistant",
        "content": [{"id": call, "name": "read", "arguments": "{}", "type": "tool-call"}],
        "source": {"kind": "assistant"},
    }
    result = {
        "id": f"r-{turn}",
        "role": "tool",
        "content": [{"tool_call_id": call, "content": [{"text": "r" * pad, "type": "text"}], "type": "tool-result"}],
        "source": {"kind": "tool", "call_id": call},
    }
    out: list[tuple[str, dict[str, Any]]] = [
        ("turn/start", {"turn": turn}),
        ("step/start", dict(where)),
        ("user/message", {**where, "message": user}),
    ]
    if route:
        out.append(("request/context", {"provider": "scripted", "model": "m"}))
    out += [
        ("assistant/message", {**where, "message": asked}),
        ("tool/call", {**where, "call_id": call, "name": "read", "arguments": "{}"}),
        ("tool/result", {**where, "call_id": call, "name": "read", "message": result}),
        ("step/end", dict(where)),
        ("turn/end", {"turn": turn, "reason": {"kind": "completed"}}),
    ]
    return out


def append_turns(log: SessionLog, first: int, count: int, pad: int = 0) -> None:
    for turn in range(first, first + count):
        for etype, data in turn_events(turn, pad, route=turn == 1):
            log.append(etype, data)


def write_log(home: Path, session_id: str, turns: int, pad: int = 0) -> Path:
    """A closed log of ``turns`` finished turns (closing it records its checkpoint)."""
    store = store_at(home)
    log = store.create(SessionHeader(id=session_id, created_at=1.0))
    append_turns(log, 1, turns, pad)
    store.close(session_id)
    return home / "sessions" / session_id / "session.jsonl"
