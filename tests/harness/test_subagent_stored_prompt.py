"""``SubagentRequest.stored_prompt``: the child's log keeps the stored form of
its first message while the live request sends the full prompt."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hookspecs.errors import SubagentError
from hookspecs.layout import SESSION_FILE, SESSIONS_DIR
from hookspecs.values import CancelToken, StoredPrompt, SubagentRequest, TextBlock

from .helpers import new_root, scripted_host

SCRIPT = """
responses:
  - match: {depth: 1, last_user_contains: "FULL-PROMPT-BODY"}
    reply: {tool_calls: [{name: read, arguments: {path: notes.txt}}]}
  - match: {depth: 1, last_user_contains: "FULL-PROMPT-BODY"}
    reply: {text: "answered from the full prompt"}
  - match: {depth: 1}
    repeat: true
    reply: {text: "saw only the stored form"}
"""

FULL = "Instructions.\n\n" + "FULL-PROMPT-BODY " * 2000
STORED = StoredPrompt(
    content=(TextBlock(text="Instructions."), TextBlock(text="[body stored by reference]")),
    reference={"kind": "test/reference", "where": "parent log", "through": 12},
)


def _request(parent: Any, stored: StoredPrompt | None) -> SubagentRequest:
    return SubagentRequest(
        label="stored", prompt=(TextBlock(text=FULL),), parent=parent, cancel=CancelToken(), stored_prompt=stored
    )


def _log_lines(home: Path, session_id: str) -> list[dict[str, Any]]:
    path = home / SESSIONS_DIR / session_id / SESSION_FILE
    return [json.loads(line) for line in path.read_text().splitlines()]


async def test_the_log_keeps_the_stored_form_and_every_request_the_full_prompt(tmp_path: Path) -> None:
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "notes.txt").write_text("notes\n")
    async with scripted_host(tmp_path, SCRIPT) as (host, adapter):
        root = (await new_root(host)).agent
        run = await host.subagents.start("spawn", _request(root, STORED))
        result = await run.result()
        child_id = run.id
        await run.dispose()
    assert [b.text for b in result.output if isinstance(b, TextBlock)] == ["answered from the full prompt"]
    # both requests of the child's turn (before and after its tool call) carried the full text
    child_requests = [r for r in adapter.requests if r.metadata["delegation_depth"] == 1]
    assert len(child_requests) == 2
    for request in child_requests:
        first = next(m for m in request.messages if m.role == "user")
        assert first.text == FULL
    lines = _log_lines(tmp_path / "home", child_id)
    (entered,) = [line for line in lines if line.get("type") == "user/message"]
    message = entered["data"]["message"]
    assert [b["text"] for b in message["content"]] == ["Instructions.", "[body stored by reference]"]
    assert message["source"] == {"kind": "user", "stored_prompt": STORED.reference}
    assert message["id"] == first.id  # one message, two forms
    assert "FULL-PROMPT-BODY" not in (tmp_path / "home" / SESSIONS_DIR / child_id / SESSION_FILE).read_text()


async def test_without_a_stored_form_the_log_holds_the_prompt(tmp_path: Path) -> None:
    async with scripted_host(tmp_path, SCRIPT) as (host, _):
        root = (await new_root(host)).agent
        run = await host.subagents.start("spawn", _request(root, None))
        await run.result()
        child_id = run.id
        await run.dispose()
    (entered,) = [line for line in _log_lines(tmp_path / "home", child_id) if line.get("type") == "user/message"]
    assert entered["data"]["message"]["content"][0]["text"] == FULL


async def test_a_reference_that_is_not_json_is_refused_before_the_child_exists(tmp_path: Path) -> None:
    async with scripted_host(tmp_path, SCRIPT) as (host, _):
        root = (await new_root(host)).agent
        bad = StoredPrompt(content=(TextBlock(text="x"),), reference={"through": float("nan")})
        with pytest.raises(SubagentError) as info:
            await host.subagents.start("spawn", _request(root, bad))
        assert info.value.code == "INVALID_REQUEST"
        assert "stored_prompt.reference.through" in str(info.value)
        assert [s.id for s in host.sessions.list()] == [root.id]
