"""Telemetry's edges: content capture (scrubbed), a dead collector, the off
switches, a host without the extra, and nothing imported when off."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from typing import Any

import pytest

from harness.plugins import load_plugins, make_plugin_manager
from harness.profiles import ProfileRow
from harness.telemetry import TelemetryConfig, TelemetryOff, builtin_telemetry, telemetry_plugin
from harness.telemetry.plugin import TelemetryPlugin

from ..cli_modules import imported_by
from .receiver import otlp_receiver

SCRIPT = """
responses:
  - match: {last_user_contains: "deploy", has_tools: [read]}
    reply:
      text: "Checking the notes."
      tool_calls: [{name: read, arguments: {path: notes.txt}}]
  - match: {last_user_contains: "deploy"}
    reply: {text: "The target is staging."}
"""
PROMPT = "deploy it; password=Sup3rS3cretValue99 is in /home/ops/deploy/creds.txt"


def closed_port() -> int:
    """A loopback port nothing listens on: connecting is refused."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_captured_content_is_scrubbed_and_bounded(
    dsh_run_turn: Any, dsh_workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (dsh_workspace / "notes.txt").write_text("target: staging\n" + "x" * 5000)
    with otlp_receiver() as (endpoint, received):
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint)
        plugin = TelemetryPlugin(TelemetryConfig(captureContent=True, maxContentChars=200, shutdownSeconds=10))
        events = dsh_run_turn(PROMPT, script=SCRIPT, plugins={"telemetry": plugin})
        spans = {s["name"]: s["attributes"] for s in received.spans}
    assert events[-1].data["reason"]["kind"] == "completed"
    inputs = json.loads(spans["invoke_agent root"]["gen_ai.input.messages"])
    assert inputs[0]["role"] == "user" and inputs[0]["parts"][0]["content"].startswith("deploy it; password=")
    exported = json.dumps(spans)
    assert "Sup3rS3cretValue99" not in exported and "/home/ops" not in exported
    assert "[credential]" in inputs[0]["parts"][0]["content"] and "[absolute-path]" in inputs[0]["parts"][0]["content"]
    outputs = [json.loads(a["gen_ai.output.messages"]) for n, a in spans.items() if n.startswith("chat ")]
    assert outputs and all(o[0]["role"] == "assistant" for o in outputs)
    tool = spans["execute_tool read"]
    assert json.loads(tool["gen_ai.tool.call.arguments"]) == {"path": "notes.txt"}
    assert "1\ttarget: staging" in tool["gen_ai.tool.call.result"]  # the read tool numbers its lines
    assert len(tool["gen_ai.tool.call.result"]) == 200 and tool["gen_ai.tool.call.result"].endswith("…")


