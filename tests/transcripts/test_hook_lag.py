"""The transcript may lag the hook (issue 20, item 4): Claude Code fires Stop
before the final assistant message is flushed to ``transcript_path``
(anthropics/claude-code#74340) and hands that message in the Stop input as
``last_assistant_message`` (Codex does the same). The review must see that
message, not the state before it, and the message, once flushed, is not
imported a second time."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harness.sessions.store import SessionStore
from harness.transcripts.hook import state_path
from harness.transcripts.lag import with_last_message
from harness.transcripts.reader import import_source, read_source

from ..harness.openai.server import ScriptedServer
from .reviewer import FIXTURES, grow, harness, make_home, structured

FINAL = "Done: the test passes now."


def _lagging(tmp: Path) -> tuple[Path, dict[str, Any]]:
    """The fixture's first nine lines: its tenth, the final message, is not yet written."""
    lines = (FIXTURES / "claude-code-small.jsonl").read_text().splitlines()
    path = tmp / "session.jsonl"
    path.write_text("\n".join(lines[:9]) + "\n")
    return path, json.loads(lines[9])


def _texts(events: Any) -> list[str]:
    return [
        block["text"]
        for event in events
        if event.type == "assistant/message"
        for block in event.data["message"]["content"]
        if block.get("type") == "text"
    ]


def test_a_missing_final_message_is_added_from_the_hook_input(tmp_path: Path) -> None:
    path, _ = _lagging(tmp_path)
    source = read_source(path)
    assert FINAL not in _texts(import_source(source).events)
    added = with_last_message(source, FINAL, "claude-code")
    assert _texts(import_source(added).events)[-1] == FINAL
    assert added.lines == source.lines and added.raw == source.raw  # what the file holds is unchanged


def test_a_flushed_final_message_is_not_added_again(tmp_path: Path) -> None:
    path, last = _lagging(tmp_path)
    grow(path, [last])
    source = read_source(path)
    assert with_last_message(source, FINAL, "claude-code") is source
    assert with_last_message(source, None, "claude-code") is source
    assert with_last_message(source, "", "claude-code") is source


async def test_the_review_sees_the_message_the_transcript_lacks(tmp_path: Path, server: ScriptedServer) -> None:
    home, profile = make_home(tmp_path, server.base_url)
    path, last = _lagging(tmp_path)
    server.add(structured({"status": "silent", "content": ""}))
    stdin = {
        "session_id": "cc-1",
        "transcript_path": str(path),
        "cwd": "/nowhere",
        "hook_event_name": "Stop",
        "stop_hook_active": False,
        "last_assistant_message": FINAL,
    }
    run = await harness(
        "shadow", "hook", "claude-code", "--profile", str(profile), home=home, stdin=json.dumps(stdin).encode()
    )
    assert run.returncode == 0 and json.loads(run.stdout) == {}, run.stderr.decode()
    assert server.requests and FINAL in server.requests[0].body.decode()
    session_id = json.loads(state_path(home, "claude-code", "cc-1").read_text())["import"]["session_id"]
    # the transcript catches up, then grows: the flushed message is not imported twice
    grow(path, [last])
    grow(path)
    server.add(structured({"status": "silent", "content": ""}))
    again = await harness(
        "shadow",
        "hook",
        "claude-code",
        "--profile",
        str(profile),
        home=home,
        stdin=json.dumps({**stdin, "last_assistant_message": "Fixed the sign; the test passes now."}).encode(),
    )
    assert again.returncode == 0, again.stderr.decode()
    events = SessionStore(sessions_dir=home / "sessions", on_event=lambda _l, _e: None, now_ms=lambda: 0.0).read(
        session_id
    )[1]
    texts = _texts(events)
    assert texts.count(FINAL) == 1, texts
