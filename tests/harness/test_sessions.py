"""Session logs: JSON-only data, event types, persistence and crash repair."""

from __future__ import annotations

import json
import logging
import os
import stat
import sys
from pathlib import Path
from typing import Any

import pytest

from harness.sessions import SessionStore
from harness.sessions.jsonl import read_log
from hookspecs import hookimpl
from hookspecs.errors import JsonDataError, SessionError, SessionFormatError
from hookspecs.values import AgentOptions, SessionHeader, create_user_message

from .helpers import new_root, scripted_host


def make_store(tmp_path: Path, seen: list[Any] | None = None) -> SessionStore:
    return SessionStore(
        sessions_dir=tmp_path / "sessions",
        on_event=lambda s, e: seen.append(e) if seen is not None else None,
        now_ms=lambda: 1000.0,
    )


def header(session_id: str = "s1", **kw: Any) -> SessionHeader:
    return SessionHeader(id=session_id, created_at=1.0, cwd="/w", **kw)


def test_seq_is_contiguous_and_equals_the_count(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    log = store.create(header())
    for i in range(5):
        event = log.append("turn/start", {"turn": i})
        assert event.seq == i
    assert log.seq == 5 == len(log.events)
    snapshot = log.events
    log.append("turn/end", {"turn": 4, "reason": {"kind": "completed"}})
    assert len(snapshot) == 5  # snapshots never move
    assert [e.seq for e in log.events_since(3)] == [3, 4, 5]


@pytest.mark.parametrize(
    "data, where",
    [
        ({"x": float("nan")}, "x"),
        ({"x": float("inf")}, "x"),
        ({1: "a"}, "key 1"),
        ({"x": (1, 2)}, "tuple"),
        ({"x": {"y": [1, {2, 3}]}}, "set"),
        ({"x": b"bytes"}, "bytes"),
    ],
)
def test_non_json_data_is_refused(tmp_path: Path, data: Any, where: str) -> None:
    log = make_store(tmp_path).create(header())
    with pytest.raises(JsonDataError) as info:
        log.append("turn/start", data)
    assert where in str(info.value)
    assert log.seq == 0  # nothing committed


def test_unknown_event_types_are_refused(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    log = store.create(header())
    with pytest.raises(SessionError, match="dsh_register_event_types"):
        log.append("plugin/thing", {})
    store.register_event_type("plugin/thing", ignorable=True)
    event = log.append("plugin/thing", {"a": 1})
    assert event.ignorable


def test_files_are_private(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    log = store.create(header())
    log.append("turn/start", {"turn": 1})
    path = store.path_for("s1")
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(path.parent).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(path.parent.parent).st_mode) == 0o700


def test_load_refuses_unknown_types_but_keeps_ignorable_ones(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    store.register_event_type("plugin/a", ignorable=False)
    store.register_event_type("plugin/b", ignorable=True)
    log = store.create(header())
    log.append("plugin/b", {})
    log.close()
    fresh = make_store(tmp_path)  # a host without the plugin
    _, events = fresh.read("s1")
    assert events[0].type == "plugin/b" and events[0].ignorable
    log2 = store.create(header("s2"))
    log2.append("plugin/a", {})
    log2.close()
    with pytest.raises(SessionFormatError, match=r"session.jsonl:2: unknown event type 'plugin/a'"):
        fresh.read("s2")


def test_a_garbled_middle_line_refuses_to_load(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    log = store.create(header())
    log.append("turn/start", {"turn": 1})
    log.append("turn/end", {"turn": 1, "reason": {"kind": "completed"}})
    log.close()
    path = store.path_for("s1")
    lines = path.read_text().splitlines(keepends=True)
    lines[1] = "{not json\n"
    path.write_text("".join(lines))
    with pytest.raises(SessionFormatError, match=r":2: not a JSON event line"):
        read_log(path, is_known=store.is_known_type)


def write_crashed_log(path: Path, *, torn: bool) -> list[str]:
    """A root log whose turn was cut off mid-tool by a crash."""
    call_block = {"type": "tool-call", "id": "c1", "name": "read", "arguments": "{}"}
    second_block = {"type": "tool-call", "id": "c2", "name": "grep", "arguments": "{}"}
    user = create_user_message("hi")
    lines = [
        {"type": "session", "version": 1, "id": "crashed", "created_at": 1.0, "delegation_depth": 0, "cwd": str(path.parent)},
        {"type": "turn/start", "seq": 0, "time": 1, "data": {"turn": 1}},
        {"type": "step/start", "seq": 1, "time": 1, "data": {"turn": 1, "step": 0}},
        {
            "type": "user/message",
            "seq": 2,
            "time": 1,
            "data": {"turn": 1, "step": 0, "message": {"id": user.id, "role": "user", "content": [{"type": "text", "text": "hi"}], "source": {"kind": "user"}}},
        },
        {
            "type": "assistant/message",
            "seq": 3,
            "time": 1,
            "data": {"turn": 1, "step": 0, "message": {"id": "a1", "role": "assistant", "content": [call_block, second_block], "source": {"kind": "model"}}},
        },
        {"type": "tool/call", "seq": 4, "time": 1, "data": {"turn": 1, "step": 0, "call_id": "c1", "name": "read", "arguments": "{}"}},
    ]
    text = "".join(json.dumps(line) + "\n" for line in lines)
    if torn:
        text += '{"type": "tool/result", "seq": 5, "ti'
    path.parent.mkdir(parents=True, mode=0o700)
    path.write_text(text)
    return [json.dumps(line) for line in lines[1:]]


async def test_resume_repairs_a_crashed_turn(tmp_path: Path) -> None:
    home = tmp_path / "home"
    path = home / "sessions" / "crashed" / "session.jsonl"
    committed = write_crashed_log(path, torn=True)
    script = "responses:\n  - repeat: true\n    reply: {text: 'resumed fine'}\n"
    seen: list[str] = []

    class Watcher:
        @hookimpl
        def dsh_session_event(self, session: Any, event: Any) -> None:
            seen.append(event.type)

    async with scripted_host(tmp_path, script, plugins=[("watch", Watcher())]) as (host, adapter):
        handle = await host.agents.resume("crashed", agent_options=AgentOptions(provider="scripted", model="m"))
        agent = handle.agent
        events = agent.session.events
        # every committed event survived, in place
        assert [e.seq for e in events[:5]] == [0, 1, 2, 3, 4]
        assert events[4].data["call_id"] == "c1"
        repaired = [(e.type, e.data.get("call_id"), e.data.get("error", {}).get("code")) for e in events[5:]]
        assert repaired == [
            ("tool/result", "c1", "INTERRUPTED"),
            ("tool/result", "c2", "INTERRUPTED"),
            ("step/end", None, None),
            ("turn/end", None, None),
        ]
        assert events[-1].data == {"turn": 1, "reason": {"kind": "interrupted"}}
        assert seen == ["tool/result", "tool/result", "step/end", "turn/end"]
        # the torn line is gone from disk and the log continues cleanly
        agent.followup(create_user_message("again"))
        await agent.when_idle()
        assert events[-1].type == "turn/end"
        assert agent.session.events[-1].data["turn"] == 2
        # the model saw a history with answered tool calls
        roles = [m.role for m in adapter.requests[0].messages]
        assert roles == ["user", "assistant", "tool", "tool", "user"]
        await handle.dispose()
    lines = path.read_text().splitlines()
    assert lines[1:6] == committed  # nothing committed was rewritten
    for line in lines:
        json.loads(line)


async def test_list_and_read_sessions(tmp_path: Path) -> None:
    async with scripted_host(tmp_path, "responses:\n  - repeat: true\n    reply: {text: ok}\n") as (host, _):
        agent = (await new_root(host)).agent
        agent.followup(create_user_message("summarise the repo please"))
        await agent.when_idle()
        summaries = host.sessions.list()
        assert [s.id for s in summaries] == [agent.id]
        assert summaries[0].title == "summarise the repo please"
        assert summaries[0].events == agent.session.seq
        _, events = host.sessions.read(agent.id)
        assert len(events) == agent.session.seq


def test_resume_of_a_clean_log_appends_nothing(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    log = store.create(header())
    log.append("turn/start", {"turn": 1})
    log.append("turn/end", {"turn": 1, "reason": {"kind": "completed"}})
    log.close()
    store.close("s1")
    again = make_store(tmp_path)
    reopened = again.open("s1")
    assert again.repair(reopened) == 0
    assert reopened.seq == 2


def test_a_closed_session_is_unlocked_even_when_the_checkpoint_code_cannot_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the checkpoint module loads at the first close, not with a new run's start:
    # failing to load it there must not leave the log open and the session locked
    store = make_store(tmp_path)
    log = store.create(header())
    log.append("turn/start", {"turn": 1})
    monkeypatch.setitem(sys.modules, "harness.sessions.checkpoint", None)  # import fails: ImportError
    with pytest.raises(ImportError):
        store.close("s1")
    monkeypatch.undo()
    assert store.get("s1") is None
    reopened = make_store(tmp_path).open("s1")  # not SESSION_LOCKED
    assert reopened.seq == 1


def test_logging_is_quiet_for_clean_logs(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    test_resume_of_a_clean_log_appends_nothing(tmp_path)
    assert not caplog.records
