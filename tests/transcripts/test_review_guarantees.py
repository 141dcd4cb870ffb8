"""The plugin's guarantees hold for an imported transcript too (issue 14):
holdout literals never reach the reviewer, the debug journal records the run,
and the reviewer is offered read-only tools only — ``harness shadow review``
as a subprocess against a loopback reviewer."""

from __future__ import annotations

import json
from pathlib import Path

from ..harness.openai.server import ScriptedServer
from .reviewer import claude_transcript, harness, make_home, text

HOLDOUT_DEFINITION = """---
id: default
name: Transcript Reviewer
enabled: true
activation_probability: 1
holdout: true
debug: true
---

Check the agent's claims against its tool results.
"""
#: a literal the imported transcript contains (in the person's request)
LITERAL = "src/app.py"
READ_ONLY = {"read", "grep", "glob"}


async def test_holdout_journal_and_read_only_tools_hold_for_an_imported_transcript(
    tmp_path: Path, server: ScriptedServer
) -> None:
    home, profile = make_home(tmp_path, server.base_url)
    minds = home / "shadow-minds"
    (minds / "default.md").write_text(HOLDOUT_DEFINITION)
    (minds / "holdout-keys.json").write_text(json.dumps({"default": [LITERAL]}))
    transcript = claude_transcript(tmp_path)
    assert LITERAL in transcript.read_text()
    server.add(text('{"status": "silent"}'))
    run = await harness("shadow", "review", str(transcript), "--profile", str(profile), "--json", home=home)
    out = json.loads(run.stdout)
    assert out["run_id"], run.stderr.decode()
    request = server.requests[0].json()
    sent = json.dumps(request)
    assert LITERAL not in sent and "[redacted holdout]" in sent
    offered = {tool["function"]["name"] for tool in request.get("tools", ())}
    assert "structured_output" in offered and offered - {"structured_output"} <= READ_ONLY and offered & READ_ONLY, offered
    journal = [json.loads(line) for line in (minds / "logs" / "default.jsonl").read_text().splitlines()]
    assert any(entry.get("run_id") == out["run_id"] for entry in journal)
    assert LITERAL not in (minds / "logs" / "default.jsonl").read_text()
