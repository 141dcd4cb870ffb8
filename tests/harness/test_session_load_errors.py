"""Broken session logs give one-line errors naming file, line, seq and field;
``harness sessions list`` reports a broken session and lists the others."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import harness.sessions.store as store_module
from harness.cli.inspect import sessions_list, sessions_show
from harness.sessions import SessionStore
from hookspecs.errors import SessionFormatError


def header_line(session_id: str, created_at: float = 1.0) -> dict[str, Any]:
    return {"type": "session", "version": 1, "id": session_id, "created_at": created_at, "delegation_depth": 0}


def user_event(seq: int, message: Any) -> dict[str, Any]:
    return {"type": "user/message", "seq": seq, "time": 1, "data": {"turn": 1, "step": 0, "message": message}}


def good_message(text: str = "hello there", role: str = "user") -> dict[str, Any]:
    return {"id": "m1", "role": role, "content": [{"type": "text", "text": text}], "source": {"kind": "user"}}


def write_session(home: Path, session_id: str, events: list[dict[str, Any]], created_at: float = 1.0) -> Path:
    path = home / "sessions" / session_id / "session.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [header_line(session_id, created_at), *events]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def make_store(home: Path) -> SessionStore:
    return SessionStore(sessions_dir=home / "sessions", on_event=lambda s, e: None, now_ms=lambda: 0.0)


def good_session(home: Path) -> None:
    write_session(home, "good", [{"type": "turn/start", "seq": 0, "time": 1, "data": {"turn": 1}}, user_event(1, good_message())])


def listed(home: Path, capsys: pytest.CaptureFixture[str]) -> tuple[list[str], list[str]]:
    assert sessions_list(home, as_json=False) == 0
    captured = capsys.readouterr()
    return captured.out.splitlines(), captured.err.splitlines()


# --- sessions list ----------------------------------------------------------------------


def test_list_reports_a_directory_in_place_of_the_log(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good_session(tmp_path)
    (tmp_path / "sessions" / "broken" / "session.jsonl").mkdir(parents=True)
    out, err = listed(tmp_path, capsys)
    assert len(out) == 1 and out[0].startswith("good ") and "hello there" in out[0]
    assert err == ["harness: skipped sessions/broken/session.jsonl: not a regular file"]


def test_list_reports_an_unreadable_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    good_session(tmp_path)
    write_session(tmp_path, "locked", [])
    real = store_module.read_header

    def read_header(handle: Any, label: str) -> Any:
        if "/locked/" in label:  # a file mode cannot stop a root test runner
            raise PermissionError(13, "Permission denied", label)
        return real(handle, label)

    monkeypatch.setattr(store_module, "read_header", read_header)
    out, err = listed(tmp_path, capsys)
    assert [line.split()[0] for line in out] == ["good"]
    assert err == ["harness: skipped sessions/locked/session.jsonl: cannot read the session file: Permission denied"]


def test_list_reports_a_malformed_first_prompt(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good_session(tmp_path)
    write_session(tmp_path, "odd", [user_event(0, {**good_message(), "content": ["not a block"]})])
    out, err = listed(tmp_path, capsys)
    assert [line.split()[0] for line in out] == ["good"]
    assert len(err) == 1
    assert err[0].startswith("harness: skipped sessions/odd/session.jsonl:2: event seq 0 (user/message): field 'data.message'")


def test_store_list_logs_and_skips_broken_sessions(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    good_session(tmp_path)
    (tmp_path / "sessions" / "broken" / "session.jsonl").mkdir(parents=True)
    assert [s.id for s in make_store(tmp_path).list()] == ["good"]
    assert "sessions/broken/session.jsonl: not a regular file" in caplog.text


# --- loading ----------------------------------------------------------------------------

BAD_SHAPES = [
    ("data not an object", {"type": "user/message", "seq": 0, "time": 1, "data": "hi"}, "field 'data' must be a JSON object, got the string 'hi'"),
    ("message missing", {"type": "user/message", "seq": 0, "time": 1, "data": {"turn": 1}}, "field 'data.message' must be a JSON object, got null"),
    ("message a string", user_event(0, "hello"), "field 'data.message' must be a JSON object, got the string 'hello'"),
    ("content not blocks", user_event(0, {**good_message(), "content": ["x"]}), "field 'data.message': "),
    ("unknown role", user_event(0, good_message(role="wizard")), "field 'data.message': invalid value; expected one of 'user', 'assistant', 'tool' @ $.role"),
    ("role of another event", user_event(0, good_message(role="assistant")), "field 'data.message.role' must be 'user', got 'assistant'"),
    ("turn/end data a list", {"type": "turn/end", "seq": 0, "time": 1, "data": []}, "field 'data' must be a JSON object, got a list"),
]


@pytest.mark.parametrize(("event", "problem"), [(e, p) for _, e, p in BAD_SHAPES], ids=[n for n, _, _ in BAD_SHAPES])
def test_a_malformed_core_payload_refuses_the_load(tmp_path: Path, event: dict[str, Any], problem: str) -> None:
    write_session(tmp_path, "bad", [event, {"type": "turn/start", "seq": 1, "time": 1, "data": {"turn": 1}}])
    etype = event["type"]
    prefix = f"sessions/bad/session.jsonl:2: event seq 0 ({etype}): {problem}"
    store = make_store(tmp_path)
    for load in (store.read, store.open, lambda sid: sessions_show(tmp_path, sid, as_json=True)):
        with pytest.raises(SessionFormatError) as info:
            load("bad")
        assert info.value.message.startswith(prefix)
        assert "\n" not in info.value.message


def test_a_later_message_names_its_own_line(tmp_path: Path) -> None:
    assistant = {"type": "assistant/message", "seq": 1, "time": 1, "data": {"turn": 1, "step": 0, "message": good_message(role="tool")}}
    write_session(tmp_path, "bad", [user_event(0, good_message()), assistant])
    with pytest.raises(SessionFormatError, match=r"^sessions/bad/session.jsonl:3: event seq 1 \(assistant/message\): field 'data.message.role' must be 'assistant', got 'tool'$"):
        make_store(tmp_path).read("bad")


def test_plugin_payloads_are_not_judged(tmp_path: Path) -> None:
    write_session(tmp_path, "plugin", [{"type": "plugin/x", "seq": 0, "time": 1, "data": "free form", "ignorable": True}])
    _, events = make_store(tmp_path).read("plugin")
    assert [e.data for e in events] == ["free form"]


def test_show_of_a_directory_log_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "sessions" / "broken" / "session.jsonl").mkdir(parents=True)
    with pytest.raises(SessionFormatError, match=r"^sessions/broken/session.jsonl: not a regular file$"):
        sessions_show(tmp_path, "broken", as_json=True)


def test_a_line_nested_too_deeply_is_a_clear_error(tmp_path: Path) -> None:
    path = write_session(tmp_path, "deep", [])
    with open(path, "a") as handle:
        handle.write('{"type": "turn/start", "seq": 0, "time": 1, "data": ' + "[" * 100_000 + "]" * 100_000 + "}\n")
        handle.write(json.dumps({"type": "turn/start", "seq": 1, "time": 1, "data": {"turn": 1}}) + "\n")
    with pytest.raises(SessionFormatError, match=r"^sessions/deep/session.jsonl: a line is nested too deeply to load$"):
        make_store(tmp_path).read("deep")
