"""The loopback OpenAI-compatible reviewer for the CLI tests, and the homes they run in."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import trio

from harness.sessions.store import SessionStore
from harness.transcripts import import_transcript

from ..cli_env import cli_env
from ..harness.openai import shapes
from ..harness.openai.server import Reply

REPO = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).parent / "fixtures"
KEY_ENV = "SHADOW_TEST_REVIEWER_KEY"
DEFINITION = """---
id: {id}
name: Transcript Reviewer
enabled: {enabled}
activation_probability: {probability}
---

Check the agent's claims against its tool results.
"""


def structured(arguments: dict[str, Any]) -> Reply:
    """The reviewer's answer: one ``structured_output`` call."""
    call = shapes.call(0, id="call_so", name="structured_output", arguments=json.dumps(arguments))
    return Reply.sse(
        [shapes.event(shapes.chunk(tool_calls=[call])), shapes.event(shapes.chunk(finish="tool_calls")), shapes.DONE]
    )


def text(content: str) -> Reply:
    return Reply.sse(
        [shapes.event(shapes.chunk(content=content)), shapes.event(shapes.chunk(finish="stop")), shapes.DONE]
    )


def make_home(
    tmp: Path,
    base_url: str,
    *,
    probability: float = 1.0,
    shadow_id: str = "default",
    enabled: bool = True,
    runtime: str = "resultBatchWindowMs: 0",
) -> tuple[Path, Path]:
    """A DSH home with a definition, and a profile routing every model to ``base_url``
    (``runtime``: the Shadow Mind settings, YAML flow-mapping entries)."""
    home = tmp / "home"
    minds = home / "shadow-minds"
    minds.mkdir(parents=True, mode=0o700)
    (minds / f"{shadow_id}.md").write_text(
        DEFINITION.format(id=shadow_id, probability=probability, enabled=str(enabled).lower())
    )
    profile = tmp / "profile.yml"
    profile.write_text(
        f"""
- id: deepseek
  name: openai-compatible
  config:
    provider: deepseek
    base_url: {base_url}
    api_key_env: {KEY_ENV}
    retry_base_seconds: 0
    max_retries: 0
    request_timeout_seconds: 20
    models: [{{id: deepseek-chat, context_window: 64000}}]
- id: agent-loop
  name: agent-loop
  config: {{model: deepseek/deepseek-chat}}
- bundle: shadow-mind
- id: shadow-mind-runtime
  config: {{{runtime}}}
"""
    )
    return home, profile


def claude_transcript(tmp: Path, workspace: Path | None = None) -> Path:
    """The first ten lines of the Claude Code fixture: the agent claims a fix its own test run contradicts."""
    lines = (FIXTURES / "claude-code-small.jsonl").read_text().splitlines()[:10]
    if workspace is not None:
        lines = [line.replace("/home/u/proj", str(workspace)) for line in lines]
    path = tmp / "session.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


#: what the agent writes after it stopped and was sent back to work: a fix and a
#: passing test run, with no new user message (one budget window)
CONTINUATION = [
    {
        "type": "assistant",
        "sessionId": "cc-1",
        "cwd": "/home/u/proj",
        "message": {
            "id": "a5",
            "role": "assistant",
            "model": "claude-x",
            "content": [
                {
                    "type": "tool_use",
                    "id": "toolu_8",
                    "name": "Edit",
                    "input": {"file_path": "/home/u/proj/src/app.py", "old": "a - b", "new": "a + b"},
                }
            ],
        },
    },
    {
        "type": "user",
        "sessionId": "cc-1",
        "cwd": "/home/u/proj",
        "message": {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_8", "content": "edited"}],
        },
    },
    {
        "type": "assistant",
        "sessionId": "cc-1",
        "cwd": "/home/u/proj",
        "message": {
            "id": "a6",
            "role": "assistant",
            "model": "claude-x",
            "content": [{"type": "tool_use", "id": "toolu_9", "name": "Bash", "input": {"command": "pytest -q"}}],
        },
    },
    {
        "type": "user",
        "sessionId": "cc-1",
        "cwd": "/home/u/proj",
        "message": {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_9", "content": "1 passed"}],
        },
    },
    {
        "type": "assistant",
        "sessionId": "cc-1",
        "cwd": "/home/u/proj",
        "message": {
            "id": "a7",
            "role": "assistant",
            "model": "claude-x",
            "content": [{"type": "text", "text": "Fixed the sign; the test passes now."}],
        },
    },
]


def grow(path: Path, entries: list[dict[str, Any]] | None = None) -> None:
    """Append lines to a transcript, as the agent does while it works."""
    with path.open("a") as out:
        for entry in CONTINUATION if entries is None else entries:
            out.write(json.dumps(entry) + "\n")


def stored_events(home: Path, session_id: str) -> list[tuple[str, dict[str, Any]]]:
    """``(type, data)`` of each event of ``home``'s session ``session_id``, as stored."""
    store = SessionStore(sessions_dir=home / "sessions", on_event=lambda _l, _e: None, now_ms=lambda: 0.0)
    _, events = store.read(session_id)
    return [(e.type, e.data) for e in events]


def seq_of(path: Path, etype: str, call_id: str) -> int:
    """The seq an imported event gets (the session starts at seq 0 with the import)."""
    events = import_transcript(path).events
    return next(i for i, e in enumerate(events) if e.type == etype and e.data.get("call_id") == call_id)


async def harness(
    *args: str, home: Path, stdin: bytes = b"", env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    environ = cli_env(DSH_HOME=str(home), **{KEY_ENV: "sk-test-reviewer-0123456789"}, **(env or {}))
    for proxy in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        environ.pop(proxy, None)
    with trio.fail_after(120):
        return await trio.run_process(
            [sys.executable, "-m", "harness", *args],
            cwd=REPO,
            env=environ,
            stdin=stdin,
            capture_stdout=True,
            capture_stderr=True,
            check=False,
        )


__all__ = [
    "CONTINUATION",
    "FIXTURES",
    "claude_transcript",
    "grow",
    "harness",
    "make_home",
    "seq_of",
    "structured",
    "text",
]
