"""A host loaded from a profile with an ``openai-compatible`` row, talking to the
loopback server: retries become ``llm/retry`` events, tool calls round-trip, and
provider errors end the turn with the adapter's ``LlmError``."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from harness.host import open_host
from harness.profiles import compose_profile
from hookspecs.protocols import CreateAgentOptions
from hookspecs.values import AgentOptions, create_user_message

from . import shapes
from .conftest import API_KEY, KEY_ENV, write_profile
from .server import Reply, ScriptedServer

PROXY_VARS = ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"]


async def run_turn(tmp_path: Path, server: ScriptedServer, monkeypatch: pytest.MonkeyPatch, prompt: str) -> Any:
    for name in PROXY_VARS:  # the plugin's client trusts the environment, as in production
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv(KEY_ENV, API_KEY)
    profile = write_profile(tmp_path / "profile.yml", server.base_url)
    work = tmp_path / "work"
    work.mkdir()
    (work / "a.txt").write_text("hi\n")
    home = tmp_path / "home"
    rows = compose_profile(profile, dsh_home=home).rows
    async with open_host(rows=rows, dsh_home=home, cwd=work, environ={}, logger=logging.getLogger("e2e")) as host:
        handle = await host.agents.create(CreateAgentOptions(agent_options=AgentOptions()))
        agent = handle.agent
        agent.followup(create_user_message(prompt))
        await agent.when_idle()
        events = [(e.type, e.data) for e in agent.session.events]
        await handle.dispose()
    return events


async def test_a_tool_turn_with_a_retry(
    tmp_path: Path, server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    tool_call = shapes.events(
        [
            shapes.chunk(content="Reading."),
            shapes.chunk(tool_calls=[shapes.call(0, id="call_a", name="read", arguments='{"path": ')]),
            shapes.chunk(tool_calls=[shapes.call(0, arguments='"a.txt"}')]),
            shapes.chunk(finish="tool_calls", usage=shapes.usage(50, 9)),
        ]
    )
    server.add(
        Reply.error(429, {"error": {"message": "Rate limit reached"}}, {"retry-after": "0"}),
        Reply.sse(tool_call),
        Reply.sse(shapes.text_stream(["It says ", "hi."])),
    )
    events = await run_turn(tmp_path, server, monkeypatch, "what does a.txt say?")
    retries = [data for kind, data in events if kind == "llm/retry"]
    assert retries == [{"turn": retries[0]["turn"], "step": 0, "attempt": 1, "delay_seconds": 0.0, "code": "RATE_LIMITED", "status": 429}]
    results = [data for kind, data in events if kind == "tool/result"]
    assert len(results) == 1 and results[0]["call_id"] == "call_a"
    assert events[-1][0] == "turn/end" and events[-1][1]["reason"] == {"kind": "completed"}
    assert len(server.requests) == 3
    followup = server.requests[2].json()["messages"]
    assert followup[-2]["tool_calls"][0] == {
        "id": "call_a",
        "type": "function",
        "function": {"name": "read", "arguments": '{"path": "a.txt"}'},
    }
    assert followup[-1]["role"] == "tool" and followup[-1]["tool_call_id"] == "call_a"
    assert "hi" in followup[-1]["content"]
    assert API_KEY not in json.dumps([data for _kind, data in events])


async def test_a_provider_error_ends_the_turn(
    tmp_path: Path, server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    server.add(Reply.error(400, {"error": {"message": f"invalid key {API_KEY}"}}, {"x-request-id": "rq-9"}))
    events = await run_turn(tmp_path, server, monkeypatch, "hello")
    kind, data = events[-1]
    assert kind == "turn/end" and data["reason"]["kind"] == "error"
    error = data["reason"]["error"]
    assert (error["code"], error["status"], error["request_id"]) == ("BAD_REQUEST", 400, "rq-9")
    assert API_KEY not in json.dumps([data for _kind, data in events])


async def test_an_interrupted_generation_ends_the_turn_as_an_error(
    tmp_path: Path, server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    server.add(Reply.sse(shapes.text_stream(["The answer is "], finish="insufficient_system_resource")))
    events = await run_turn(tmp_path, server, monkeypatch, "hello")
    kind, data = events[-1]
    assert kind == "turn/end" and data["reason"]["kind"] == "error"
    assert data["reason"]["error"]["code"] == "GENERATION_INTERRUPTED"
    message = [data for kind, data in events if kind == "assistant/message"][-1]
    assert message.get("interrupted") is True  # the cut-off text is kept, marked, not an answer
