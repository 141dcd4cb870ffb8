"""A Stop hook that admits no review costs close to nothing (issue 20, item 2):
from process start to its ``{}`` it imports neither the host, the chat, the web
stack nor an LLM adapter. Asserted on ``sys.modules``, never on time."""

from __future__ import annotations

import json
from pathlib import Path

from harness.transcripts.hook import state_path

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


#: what a Stop whose turn the plugin rolls and does not admit never needs: the
#: model is not called, so no LLM adapter or HTTP client; nor ``harness run``'s
#: command module, the chat or the web stack
NOT_FOR_A_ROLL = (
    "harness.llm.openai_compat.adapter",
    "harness.llm.http1",
    "harness.llm.http1_transport",
    "httpx",
    "httpcore",
    "h11",
    "harness.cli.run",
    "harness.cli.parsers",
    "harness.cli.chat",
    "harness.cli.chat_input",
    "harness.web",
    "starlette",
    "hypercorn",
    "rich",
    "prompt_toolkit",
)


def test_a_turn_rolled_and_not_admitted_loads_no_adapter(tmp_path: Path) -> None:
    """The default Shadow enabled at a probability that never hits: the turn
    goes through the host and the plugin, whose roll admits no review."""
    home, profile = make_home(tmp_path, "http://127.0.0.1:9/v1", probability=1e-9)
    transcript = claude_transcript(tmp_path)
    argv = ("shadow", "hook", "claude-code", "--profile", str(profile))
    run, modules = imported_by(tmp_path, *argv, home=home, stdin=_stdin(transcript))
    assert run.returncode == 0 and json.loads(run.stdout) == {}, run.stderr.decode()
    state = json.loads(state_path(home, "claude-code", "cc-1").read_text())
    assert state["last_outcome"] == "skipped" and state["last_reason_code"] == "NOT_ROLLED", state
    assert "harness.host" in modules and "harness.llm.openai_compat.plugin" in modules  # the plugin decided
    assert sorted(m for m in modules if any(m == n or m.startswith(n + ".") for n in NOT_FOR_A_ROLL)) == []
