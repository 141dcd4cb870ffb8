"""``harness shadow review`` as a subprocess against a loopback OpenAI-compatible reviewer."""

from __future__ import annotations

import json
import os
from pathlib import Path

from ..harness.openai.server import ScriptedServer
from .reviewer import claude_transcript, grow, harness, make_home, seq_of, structured


async def test_a_report_names_its_transcript_lines(tmp_path: Path, server: ScriptedServer) -> None:
    home, profile = make_home(tmp_path, server.base_url)
    transcript = claude_transcript(tmp_path)
    failed = seq_of(transcript, "tool/result", "toolu_2")
    report = {
        "status": "report",
        "verdict": "challenge",
        "severity": 0.9,
        "refs": [failed],
        "content": "The agent says the test passes, but its own pytest run failed.",
    }
    server.add(structured(report))
    run = await harness("shadow", "review", str(transcript), "--profile", str(profile), "--json", home=home)
    assert run.returncode == 1, run.stderr.decode()
    out = json.loads(run.stdout)
    assert out["outcome"] == "report" and out["verdict"] == "challenge"
    assert "pytest run failed" in out["report"]
    assert out["refs"] == [{"seq": failed, "type": "tool/result", "transcript_line": 8}]
    assert out["transcript"]["format"] == "claude-code"
    # the imported transcript was rendered to the reviewer; the mirror root asked no model
    prompt = json.dumps(server.requests[0].json())
    assert "Bash error" in prompt and "Done: the test passes now." in prompt
    assert "secret plan" not in prompt  # thinking is never imported
    assert len(server.requests) == 1
    # the run can be traced like any other
    trace = await harness("shadow", "trace", out["session_id"], "--json", home=home)
    assert trace.returncode == 0, trace.stderr.decode()
    assert out["run_id"] in trace.stdout.decode()
    # the text form renders each ref as its transcript line; the same transcript
    # is reviewed in its one imported session again (nothing new to append)
    server.add(structured(report))
    again = await harness("shadow", "review", str(transcript), "--profile", str(profile), home=home)
    assert again.returncode == 1, again.stderr.decode()
    lines = again.stdout.decode().splitlines()
    assert lines[0].endswith(f"(10 lines, none new; session {out['session_id']}): report (challenge)")
    assert f"  ref seq {failed}: transcript line 8 (tool/result)" in lines


async def test_a_reviewer_without_an_answer_fails_the_run(tmp_path: Path, server: ScriptedServer) -> None:
    home, profile = make_home(tmp_path, server.base_url)
    run = await harness(
        "shadow", "review", str(claude_transcript(tmp_path)), "--profile", str(profile), "--json", home=home
    )
    assert run.returncode == 3, run.stderr.decode()
    out = json.loads(run.stdout)
    assert out["outcome"] == "failed" and out["reason_code"]


async def test_a_quiet_outcome_exits_zero(tmp_path: Path, server: ScriptedServer) -> None:
    home, profile = make_home(tmp_path, server.base_url)
    server.add(structured({"status": "silent", "content": ""}))
    workspace = tmp_path / "proj"
    workspace.mkdir()
    transcript = claude_transcript(tmp_path, workspace)
    cwd = ("--cwd", str(workspace))
    run = await harness("shadow", "review", str(transcript), "--profile", str(profile), *cwd, "--json", home=home)
    assert run.returncode == 0, run.stderr.decode()
    out = json.loads(run.stdout)
    assert out["outcome"] == "silent" and out["report"] is None and out["refs"] == []
    # the reviewer's tools work in the directory --cwd names; the session keeps none
    log = home / "sessions" / out["session_id"] / "session.jsonl"
    header = json.loads(log.read_text().splitlines()[0])
    assert header.get("cwd") is None
    assert f"Working directory: {workspace.resolve()}" in json.dumps(server.requests[0].json())
    # the agent worked on: a second review appends only the new lines to the same session
    grow(transcript)
    server.add(structured({"status": "silent", "content": ""}))
    again = await harness("shadow", "review", str(transcript), "--profile", str(profile), *cwd, "--json", home=home)
    assert again.returncode == 0, again.stderr.decode()
    second = json.loads(again.stdout)
    assert second["session_id"] == out["session_id"] and second["restarted"] is None
    assert (second["transcript"]["first_line"], second["transcript"]["lines"]) == (11, 15)
    assert "Fixed the sign" in json.dumps(server.requests[1].json())
    records = list((home / "imports" / "reviews").iterdir())
    assert len(records) == 1 and oct(records[0].stat().st_mode & 0o777) == "0o600"


