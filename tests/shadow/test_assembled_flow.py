"""The assembled scenario, with the real loop and the scripted adapter:

root tool turn → reviewer plans without tools → continues in the same child with
read/grep/glob/structured_output on its own model → challenge report with a
rendered ref → relayed with provenance → the root answers the follow-up → no
active runs, child disposed. The exact request sequence is asserted.
"""

from __future__ import annotations

from pathlib import Path

from hookspecs.values import create_user_message

from .helpers import new_root, settle, shadow_host, write_definition

SCRIPT = """
models:
  - {id: root-model, context_window: 128000}
  - {id: shadow-model, context_window: 64000}
responses:
  - match: {model: root-model, depth: 0, has_tools: [read], last_user_contains: "deploy"}
    reply:
      tool_calls: [{name: read, arguments: {path: notes.txt}}]
  - match: {model: root-model, depth: 0, last_user_contains: "deploy"}
    reply: {text: "Deploying to production now."}
  - match: {model: shadow-model, depth: 1, no_tools: true}
    reply: {text: "1. Verify the target named at the tool call against the final claim."}
  - match: {model: shadow-model, depth: 1, has_tools: [structured_output]}
    reply:
      tool_calls:
        - name: structured_output
          arguments:
            status: report
            verdict: challenge
            severity: 0.8
            refs: ["{{seq:tool call}}"]
            content: "notes.txt says the target is staging, but the root deploys to production."
  - match: {model: root-model, depth: 0, last_user_contains: "Shadow reports"}
    reply: {text: "Good catch: I will deploy to staging instead."}
"""

EXTRA = "capture: since-compaction\ncontext: minimal\nthink_first: true\nrun_with_model: scripted/shadow-model\n"


async def test_assembled_flow(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_definition(home, name="Architecture Shadow", extra=EXTRA)
    async with shadow_host(tmp_path, SCRIPT, home=home) as (host, adapter, runtime):
        root = await new_root(host)
        root.followup(create_user_message("please deploy the app"))
        await settle(host, root)

        requests = [(r.model, r.metadata["delegation_depth"], sorted(t.name for t in r.tools)) for r in adapter.requests]
        root_tools = requests[0][2]
        assert {"read", "grep", "glob"} <= set(root_tools)
        assert "structured_output" not in root_tools
        assert requests[1][:2] == ("root-model", 0)
        assert requests[2] == ("shadow-model", 1, [])  # the plan: no tools
        assert requests[3] == ("shadow-model", 1, ["glob", "grep", "read", "structured_output"])
        assert requests[4][:2] == ("root-model", 0)  # the root answers the relay
        assert len(requests) == 5

        # the plan request carried the trajectory; minimal context dropped the
        # runtime context and the delegation note
        plan = adapter.requests[2]
        prompt_text = plan.messages[0].content[0].text
        assert "[seq=" in prompt_text and "tool call] read arguments=[redacted]" in prompt_text
        assert "Working directory" not in plan.system and "delegated subagent" not in plan.system
        # the continuation is the same child: the plan is in its history
        continuation = adapter.requests[3]
        assert [m.role for m in continuation.messages][:3] == ["user", "assistant", "user"]

        events = root.session.events
        relay = next(
            e for e in events if e.type == "user/message" and e.data["message"]["source"]["kind"] == "shadow-report"
        )
        source = relay.data["message"]["source"]
        (provenance,) = source["reports"]
        tool_call_seq = next(e.seq for e in events if e.type == "tool/call")
        assert provenance["refs"] == [tool_call_seq]
        assert provenance["verdict"] == "challenge" and provenance["severity"] == 0.8
        assert provenance["shadow_id"] == "default"
        turn_end = next(e.seq for e in events if e.type == "turn/end")
        assert provenance["captured_through_seq"] == turn_end
        text = relay.data["message"]["content"][0]["text"]
        assert "### Architecture Shadow (default)\nnotes.txt says the target is staging" in text
        answer = [e for e in events if e.type == "assistant/message"][-1]
        assert "deploy to staging" in answer.data["message"]["content"][0]["text"]

        status = runtime.controls.status(root)
        assert status["total_runs"] == 1 and status["active"] == []
        assert status["last_run"]["phase"] == "report" and status["last_run"]["relayed"] is True
        child_id = provenance["child_session_id"]
        assert host.agents.get(child_id) is None  # disposed
        assert status["last_run"]["child_session_id"] == child_id
        # non-report states and cards never entered the root log
        assert {e.type for e in events} <= {
            "turn/start", "step/start", "user/message", "request/context", "assistant/chunk",
            "assistant/message", "tool/call", "tool/result", "step/end", "turn/end",
        }
