"""A Stop hook that admits no review costs close to nothing (issue 20, item 2):
from process start to its ``{}`` it imports neither the host, the chat, the web
stack nor an LLM adapter. Asserted on ``sys.modules``, never on time."""

from __future__ import annotations

import json
from pathlib import Path

from ..cli_modules import heavy_in, imported_by
from .reviewer import claude_transcript, make_home


def _stdin(transcript: Path, **extra: object) -> bytes:
    hook = {"session_id": "cc-1", "transcript_path": str(transcript), "cwd": "/nowhere", "hook_event_name": "Stop"}
    return json.dumps({"stop_hook_active": False, **hook, **extra}).encode()


def test_stop_hook_active_imports_nothing_heavy(tmp_path: Path) -> None:
    home, profile = make_home(tmp_path, "http://127.0.0.1:9/v1", enabled=False)
    transcript = claude_transcript(tmp_path)
    argv = ("shadow", "hook", "claude-code", "--profile", str(profile))
    run, modules = imported_by(tmp_path, *argv, home=home, stdin=_stdin(transcript, stop_hook_active=True))
    assert run.returncode == 0 and json.loads(run.stdout) == {}, run.stderr.decode()
    assert heavy_in(modules) == []


def test_an_unchanged_transcript_imports_nothing_heavy(tmp_path: Path) -> None:
    home, profile = make_home(tmp_path, "http://127.0.0.1:9/v1", enabled=False)
    transcript = claude_transcript(tmp_path)
    argv = ("shadow", "hook", "claude-code", "--profile", str(profile))
    first, _ = imported_by(tmp_path, *argv, home=home, stdin=_stdin(transcript))
    assert first.returncode == 0 and json.loads(first.stdout) == {}, first.stderr.decode()
    again, modules = imported_by(tmp_path, *argv, home=home, stdin=_stdin(transcript))
    assert again.returncode == 0 and json.loads(again.stdout) == {}, again.stderr.decode()
    assert heavy_in(modules) == []
    # nor the profile machinery (no profile is read) nor the contract's values
    assert not modules & {"harness.profiles", "hookspecs.values", "harness.cli.render"}
    # nor the importers: the transcript is not parsed to learn it did not change
    assert not modules & {"harness.transcripts.reader", "harness.transcripts.claude_code", "harness.transcripts.builder"}
