"""The agent loop end to end with the scripted adapter."""

from __future__ import annotations

from pathlib import Path

from hookspecs.values import create_user_message

from .helpers import event_types, new_root, scripted_host

SCRIPT = """
responses:
  - match: {has_tools: [read]}
    reply:
      text: "reading"
      tool_calls:
        - name: read
          arguments: {path: notes.txt}
  - reply:
      text: "done: the notes say hello"
"""


async def test_tool_turn_completes(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "notes.txt").write_text("hello\n")
    async with scripted_host(tmp_path, SCRIPT, workspace=work) as (host, adapter):
        handle = await new_root(host)
        agent = handle.agent
        agent.followup(create_user_message("what do the notes say?"))
        await agent.when_idle()
        types = event_types(agent.session)
        assert types == [
            "turn/start",
            "step/start",
            "user/message",
            "request/context",
            "assistant/message",
            "tool/call",
            "tool/result",
            "step/end",
            "step/start",
            "assistant/message",
            "step/end",
            "turn/end",
        ]
        end = agent.session.events[-1]
        assert end.data == {"turn": 1, "reason": {"kind": "completed"}}
        result = next(e for e in agent.session.events if e.type == "tool/result")
        assert "error" not in result.data
        text = result.data["message"]["content"][0]["content"][0]["text"]
        assert "hello" in text
        assert len(adapter.requests) == 2
        await handle.dispose()
