"""Nothing lost: one writer per session, complete writes, every event encodable,
every tool call answered by exactly one result."""

from __future__ import annotations

import errno
import json
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import trio

from harness.sessions import SessionStore
from harness.sessions.jsonl import read_log
from hookspecs.errors import SessionError
from hookspecs.values import AgentOptions, SessionHeader, ToolResult, create_user_message

from .helpers import ToolsPlugin, new_root, no_args_tool, poll_until, scripted_host, scripted_profile

REPO = Path(__file__).resolve().parents[2]


def make_store(tmp_path: Path) -> SessionStore:
    return SessionStore(sessions_dir=tmp_path / "sessions", on_event=lambda s, e: None, now_ms=lambda: 1000.0)


def header(session_id: str = "s1") -> SessionHeader:
    return SessionHeader(id=session_id, created_at=1.0, cwd="/w")


def loads_cleanly(store: SessionStore, session_id: str) -> list[Any]:
    loaded = read_log(store.path_for(session_id), is_known=store.is_known_type)
    assert not loaded.torn_tail
    return loaded.events


def answered(events: Any) -> None:
    """Every tool call has exactly one result."""
    calls = [e.data["call_id"] for e in events if e.type == "tool/call"]
    results = [e.data["call_id"] for e in events if e.type == "tool/result"]
    assert sorted(calls) == sorted(results) and len(set(results)) == len(results)


# --- the CLI in real processes ------------------------------------------------------------


def harness_cmd(profile: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "harness", "run", "--profile", str(profile), "--cwd", str(REPO), *args]


def harness_env(home: Path) -> dict[str, str]:
    env = {**os.environ, "DSH_HOME": str(home)}
    env.pop("DSH_PROFILE", None)
    return env


def run_cli(profile: Path, home: Path, *args: str, **kw: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        harness_cmd(profile, *args), env=harness_env(home), capture_output=True, text=True, timeout=60, **kw
    )