async def test_a_bad_transcript_is_a_usage_error_naming_the_line(tmp_path: Path, server: ScriptedServer) -> None:
    home, profile = make_home(tmp_path, server.base_url)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type":"user","message":{"role":"user","content":"hi"}}\n{not json\n')
    run = await harness("shadow", "review", str(bad), "--profile", str(profile), home=home)
    assert run.returncode == 2
    assert (
        run.stderr.decode().strip()
        == "harness shadow review: bad.jsonl:2: line 2 is not JSON (Expecting property name enclosed in double quotes)"
    )
    assert not server.requests


async def test_a_named_definition_reviews_and_an_unknown_one_is_refused(tmp_path: Path, server: ScriptedServer) -> None:
    home, profile = make_home(tmp_path, server.base_url, shadow_id="claims")
    transcript = claude_transcript(tmp_path)
    server.add(structured({"status": "not_relevant", "content": ""}))
    run = await harness(
        "shadow", "review", str(transcript), "--profile", str(profile), "--definition", "claims", "--json", home=home
    )
    assert run.returncode == 0, run.stderr.decode()
    out = json.loads(run.stdout)
    assert out["outcome"] == "not_relevant" and out["shadow_id"] == "claims"
    missing = await harness(
        "shadow", "review", str(transcript), "--profile", str(profile), "--definition", "nope", home=home
    )
    assert missing.returncode == 2 and missing.stdout == b""
    assert missing.stderr.decode().startswith(
        "harness shadow review: the review could not start: no reviewer definition 'nope'"
    )


async def test_a_profile_without_shadow_mind_writes_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    profile = tmp_path / "bare.yml"
    profile.write_text("- id: agent-loop\n  name: agent-loop\n")
    run = await harness("shadow", "review", str(claude_transcript(tmp_path)), "--profile", str(profile), home=home)
    assert run.returncode == 2
    assert run.stderr.decode() == (
        "harness shadow review: the profile does not load Shadow Mind: add '- bundle: shadow-mind' to it\n"
    )
    assert not (home / "sessions").exists() or not any((home / "sessions").iterdir())


async def test_a_fifo_or_dev_zero_transcript_is_refused_at_once(tmp_path: Path, server: ScriptedServer) -> None:
    """A FIFO with no writer must not hang the open; /dev/zero (st_size 0) must not be read to MemoryError."""
    home, profile = make_home(tmp_path, server.base_url)
    fifo = tmp_path / "fifo.jsonl"
    os.mkfifo(fifo)
    zero = tmp_path / "zero.jsonl"
    zero.symlink_to("/dev/zero")
    for path, kind in ((fifo, "a FIFO"), (zero, "a character device")):
        run = await harness("shadow", "review", str(path), "--profile", str(profile), home=home)
        assert run.returncode == 2 and run.stdout == b""
        assert run.stderr.decode() == f"harness shadow review: transcript {path.name}: {kind}, not a regular file\n"
    assert not server.requests and not (home / "sessions").exists()


async def test_a_timeout_that_is_not_finite_and_positive_is_a_usage_error(
    tmp_path: Path, server: ScriptedServer
) -> None:
    home, profile = make_home(tmp_path, server.base_url)
    transcript = claude_transcript(tmp_path)
    run = await harness("shadow", "review", str(transcript), "--profile", str(profile), "--timeout", "nan", home=home)
    assert run.returncode == 2 and "Traceback" not in run.stderr.decode()
    assert "--timeout: 'nan' is not a finite number of seconds above 0" in run.stderr.decode()
    assert not server.requests
