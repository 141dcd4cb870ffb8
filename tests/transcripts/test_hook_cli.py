"""``harness shadow hook claude-code|codex`` as a subprocess: the Stop-hook
answers, one imported session per agent session, and the plugin's own
governance (enabled, budget, roll) deciding whether a review runs."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

import pytest

from harness.sessions.store import SessionStore
from harness.transcripts.hook import state_path

from ..harness.openai.server import ScriptedServer
from .reviewer import FIXTURES, claude_transcript, grow, harness, make_home, seq_of, structured

REPORT = {
    "status": "report",
    "verdict": "challenge",
    "content": "The agent says the test passes, but its own pytest run failed.",
}


def _stdin(transcript: Path, **extra: object) -> bytes:
    hook = {"session_id": "cc-1", "transcript_path": str(transcript), "cwd": "/nowhere", "hook_event_name": "Stop"}
    return json.dumps({"stop_hook_active": False, **hook, **extra}).encode()


async def test_a_report_blocks_the_stop_once(tmp_path: Path, server: ScriptedServer) -> None:
    home, profile = make_home(tmp_path, server.base_url)
    transcript = claude_transcript(tmp_path)
    server.add(structured({**REPORT, "refs": [seq_of(transcript, "tool/result", "toolu_2")]}))
    run = await harness("shadow", "hook", "claude-code", "--profile", str(profile), home=home, stdin=_stdin(transcript))
    assert run.returncode == 0, run.stderr.decode()
    answer = json.loads(run.stdout)
    assert answer["decision"] == "block"
    assert "pytest run failed" in answer["reason"] and "transcript line 8" in answer["reason"]
    state = state_path(home, "claude-code", "cc-1")
    assert stat.S_IMODE(state.stat().st_mode) == 0o600
    recorded = json.loads(state.read_text())
    assert recorded["last_outcome"] == "report" and recorded["import"]["lines"] == 10
    assert (home / "sessions" / recorded["import"]["session_id"] / "session.jsonl").is_file()
    requests = len(server.requests)
    # the agent continues; its next stop carries stop_hook_active: no review, it may stop
    guarded = await harness(
        "shadow",
        "hook",
        "claude-code",
        "--profile",
        str(profile),
        home=home,
        stdin=_stdin(transcript, stop_hook_active=True),
    )
    assert guarded.returncode == 0 and json.loads(guarded.stdout) == {}
    # the same transcript again without the flag: the state file says it was reviewed
    again = await harness(
        "shadow", "hook", "claude-code", "--profile", str(profile), home=home, stdin=_stdin(transcript)
    )
    assert again.returncode == 0 and json.loads(again.stdout) == {}
    assert len(server.requests) == requests
    assert json.loads(state.read_text())["last_skip"] == "unchanged"


async def test_a_quiet_outcome_lets_the_agent_stop(tmp_path: Path, server: ScriptedServer) -> None:
    home, profile = make_home(tmp_path, server.base_url)
    server.add(structured({"status": "silent", "content": ""}))
    transcript = claude_transcript(tmp_path)
    run = await harness("shadow", "hook", "claude-code", "--profile", str(profile), home=home, stdin=_stdin(transcript))
    assert run.returncode == 0, run.stderr.decode()
    assert json.loads(run.stdout) == {}
    assert json.loads(state_path(home, "claude-code", "cc-1").read_text())["last_outcome"] == "silent"


async def test_a_zero_probability_never_asks_the_reviewer(tmp_path: Path, server: ScriptedServer) -> None:
    home, profile = make_home(tmp_path, server.base_url, probability=0.0)
    transcript = claude_transcript(tmp_path)
    run = await harness("shadow", "hook", "claude-code", "--profile", str(profile), home=home, stdin=_stdin(transcript))
    assert run.returncode == 0, run.stderr.decode()
    assert json.loads(run.stdout) == {} and not server.requests
    recorded = json.loads(state_path(home, "claude-code", "cc-1").read_text())
    assert recorded["last_outcome"] == "skipped" and recorded["last_reason_code"] == "NOT_ROLLED"
    # nothing ran, so nothing was kept: no imported session, no mapping
    assert recorded["import"] is None and not _sessions(home)


async def test_a_disabled_shadow_is_quiet_without_a_request_or_a_session(
    tmp_path: Path, server: ScriptedServer
) -> None:
    home, profile = make_home(tmp_path, server.base_url, enabled=False)
    transcript = claude_transcript(tmp_path)
    run = await _hook(profile, home, transcript)
    assert json.loads(run.stdout) == {} and not server.requests
    recorded = json.loads(state_path(home, "claude-code", "cc-1").read_text())
    assert (recorded["last_outcome"], recorded["last_reason_code"]) == ("skipped", "SHADOW_DISABLED")
    assert not _sessions(home)


async def test_two_stops_on_a_growing_transcript_share_one_imported_session(
    tmp_path: Path, server: ScriptedServer
) -> None:
    home, profile = make_home(tmp_path, server.base_url)
    transcript = claude_transcript(tmp_path)
    server.add(structured({**REPORT, "refs": [seq_of(transcript, "tool/result", "toolu_2")]}))
    first = await _hook(profile, home, transcript)
    assert json.loads(first.stdout)["decision"] == "block"
    state = state_path(home, "claude-code", "cc-1")
    session_id = json.loads(state.read_text())["import"]["session_id"]
    held = _events(home, session_id)
    grow(transcript)
    server.add(structured({"status": "silent", "content": ""}))
    second = await _hook(profile, home, transcript)
    assert json.loads(second.stdout) == {}
    recorded = json.loads(state.read_text())
    assert recorded["import"]["session_id"] == session_id and recorded["import"]["lines"] == 15
    assert recorded["imported_lines"] == [11, 15] and recorded["last_outcome"] == "silent"
    assert _sessions(home) == {session_id}
    events = _events(home, session_id)
    assert events[: len(held)] == held
    lines = [data["transcript_line"] for _, _, data in events[len(held) :] if "transcript_line" in data]
    assert lines and min(lines) == 11  # only the new lines were imported
    # the second review saw the first one's relay in the same session
    assert len(server.requests) == 2
    # and `harness shadow trace` explains the run
    trace = await harness("shadow", "trace", session_id, "--json", home=home)
    assert trace.returncode == 0, trace.stderr.decode()
    traced = json.loads(trace.stdout)
    # both reviews are runs of the one imported session; the first one's report was relayed
    assert [r["root_session_id"] for r in traced["runs"]] == [session_id, session_id]
    assert [r["outcome"]["relayed"] for r in traced["runs"]] == [True, False]


async def test_a_budget_of_one_review_accumulates_across_stops(tmp_path: Path, server: ScriptedServer) -> None:
    home, profile = make_home(
        tmp_path, server.base_url, runtime="resultBatchWindowMs: 0, sessionShadowHardBudgetChars: 1"
    )
    transcript = claude_transcript(tmp_path)
    server.add(structured({**REPORT, "refs": [seq_of(transcript, "tool/result", "toolu_2")]}))
    first = await _hook(profile, home, transcript)
    assert json.loads(first.stdout)["decision"] == "block"
    requests = len(server.requests)
    grow(transcript)  # the agent worked on without a new user message: the same budget window
    second = await _hook(profile, home, transcript)
    assert json.loads(second.stdout) == {} and len(server.requests) == requests
    recorded = json.loads(state_path(home, "claude-code", "cc-1").read_text())
    assert (recorded["last_outcome"], recorded["last_reason_code"]) == ("skipped", "BUDGET_EXHAUSTED")
    # the lines are in the imported session all the same: the next stop continues after them
    assert recorded["import"]["lines"] == 15 and recorded["last_review_session"] == recorded["import"]["session_id"]
    # a new user prompt opens a new budget window, as the plugin's rules say
    grow(transcript, [_user("Now add a test."), *_tool_turn("toolu_20", "pytest -q", "2 passed")])
    server.add(structured({"status": "silent", "content": ""}))
    third = await _hook(profile, home, transcript)
    assert json.loads(third.stdout) == {} and len(server.requests) == requests + 1
    assert json.loads(state_path(home, "claude-code", "cc-1").read_text())["last_outcome"] == "silent"


async def test_a_rewritten_transcript_starts_a_new_imported_session(tmp_path: Path, server: ScriptedServer) -> None:
    home, profile = make_home(tmp_path, server.base_url)
    transcript = claude_transcript(tmp_path)
    server.add(structured({"status": "silent", "content": ""}))
    await _hook(profile, home, transcript)
    state = state_path(home, "claude-code", "cc-1")
    old = json.loads(state.read_text())["import"]["session_id"]
    lines = transcript.read_text().splitlines()
    transcript.write_text("\n".join([lines[0], lines[1].replace("failing", "passing"), *lines[2:]]) + "\n")
    server.add(structured({"status": "silent", "content": ""}))
    run = await _hook(profile, home, transcript)
    assert json.loads(run.stdout) == {}
    recorded = json.loads(state.read_text())
    assert recorded["import"]["session_id"] != old and "rewritten" in recorded["restarted"]
    assert _sessions(home) == {old, recorded["import"]["session_id"]}  # the old one is kept, not continued


def _store(home: Path) -> SessionStore:
    return SessionStore(sessions_dir=home / "sessions", on_event=lambda _l, _e: None, now_ms=lambda: 0.0)


def _user(text: str) -> dict[str, Any]:
    return {"type": "user", "sessionId": "cc-1", "cwd": "/home/u/proj", "message": {"role": "user", "content": text}}


def _tool_turn(call_id: str, command: str, output: str) -> list[dict[str, Any]]:
    use = {"type": "tool_use", "id": call_id, "name": "Bash", "input": {"command": command}}
    result = {"type": "tool_result", "tool_use_id": call_id, "content": output}
    return [
        {"type": "assistant", "sessionId": "cc-1", "message": {"role": "assistant", "model": "m", "content": [use]}},
        {"type": "user", "sessionId": "cc-1", "message": {"role": "user", "content": [result]}},
        {"type": "assistant", "sessionId": "cc-1", "message": {"role": "assistant", "model": "m", "content": "Done."}},
    ]


def _sessions(home: Path) -> set[str]:
    """The root sessions (a reviewer's child session is not an imported one)."""
    if not (home / "sessions").is_dir():
        return set()
    return {s.id for s in _store(home).list() if s.parent_session is None}


def _events(home: Path, session_id: str) -> list[Any]:
    store = _store(home)
    return [(e.seq, e.type, e.data) for e in store.read(session_id)[1]]


async def _hook(profile: Path, home: Path, transcript: Path) -> Any:
    run = await harness("shadow", "hook", "claude-code", "--profile", str(profile), home=home, stdin=_stdin(transcript))
    assert run.returncode == 0, run.stderr.decode()
    return run


async def test_codex_stop_hook_reviews_the_rollout(tmp_path: Path, server: ScriptedServer) -> None:
    home, profile = make_home(tmp_path, server.base_url)
    server.add(structured({"status": "not_relevant", "content": ""}))
    stdin = json.dumps(
        {
            "session_id": "cx-1",
            "turn_id": "t1",
            "transcript_path": str(FIXTURES / "codex-small.jsonl"),
            "cwd": "/nowhere",
            "hook_event_name": "Stop",
            "stop_hook_active": False,
            "last_assistant_message": "Fixed",
            "model": "gpt-x",
            "permission_mode": "default",
        }
    ).encode()
    run = await harness("shadow", "hook", "codex", "--profile", str(profile), home=home, stdin=stdin)
    assert run.returncode == 0, run.stderr.decode()
    assert json.loads(run.stdout) == {} and len(server.requests) == 1


@pytest.mark.parametrize(
    ("stdin", "error"),
    [
        (b"not json", "harness shadow hook: stdin: the hook input is not a JSON object"),
        (b'{"transcript_path": "x"}', "harness shadow hook: stdin: field 'session_id' is missing"),
    ],
)
async def test_bad_hook_input_is_one_line_and_a_non_blocking_error(
    tmp_path: Path, server: ScriptedServer, stdin: bytes, error: str
) -> None:
    home, profile = make_home(tmp_path, server.base_url)
    run = await harness("shadow", "hook", "claude-code", "--profile", str(profile), home=home, stdin=stdin)
    # exit 0 with {}: the agent stops as usual (exit 2 would block the stop)
    assert run.returncode == 0 and json.loads(run.stdout) == {}
    assert run.stderr.decode() == error + "\n"


async def test_subagent_stop_reviews_the_subagent_transcript_with_its_own_state(
    tmp_path: Path, server: ScriptedServer
) -> None:
    home, profile = make_home(tmp_path, server.base_url)
    server.add(structured({"status": "silent", "content": ""}))
    main = tmp_path / "main.jsonl"
    main.write_text("not json at all\n")  # never read: the subagent's own transcript is
    stdin = _stdin(
        main,
        hook_event_name="SubagentStop",
        agent_id="a93c",
        agent_transcript_path=str(claude_transcript(tmp_path)),
    )
    run = await harness("shadow", "hook", "claude-code", "--profile", str(profile), home=home, stdin=stdin)
    assert run.returncode == 0, run.stderr.decode()
    assert json.loads(run.stdout) == {} and len(server.requests) == 1
    assert json.loads(state_path(home, "claude-code", "cc-1-a93c").read_text())["last_outcome"] == "silent"
    assert not state_path(home, "claude-code", "cc-1").exists()