async def arun_cli(profile: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    with trio.fail_after(60):
        done = await trio.run_process(
            harness_cmd(profile, *args), env=harness_env(home), capture_stdout=True, capture_stderr=True, check=False
        )
    return subprocess.CompletedProcess(done.args, done.returncode, done.stdout.decode(), done.stderr.decode())


async def start_holder(profile: Path, home: Path, session_id: str) -> trio.Process:
    """A ``harness run`` that keeps ``session_id`` open: its model streams
    "working", then hangs until the turn is cancelled."""
    holder = await trio.lowlevel.open_process(
        harness_cmd(profile, "--session", session_id, "hold it open"),
        env=harness_env(home),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    log = home / "sessions" / session_id / "session.jsonl"
    await poll_until(
        lambda: b'"text":"working"' in log.read_bytes() or holder.poll() is not None, what="the holder's first answer"
    )
    assert holder.returncode is None
    return holder


async def stop(holder: trio.Process) -> None:
    if holder.returncode is None:
        holder.kill()
    with trio.fail_after(60):
        await holder.wait()


HANG_SCRIPT = """\
responses:
  - match: {last_user_contains: hold}
    reply: {text: working, hang: true}
  - repeat: true
    reply: {text: ok}
"""


async def test_a_second_process_is_refused_while_a_session_is_open(tmp_path: Path) -> None:
    home = tmp_path / "home"
    profile = scripted_profile(tmp_path, HANG_SCRIPT)
    first = await arun_cli(profile, home, "--json", "start")
    assert first.returncode == 0, first.stderr
    session_id = json.loads(first.stdout)["session_id"]
    holder = await start_holder(profile, home, session_id)
    try:
        second = await arun_cli(profile, home, "--session", session_id, "write too")
        assert second.returncode == 2, second.stderr
        assert second.stderr == f"harness: session {session_id} is open in another process (pid {holder.pid})\n"
        lock = home / "sessions" / session_id / "session.lock"
        assert lock.read_text().strip() == str(holder.pid)
        assert lock.stat().st_mode & 0o777 == 0o600
        holder.send_signal(signal.SIGINT)  # abort the hanging turn; the holder exits cleanly
        with trio.fail_after(60):
            assert await holder.wait() == 130
    finally:
        await stop(holder)
    store = make_store(home)
    events = loads_cleanly(store, session_id)
    assert [e.seq for e in events] == list(range(len(events)))
    ends = [e.data["reason"]["kind"] for e in events if e.type == "turn/end"]
    assert ends == ["completed", "aborted"]
    # the lock went with its holder: the session opens again
    third = await arun_cli(profile, home, "--session", session_id, "--json", "again")
    assert third.returncode == 0, third.stderr
    assert [e.data["reason"]["kind"] for e in loads_cleanly(store, session_id) if e.type == "turn/end"] == [
        "completed",
        "aborted",
        "completed",
    ]


async def test_a_killed_holder_leaves_the_session_openable(tmp_path: Path) -> None:
    home = tmp_path / "home"
    profile = scripted_profile(tmp_path, HANG_SCRIPT)
    first = await arun_cli(profile, home, "--json", "start")
    session_id = json.loads(first.stdout)["session_id"]
    holder = await start_holder(profile, home, session_id)
    await stop(holder)
    # a stale lock file (pid of a dead process) does not block: the OS lock died with it
    after = await arun_cli(profile, home, "--session", session_id, "--json", "again")
    assert after.returncode == 0, after.stderr
    kinds = [e.data["reason"]["kind"] for e in loads_cleanly(make_store(home), session_id) if e.type == "turn/end"]
    assert kinds == ["completed", "interrupted", "completed"]


def test_two_stores_in_one_process_are_one_writer(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    log = store.create(header())
    log.append("turn/start", {"turn": 1})
    other = make_store(tmp_path)
    with pytest.raises(SessionError, match=rf"^session s1 is open in another host of this process \(pid {os.getpid()}\)$"):
        other.open("s1")
    store.close("s1")
    reopened = other.open("s1")
    assert reopened.seq == 1
    other.close("s1")


def test_opening_a_missing_session_creates_nothing(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    with pytest.raises(SessionError, match="session file not found"):
        store.open("nope")
    assert not (tmp_path / "sessions" / "nope").exists()


def test_a_discarded_session_leaves_no_directory(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    store.create(header())
    store.discard("s1")
    assert not (tmp_path / "sessions" / "s1").exists()


# --- short and failed writes ----------------------------------------------------------------


def test_short_writes_are_completed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = make_store(tmp_path)
    log = store.create(header())
    real_write = os.write
    calls: list[int] = []

    def half_write(fd: int, data: bytes) -> int:
        calls.append(len(data))
        return real_write(fd, bytes(data[: max(1, len(data) // 2)]))

    monkeypatch.setattr(os, "write", half_write)
    for turn in range(3):
        log.append("turn/start", {"turn": turn, "pad": "x" * 40})
    monkeypatch.undo()
    assert len(calls) > 3  # each line took several writes
    store.close("s1")
    assert [e.data["turn"] for e in loads_cleanly(store, "s1")] == [0, 1, 2]


def test_a_failed_write_truncates_to_the_last_line_and_names_the_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = make_store(tmp_path)
    log = store.create(header())
    log.append("turn/start", {"turn": 1})
    size = store.path_for("s1").stat().st_size
    real_write = os.write
    state = {"writes": 0}

    def disk_fills(fd: int, data: bytes) -> int:
        state["writes"] += 1
        if state["writes"] == 1:
            return real_write(fd, bytes(data[:10]))  # part of the line gets out...
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))  # ...then the disk is full

    monkeypatch.setattr(os, "write", disk_fills)
    with pytest.raises(SessionError) as info:
        log.append("step/start", {"turn": 1, "step": 0})
    monkeypatch.undo()
    assert info.value.code == "SESSION_WRITE_FAILED"
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith("session s1: cannot append to sessions/s1/session.jsonl: No space left on device")
    assert log.seq == 1  # nothing committed in memory
    assert store.path_for("s1").stat().st_size == size  # nor on disk
    # the live log refuses further appends (its file may no longer match it)
    with pytest.raises(SessionError, match="cannot append"):
        log.append("step/start", {"turn": 1, "step": 0})
    store.close("s1")
    assert [e.type for e in loads_cleanly(store, "s1")] == ["turn/start"]


def test_a_failed_fsync_is_a_session_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = make_store(tmp_path)
    log = store.create(header())
    log.append("turn/start", {"turn": 1})

    def fails(fd: int) -> None:
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    monkeypatch.setattr(os, "fsync", fails)
    with pytest.raises(SessionError, match=r"^session s1: cannot sync sessions/s1/session.jsonl: Input/output error$"):
        store.close("s1")
    monkeypatch.undo()
    assert make_store(tmp_path).open("s1").seq == 1  # closed despite the error: the lock is free
    again = make_store(tmp_path).create(header("s2"))
    again.append("turn/start", {"turn": 1})
    monkeypatch.setattr(os, "fsync", fails)
    with pytest.raises(SessionError, match="cannot sync") as info:
        again.sync()
    assert info.value.code == "SESSION_WRITE_FAILED"
    with pytest.raises(SessionError, match="cannot sync"):
        again.append("turn/end", {"turn": 1})  # the failure is sticky
    again.close()  # already reported: closing does not raise it again


def _limit_file_size(limit: int) -> Any:
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return apply


def test_a_full_disk_ends_the_run_with_one_line_and_the_session_resumes(tmp_path: Path) -> None:
    home = tmp_path / "home"
    profile = scripted_profile(tmp_path, "responses:\n  - repeat: true\n    reply: {text: 'a fairly long answer, twice over'}\n")
    first = run_cli(profile, home, "--json", "start")
    assert first.returncode == 0, first.stderr
    session_id = json.loads(first.stdout)["session_id"]
    log = home / "sessions" / session_id / "session.jsonl"
    size = log.stat().st_size
    # room for a few lines of the next turn; a line crossing the limit is cut short (EFBIG after)
    full = run_cli(profile, home, "--session", session_id, "x" * 300, preexec_fn=_limit_file_size(size + 120))
    assert full.returncode == 2, full.stderr
    assert "Traceback" not in full.stderr
    (line,) = full.stderr.strip().splitlines()
    assert line.startswith(f"harness: session {session_id}: cannot append to sessions/{session_id}/session.jsonl: ")
    raw = log.read_bytes()
    assert raw.endswith(b"\n") and len(raw) <= size + 120
    # the session loads and resumes; the cut-off turn is closed as interrupted
    again = run_cli(profile, home, "--session", session_id, "--json", "again")
    assert again.returncode == 0, again.stderr
    events = loads_cleanly(make_store(home), session_id)
    assert [e.data["reason"]["kind"] for e in events if e.type == "turn/end"] == ["completed", "interrupted", "completed"]


# --- undecodable names and unanswered calls --------------------------------------------------


GLOB_SCRIPT = """\
responses:
  - reply:
      tool_calls:
        - {name: glob, arguments: {pattern: "*.txt"}, id: g1}
        - {name: read, arguments: {path: "lone-\\ud800.txt"}, id: r1}
  - reply: {text: done}
"""


async def test_undecodable_file_names_are_escaped_and_every_call_answered(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    os.close(os.open(os.fsencode(work) + b"/caf\xe9.txt", os.O_WRONLY | os.O_CREAT, 0o600))
    (work / "plain.txt").write_text("plain")
    async with scripted_host(tmp_path, GLOB_SCRIPT, workspace=work) as (host, adapter):
        agent = (await new_root(host)).agent
        agent.followup(create_user_message("list the text files"))
        await agent.when_idle()
        events = agent.session.events
        ends = [e.data["reason"] for e in events if e.type == "turn/end"]
        assert ends == [{"kind": "completed"}]
        answered(events)
        results = {e.data["call_id"]: e.data for e in events if e.type == "tool/result"}
        glob_text = results["g1"]["message"]["content"][0]["content"][0]["text"]
        assert glob_text == "caf\\xe9.txt\nplain.txt"
        (call,) = [e.data for e in events if e.type == "tool/call" and e.data["call_id"] == "r1"]
        assert "lone-\\ud800.txt" in call["arguments"]
        assert results["r1"]["error"]["code"]
        # the model's next request carries the same escaped text the log holds
        history = adapter.requests[1].messages
        tool_texts = [m.content[0].content[0].text for m in history if m.role == "tool"]
        assert tool_texts[0] == glob_text
        for message in history:
            repr(message).encode("utf-8")  # no lone surrogates reach the model
    loaded = read_log(tmp_path / "home" / "sessions" / agent.id / "session.jsonl", is_known=lambda t: True)
    assert [e.data for e in loaded.events] == [e.data for e in events]


async def _unrecordable_meta(args: dict[str, Any], ctx: Any) -> ToolResult:
    return ToolResult.text("wrote it", meta={"span": (1, 2)})  # a tuple is not JSON


async def test_a_result_that_cannot_be_appended_is_still_answered(tmp_path: Path) -> None:
    script = "responses:\n  - reply: {tool_calls: [{name: badmeta, arguments: {}, id: b1}]}\n  - reply: {text: ok}\n"
    async with scripted_host(tmp_path, script, plugins=[("bad", ToolsPlugin(no_args_tool("badmeta", _unrecordable_meta)))]) as (host, adapter):
        agent = (await new_root(host)).agent
        agent.followup(create_user_message("go"))
        await agent.when_idle()
        events = agent.session.events
        assert [e.data["reason"] for e in events if e.type == "turn/end"] == [{"kind": "completed"}]
        answered(events)
        (result,) = [e.data for e in events if e.type == "tool/result"]
        assert result["error"]["code"] == "RESULT_NOT_RECORDED"
        assert "meta.span" in result["error"]["message"]
        assert [m.role for m in adapter.requests[1].messages] == ["user", "assistant", "tool"]


def write_orphaned_log(path: Path) -> None:
    """An older host's log: turn 1 ended INTERNAL with a call left unanswered."""
    call = {"type": "tool-call", "id": "c1", "name": "glob", "arguments": "{}"}

    def msg(mid: str, role: str, content: list[Any]) -> dict[str, Any]:
        return {"id": mid, "role": role, "content": content, "source": {"kind": "user" if role == "user" else "model"}}

    lines: list[dict[str, Any]] = [
        {"type": "session", "version": 1, "id": "old", "created_at": 1.0, "delegation_depth": 0, "cwd": str(path.parent)},
        {"type": "turn/start", "data": {"turn": 1}},
        {"type": "step/start", "data": {"turn": 1, "step": 0}},
        {"type": "user/message", "data": {"turn": 1, "step": 0, "message": msg("u1", "user", [{"type": "text", "text": "hi"}])}},
        {"type": "assistant/message", "data": {"turn": 1, "step": 0, "message": msg("a1", "assistant", [call])}},
        {"type": "tool/call", "data": {"turn": 1, "step": 0, "call_id": "c1", "name": "glob", "arguments": "{}"}},
        {"type": "step/end", "data": {"turn": 1, "step": 0}},
        {"type": "turn/end", "data": {"turn": 1, "reason": {"kind": "error", "error": {"message": "boom", "code": "INTERNAL"}}}},
        {"type": "turn/start", "data": {"turn": 2}},
        {"type": "step/start", "data": {"turn": 2, "step": 0}},
        {"type": "user/message", "data": {"turn": 2, "step": 0, "message": msg("u2", "user", [{"type": "text", "text": "and?"}])}},
        {"type": "assistant/message", "data": {"turn": 2, "step": 0, "message": msg("a2", "assistant", [{"type": "text", "text": "hm"}])}},
        {"type": "step/end", "data": {"turn": 2, "step": 0}},
        {"type": "turn/end", "data": {"turn": 2, "reason": {"kind": "completed"}}},
    ]
    for seq, line in enumerate(lines[1:]):
        line.update(seq=seq, time=1)
    path.parent.mkdir(parents=True, mode=0o700)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


async def test_resume_answers_a_call_an_older_host_left_orphaned(tmp_path: Path) -> None:
    path = tmp_path / "home" / "sessions" / "old" / "session.jsonl"
    write_orphaned_log(path)
    committed = path.read_bytes()
    script = "responses:\n  - repeat: true\n    reply: {text: fine}\n"
    async with scripted_host(tmp_path, script) as (host, adapter):
        handle = await host.agents.resume("old", agent_options=AgentOptions(provider="scripted", model="m"))
        events = handle.agent.session.events
        assert len(events) == 14
        (repair,) = events[13:]
        assert repair.type == "tool/result"
        assert repair.data["call_id"] == "c1" and repair.data["turn"] == 1 and repair.data["step"] == 0
        assert repair.data["error"]["code"] == "RESULT_NOT_RECORDED"
        answered(events)
        handle.agent.followup(create_user_message("next"))
        await handle.agent.when_idle()
        # the result sits right after the call it answers, where OpenAI-style APIs want it
        history = adapter.requests[0].messages
        assert [m.role for m in history] == ["user", "assistant", "tool", "user", "assistant", "user"]
        assert history[2].content[0].tool_call_id == "c1"
        await handle.dispose()
    assert path.read_bytes().startswith(committed)  # appended, never rewritten
