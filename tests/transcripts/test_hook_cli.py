"""``harness shadow hook claude-code|codex`` as a subprocess: the Stop-hook answers."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest
import trio

from harness.transcripts.hook import state_path

from ..harness.openai.server import ScriptedServer
from .reviewer import FIXTURES, claude_transcript, harness, make_home, seq_of, structured, text

REPORT = {
    "status": "report",
    "verdict": "challenge",
    "content": "The agent says the test passes, but its own pytest run failed.",
}


@pytest.fixture
async def server(nursery: trio.Nursery) -> ScriptedServer:
    srv = ScriptedServer(default=text("nothing more"))
    await srv.start(nursery)
    return srv


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
    assert recorded["last_outcome"] == "report" and recorded["reviewed_lines"] == 10
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
    assert json.loads(state_path(home, "claude-code", "cc-1").read_text())["last_outcome"] == "not_rolled"


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
    assert run.returncode == 1 and run.stdout == b""
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
