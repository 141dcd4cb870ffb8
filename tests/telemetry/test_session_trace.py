"""A real session with telemetry on, exported to a loopback OTLP/HTTP receiver.

The root reads a file and answers wrongly; a Shadow reviewer (a real child
agent on the scripted model) challenges it; the report is relayed and the
root answers again. The receiver decodes the protobufs and the test checks
the span tree (the root turn's ``invoke_agent`` over its ``chat`` and
``execute_tool`` spans and the reviewer's ``invoke_agent``), the GenAI
attributes and the ``gen_ai.evaluation.result`` event on the reviewed turn.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.telemetry import TelemetryConfig
from harness.telemetry.plugin import _EVENT_TYPES, TelemetryPlugin
from harness.telemetry.spans import EVENT_TYPES
from hookspecs.values import create_user_message

from ..shadow.helpers import new_root, settle, shadow_host, write_definition
from .receiver import otlp_receiver, tree

SCRIPT = """
models:
  - {id: root-model, context_window: 128000}
responses:
  - match: {depth: 0, has_tools: [read], last_user_contains: "deploy"}
    reply:
      tool_calls: [{name: read, arguments: {path: notes.txt}}]
      usage: {input_tokens: 120, output_tokens: 9, reasoning_tokens: 0}
  - match: {depth: 0, last_user_contains: "deploy"}
    reply:
      text: "Deploying to production now."
      usage: {input_tokens: 140, output_tokens: 6, reasoning_tokens: 0}
  - match: {depth: 1, has_tools: [structured_output]}
    reply:
      tool_calls:
        - name: structured_output
          arguments:
            status: report
            verdict: challenge
            severity: 0.8
            refs: ["{{seq:tool call}}"]
            content: "notes.txt says staging, not production (api_key=Zq8vN3xL0pR5tW7y, see /home/ops/deploy/notes.txt)."
  - match: {depth: 0, last_user_contains: "Shadow reports"}
    reply: {text: "Good catch: I will deploy to staging instead."}
"""


def by_name(spans: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    return [s for s in spans if s["name"] == name]


def test_the_plugin_asks_for_the_event_types_it_handles() -> None:
    assert tuple(_EVENT_TYPES) == EVENT_TYPES


async def test_a_reviewed_session_exports_its_span_tree_and_evaluation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    write_definition(home, name="Deploy Shadow")
    with otlp_receiver() as (endpoint, received):
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint)
        monkeypatch.setenv("OTEL_SERVICE_NAME", "telemetry-test")
        plugin = TelemetryPlugin(TelemetryConfig(shutdownSeconds=10))
        async with shadow_host(tmp_path, SCRIPT, home=home, plugins=[("telemetry", plugin)]) as (host, _, runtime):
            root = await new_root(host)
            root.followup(create_user_message("please deploy the app"))
            await settle(host, root)
            events = list(root.session.events)
            last_run = runtime.controls.status(root)["last_run"]
        spans, logs = list(received.spans), list(received.logs)

    assert {s["scope"] for s in spans} == {"harness.telemetry"}
    assert {r.get("service.name") for r in received.resources} == {"telemetry-test"}
    roots = sorted((s for s in spans if not s["parent_id"]), key=lambda s: s["attributes"]["dsh.turn"])
    assert [s["name"] for s in roots] == ["invoke_agent root", "invoke_agent root"]  # the turn, then the relay's
    reviewed, relay_turn = roots
    reviewer_name = f"invoke_agent {last_run['shadow_id'] and 'shadow:' + last_run['shadow_id']}"
    rendered = tree(spans, reviewed)
    assert rendered == [
        "invoke_agent root",
        "  chat root-model",
        "  execute_tool read",
        "  chat root-model",
        f"  {reviewer_name}",
        "    chat root-model",
        "    execute_tool structured_output",
    ], "\n".join(rendered)
    print("\n".join(rendered))  # the rendering docs/telemetry.md shows

    # the root turn
    turn = reviewed["attributes"]
    assert turn["gen_ai.operation.name"] == "invoke_agent"
    assert turn["gen_ai.agent.id"] == turn["gen_ai.conversation.id"] == root.id
    assert (turn["gen_ai.provider.name"], turn["gen_ai.request.model"]) == ("scripted", "root-model")
    assert (turn["dsh.turn"], turn["dsh.turn.end"], turn["dsh.delegation_depth"]) == (1, "completed", 0)
    assert relay_turn["attributes"]["dsh.turn"] == 2 and relay_turn["trace_id"] != reviewed["trace_id"]

    # its model requests and its tool call
    in_trace = [s for s in spans if s["trace_id"] == reviewed["trace_id"]]
    first, second = sorted(
        (s for s in by_name(in_trace, "chat root-model") if s["parent_id"] == reviewed["span_id"]), key=lambda s: s["start"]
    )
    assert first["kind"] == 3  # CLIENT
    assert first["attributes"]["gen_ai.operation.name"] == "chat"
    assert first["attributes"]["gen_ai.response.finish_reasons"] == ["tool-calls"]
    assert (first["attributes"]["gen_ai.usage.input_tokens"], first["attributes"]["gen_ai.usage.output_tokens"]) == (120, 9)
    assert second["attributes"]["gen_ai.response.finish_reasons"] == ["stop"]
    assert second["attributes"]["gen_ai.usage.output_tokens"] == 6
    (read,) = by_name(in_trace, "execute_tool read")
    call = next(e for e in events if e.type == "tool/call")
    assert read["attributes"]["gen_ai.tool.call.id"] == call.data["call_id"]
    assert read["attributes"]["gen_ai.tool.name"] == "read"
    assert read["attributes"]["dsh.tool.outcome"] == "ok"

    # the reviewer: a child of the turn it reviews, in the same trace
    (reviewer,) = by_name(in_trace, reviewer_name)
    assert reviewer["parent_id"] == reviewed["span_id"]
    assert reviewer["attributes"]["dsh.parent_session"] == root.id
    assert reviewer["attributes"]["gen_ai.agent.id"] == last_run["child_session_id"]
    assert reviewer["attributes"]["dsh.delegation_depth"] == 1

    # content capture is off: no message text, arguments or results left the process
    exported = json.dumps([s["attributes"] for s in spans])
    for key in ("gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.tool.call.arguments", "gen_ai.tool.call.result"):
        assert key not in exported
    assert "deploy the app" not in exported and "production now" not in exported

    # the review's evaluation event, on the reviewed turn's span
    (evaluation,) = [log for log in logs if log["event_name"] == "gen_ai.evaluation.result"]
    assert (evaluation["trace_id"], evaluation["span_id"]) == (reviewed["trace_id"], reviewed["span_id"])
    attributes = evaluation["attributes"]
    assert attributes["gen_ai.evaluation.name"] == "shadow-mind:default"
    assert attributes["gen_ai.evaluation.score.label"] == "challenge"
    assert attributes["gen_ai.evaluation.score.value"] == 0.8
    explanation = attributes["gen_ai.evaluation.explanation"]
    assert explanation.startswith("notes.txt says staging, not production")
    assert "Zq8vN3xL0pR5tW7y" not in explanation and "/home/ops" not in explanation
    assert "[credential]" in explanation and "[absolute-path]" in explanation
    assert attributes["shadow_mind.run_id"] == last_run["run_id"]
    assert attributes["shadow_mind.refs"] == [call.seq]
    assert attributes["shadow_mind.outcome"] == "report" and attributes["shadow_mind.relayed"] is True
    assert attributes["gen_ai.conversation.id"] == root.id