def test_a_dead_collector_costs_the_turn_nothing(dsh_run_turn: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", f"http://127.0.0.1:{closed_port()}")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TIMEOUT", "0.2")  # seconds: the exporter gives up after one backoff
    plugin = TelemetryPlugin(TelemetryConfig(shutdownSeconds=10))
    events = dsh_run_turn("deploy it", script=SCRIPT, plugins={"telemetry": plugin})
    assert [e.type for e in events if e.type in ("tool/result", "turn/end")] == ["tool/result", "turn/end"]
    assert events[-1].data["reason"]["kind"] == "completed"
    # the spans were made and handed to the exporter, off the loop, which failed and counted it
    assert plugin.counts.failed["spans"] >= 1 and plugin.counts.ok["spans"] == 0
    assert plugin.counts.threads and threading.get_ident() not in plugin.counts.threads  # trio ran in this thread
    assert plugin.pipeline is None  # torn down: the host closed normally


def test_off_switches_register_no_hooks() -> None:
    assert isinstance(telemetry_plugin(environ={"OTEL_SDK_DISABLED": "true"}), TelemetryOff)
    assert isinstance(telemetry_plugin(TelemetryConfig(enabled=False), environ={}), TelemetryOff)
    assert isinstance(telemetry_plugin(environ={}), TelemetryPlugin)
    assert telemetry_plugin(environ={"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "true"}).config.capture_content  # type: ignore[attr-defined]
    assert builtin_telemetry({}, has_row=False) == []
    assert builtin_telemetry({"DSH_OTEL": "1", "OTEL_SDK_DISABLED": "true"}, has_row=False) == []
    assert builtin_telemetry({"DSH_OTEL": "1"}, has_row=True) == []
    ((name, plugin),) = builtin_telemetry({"DSH_OTEL": "1"}, has_row=False)
    assert name == "telemetry" and isinstance(plugin, TelemetryPlugin)

    row = ProfileRow(id="telemetry", name="telemetry", config={"enabled": False}, layer="test")
    (loaded,) = load_plugins(make_plugin_manager(), [row], environ={})
    assert isinstance(loaded.instance, TelemetryOff) and loaded.hooks == ()
    row = ProfileRow(id="telemetry", name="telemetry", config={"captureContent": True}, layer="test")
    (loaded,) = load_plugins(make_plugin_manager(), [row], environ={})
    assert isinstance(loaded.instance, TelemetryPlugin) and "dsh_session_event" in loaded.hooks


_WITHOUT_EXTRA = textwrap.dedent(
    """
    import sys
    sys.modules["opentelemetry"] = None  # as if the otel extra were not installed
    import trio
    from pathlib import Path
    from harness.host import open_host
    from harness.telemetry import telemetry_plugin
    from hookspecs.errors import PluginError

    async def main():
        async with open_host(dsh_home=Path(sys.argv[1]), extra_plugins=[("telemetry", telemetry_plugin(environ={}))], environ={}):
            pass

    try:
        trio.run(main)
    except* PluginError as group:
        print(*group.exceptions)
    """
)


def test_without_the_extra_the_host_says_what_to_install(tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-c", _WITHOUT_EXTRA, str(tmp_path / "home")], capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr[-2000:]
    (line,) = run.stdout.strip().splitlines()
    assert "telemetry: the OpenTelemetry SDK is missing" in line and "pip install 'shadow-mind[otel]'" in line


def test_the_demo_imports_no_opentelemetry_unless_asked(tmp_path: Path) -> None:
    run, modules = imported_by(tmp_path, "demo", "--json", home=tmp_path / "home-off")
    assert run.returncode == 0, run.stderr.decode()[-2000:]
    assert "shadow_mind_plugin" in modules
    # the switch itself (harness.telemetry and its config: attrs only) is read; nothing behind it
    exporting = ("opentelemetry.", "harness.telemetry.plugin", "harness.telemetry.spans", "harness.telemetry.pipeline")
    assert not [m for m in modules if m == "opentelemetry" or m.startswith(exporting)]

    with otlp_receiver() as (endpoint, received):
        env = {"DSH_OTEL": "1", "OTEL_EXPORTER_OTLP_ENDPOINT": endpoint, "OTEL_SDK_DISABLED": "false"}
        run, modules = imported_by(tmp_path, "demo", "--json", home=tmp_path / "home-on", env=env)
        assert run.returncode == 0, run.stderr.decode()[-2000:]
        names, logs = {s["name"] for s in received.spans}, list(received.logs)
    assert "opentelemetry.sdk.trace" in modules and "harness.telemetry.spans" in modules
    assert {"invoke_agent root", "invoke_agent shadow:default", "execute_tool read"} <= names
    (evaluation,) = [log["attributes"] for log in logs if log["event_name"] == "gen_ai.evaluation.result"]
    assert evaluation["gen_ai.evaluation.score.label"] == "challenge"


def test_the_distribution_declares_the_extra_and_the_entry_point() -> None:
    from importlib import metadata

    assert "otel" in (metadata.metadata("shadow-mind").get_all("Provides-Extra") or [])
    requires = metadata.requires("shadow-mind") or []
    assert any(r.startswith("opentelemetry-sdk") and 'extra == "otel"' in r for r in requires)
    assert any(r.startswith("opentelemetry-exporter-otlp-proto-http") and 'extra == "otel"' in r for r in requires)
    (entry,) = [ep for ep in metadata.entry_points(group="dsh.plugins") if ep.name == "telemetry"]
    assert entry.load() is telemetry_plugin
