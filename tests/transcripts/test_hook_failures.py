"""``harness shadow hook`` never blocks a Stop by failing: every failure
(bad arguments, bad stdin, an unreadable or special transcript) exits 0 with
``{}`` on stdout and exactly one line on stderr, and no input gives a traceback.
Exit 2 would make Claude Code block the stop and feed the text to the model."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.transcripts import hook

from ..harness.openai.server import ScriptedServer
from .reviewer import claude_transcript, harness, make_home


def _hook_input(transcript: Path | str) -> bytes:
    return json.dumps(
        {"session_id": "cc-1", "transcript_path": str(transcript), "cwd": "/nowhere", "stop_hook_active": False}
    ).encode()


def assert_non_blocking_failure(run: subprocess.CompletedProcess[bytes], *, says: str = "") -> None:
    stderr = run.stderr.decode("utf-8", "replace")
    assert run.returncode == 0, stderr
    assert json.loads(run.stdout) == {}
    assert stderr.endswith("\n") and stderr.count("\n") == 1, stderr
    assert stderr.startswith("harness shadow hook: ") and "Traceback" not in stderr
    assert says in stderr


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["claude"], "invalid choice"),
        (["claude-code", "--timeout", "abc"], "--timeout"),
        (["claude-code", "--timeout", "-1"], "--timeout"),
        (["claude-code", "--timeout", "0"], "--timeout"),
        (["claude-code", "--timeout", "nan"], "--timeout"),
        (["claude-code", "--timeout", "inf"], "--timeout"),
        (["claude-code", "--no-such-flag"], "--no-such-flag"),
        ([], "agent"),
    ],
)
async def test_bad_arguments_never_block_the_stop(
    tmp_path: Path, server: ScriptedServer, args: list[str], says: str
) -> None:
    home, _ = make_home(tmp_path, server.base_url)
    run = await harness("shadow", "hook", *args, home=home, stdin=_hook_input(claude_transcript(tmp_path)))
    assert_non_blocking_failure(run, says=says)
    assert not server.requests


@pytest.mark.parametrize(
    ("stdin", "says"),
    [
        (b"[" * 100_000 + b"]" * 100_000, "not a JSON object"),
        (b"\xff\xfe{}", "not a JSON object"),
        (b" " * (2 * 1024 * 1024) + b"{}", "larger than"),
        (b"not json", "not a JSON object"),
        (b'{"transcript_path": "x"}', "session_id"),
        (b'{"session_id": "s", "transcript_path": "a\\u0000b"}', "transcript_path"),
        (b'{"session_id": "s", "transcript_path": 7}', "transcript_path"),
        (b'{"session_id": "s", "transcript_path": "/no/such/file.jsonl"}', "no such file"),
    ],
)
async def test_bad_stdin_never_blocks_the_stop(tmp_path: Path, server: ScriptedServer, stdin: bytes, says: str) -> None:
    home, profile = make_home(tmp_path, server.base_url)
    run = await harness("shadow", "hook", "claude-code", "--profile", str(profile), home=home, stdin=stdin)
    assert_non_blocking_failure(run, says=says)


@pytest.mark.parametrize("agent", ["claude-code", "codex"])
async def test_a_fifo_transcript_fails_at_once(tmp_path: Path, server: ScriptedServer, agent: str) -> None:
    home, profile = make_home(tmp_path, server.base_url)
    fifo = tmp_path / "session.jsonl"
    os.mkfifo(fifo)  # no writer: a blocking open would wait forever
    run = await harness("shadow", "hook", agent, "--profile", str(profile), home=home, stdin=_hook_input(fifo))
    assert_non_blocking_failure(run, says="FIFO")


async def test_a_transcript_linked_to_dev_zero_fails_at_once(tmp_path: Path, server: ScriptedServer) -> None:
    home, profile = make_home(tmp_path, server.base_url)
    link = tmp_path / "session.jsonl"
    link.symlink_to("/dev/zero")  # st_size 0, endless bytes
    run = await harness("shadow", "hook", "claude-code", "--profile", str(profile), home=home, stdin=_hook_input(link))
    assert_non_blocking_failure(run, says="character device")


def test_an_internal_error_is_one_line_and_never_blocks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    # capfd: the work runs in a forked child (harness.transcripts.bound), which writes the fd
    def broken(*_: object, **__: object) -> None:
        raise RuntimeError("boom\nTraceback-looking second line")

    monkeypatch.setattr(hook, "decide", broken)
    # the bound counts from process start: in this long-lived test process, from now
    monkeypatch.setattr(hook, "since_process_start", lambda: 0.0)
    monkeypatch.setenv("DSH_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(_hook_input(tmp_path / "t.jsonl"))))
    assert hook.hook_main(["claude-code"]) == 0
    out, err = capfd.readouterr()
    assert json.loads(out) == {}
    assert err == "harness shadow hook: internal error: RuntimeError: boom Traceback-looking second line\n"
