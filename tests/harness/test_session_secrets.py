"""Secrets never reach session.jsonl (issue 19, item 3): ``SessionLog.append``
passes every string value of an event's data through the one secret detector,
and the event it commits, publishes and returns is the scrubbed one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harness.cli.render import tool_call_line, tool_result_line
from harness.transcripts.reader import read_source
from harness.transcripts.session import write_offline
from harness.web.payloads import event_payload
from hookspecs.scrub import CREDENTIAL
from hookspecs.values import EventTypes, ToolDefinition, ToolResult, create_user_message, message_to_json

from .helpers import ToolsPlugin, new_root, scripted_host

ARG_KEY = "sk-proj-Q7f2Lm9Xw4Rt8Zb1Nc6Vd3"
ENV_KEY = "sk-live-envfile-0a9b8c7d6e5f4a3b"
ENV_PASSWORD = "correct-horse-battery"
ENV_FILE = f"# .env\nOPENAI_API_KEY={ENV_KEY}\nexport DB_PASSWORD={ENV_PASSWORD}\nDEBUG=1\n"
SECRETS = (ARG_KEY, ENV_KEY, ENV_PASSWORD)

SCRIPT = f"""
responses:
  - match: {{has_tools: [configure]}}
    reply:
      text: "I will use the key {ARG_KEY} now"
      tool_calls: [{{name: configure, arguments: {{api_key: "{ARG_KEY}", file: ".env"}}}}]
  - repeat: true
    reply: {{text: "done"}}
"""


async def _cat_env(args: dict[str, Any], ctx: Any) -> ToolResult:
    return ToolResult.text(ENV_FILE)


CONFIGURE = ToolDefinition(
    name="configure",
    description="reads a config file",
    parameters={"type": "object", "properties": {"api_key": {"type": "string"}, "file": {"type": "string"}}},
    execute=_cat_env,
)


def _leaks(text: str) -> list[str]:
    return [secret for secret in SECRETS if secret in text]


async def test_a_turn_stores_no_secret_from_tool_arguments_output_or_the_model(tmp_path: Path) -> None:
    async with scripted_host(tmp_path, SCRIPT, plugins=[("tools", ToolsPlugin(CONFIGURE))]) as (host, _):
        agent = (await new_root(host)).agent
        agent.followup(create_user_message("configure the app"))
        await agent.when_idle()
        events = list(agent.session.events)
        session_id = agent.session.id
    on_disk = (tmp_path / "home" / "sessions" / session_id / "session.jsonl").read_text()

    assert _leaks(on_disk) == []
    assert _leaks(json.dumps([e.data for e in events])) == []  # in memory: what resume and observers see
    served = [event_payload(e) for e in events]
    assert _leaks(json.dumps(served)) == []  # what the web client receives
    # the secrets were there and are now marked, names and the rest kept
    (call,) = [e.data for e in events if e.type == EventTypes.TOOL_CALL]
    assert json.loads(call["arguments"]) == {"api_key": CREDENTIAL, "file": ".env"}  # JSON text, scrubbed inside
    (result,) = [e for e in events if e.type == EventTypes.TOOL_RESULT]
    text = json.dumps(result.data)
    assert "OPENAI_API_KEY=[credential]" in text and "DB_PASSWORD=[credential]" in text and "DEBUG=1" in text


async def test_the_event_append_returns_is_the_scrubbed_one(tmp_path: Path) -> None:
    async with scripted_host(tmp_path, SCRIPT) as (host, _):
        session = (await new_root(host)).agent.session
        event = session.append(EventTypes.USER_MESSAGE, {"message": message_to_json(create_user_message(ENV_FILE))})
        assert _leaks(json.dumps(event.data)) == []
        assert session.events[-1] is event


def test_the_console_lines_hide_secrets_of_events_stored_before_the_fix() -> None:
    # events read from an older session.jsonl did not pass the log's scrub
    call = tool_call_line({"name": "configure", "arguments": json.dumps({"api_key": ARG_KEY})})
    failed = tool_result_line({"name": "configure", "error": {"code": "X", "message": f"bad key {ENV_KEY}"}})
    assert _leaks(call + failed) == []
    assert call == f'⚙ configure(api_key="{CREDENTIAL}")'


def test_an_imported_claude_code_transcript_is_stored_scrubbed(tmp_path: Path) -> None:
    # the importer writes through SessionLog.append, so the choke point covers it
    base = {"sessionId": "cc-secrets", "cwd": "/home/u/proj"}
    entries = [
        {**base, "type": "user", "uuid": "u1", "message": {"role": "user", "content": f"use {ARG_KEY}"}},
        {
            **base,
            "type": "assistant",
            "message": {
                "id": "a1",
                "role": "assistant",
                "model": "claude-x",
                "content": [{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "cat .env"}}],
            },
        },
        {
            **base,
            "type": "user",
            "uuid": "u2",
            "message": {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": ENV_FILE}],
            },
        },
    ]
    transcript = tmp_path / "cc.jsonl"
    transcript.write_text("".join(json.dumps(entry) + "\n" for entry in entries))
    home = tmp_path / "home"
    imported = write_offline(read_source(transcript), home, record=None, format=None)
    on_disk = (home / "sessions" / imported.session_id / "session.jsonl").read_text()
    assert _leaks(on_disk) == []
    assert "OPENAI_API_KEY=[credential]" in on_disk
