"""An evolution review over the real host, with telemetry on: its child is an
``invoke_agent`` span under the turn it reviewed, and its applied plan is a
``gen_ai.evaluation.result`` event on that turn."""

from __future__ import annotations

from typing import Any

import pytest

from harness.telemetry import TelemetryConfig
from harness.telemetry.plugin import TelemetryPlugin

from ..evolution.helpers import row, say
from ..evolution.test_plan_applied import PLAN, POLICY
from ..evolution.test_subagent_review import plan_script
from .receiver import otlp_receiver


async def test_an_applied_evolution_plan_is_an_evaluation_event(dsh_host: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    with otlp_receiver() as (endpoint, received):
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint)
        plugin = TelemetryPlugin(TelemetryConfig(shutdownSeconds=10))
        async with dsh_host(script=plan_script(PLAN), rows=(row(**POLICY),), plugins={"telemetry": plugin}) as host:
            agent = await dsh_host.new_root(host)
            await say(host, agent, "hello there, answer in French please")
        spans, logs = list(received.spans), list(received.logs)

    turns = sorted((s for s in spans if s["name"] == "invoke_agent root"), key=lambda s: s["attributes"]["dsh.turn"])
    turn = turns[0]  # the reviewed turn (the second one delivers the review's notice)
    (child,) = [s for s in spans if s["name"] == "invoke_agent dsh-evolution-review"]
    assert child["parent_id"] == turn["span_id"] and child["trace_id"] == turn["trace_id"]
    (evaluation,) = [log for log in logs if log["event_name"] == "gen_ai.evaluation.result"]
    assert (evaluation["trace_id"], evaluation["span_id"]) == (turn["trace_id"], turn["span_id"])
    attributes = evaluation["attributes"]
    assert attributes["gen_ai.evaluation.name"] == "evolution-review:memory"
    assert attributes["gen_ai.evaluation.score.label"] == "changed"
    assert attributes["gen_ai.evaluation.score.value"] == 2.0  # one memory entry, one skill
    assert attributes["gen_ai.evaluation.explanation"] == "2 change(s); skills: make-check; 1 op(s) rejected"
    assert attributes["gen_ai.conversation.id"] == agent.id
    assert len(attributes["evolution_review.plan_id"]) == 12
