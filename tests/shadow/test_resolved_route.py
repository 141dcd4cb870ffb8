"""The root's resolved route (``Agent.resolved_route``): a root whose model comes
from the profile's ``agent-loop.model`` (no ``--model``) gets ``reasoning_effort``
on that route, an honest independence label, and a route in ``harness shadow trace``."""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path
from typing import Any

import trio

from harness.host import open_host
from harness.llm.scripted import ScriptedAdapter
from harness.profiles import ProfileRow
from hookspecs.protocols import CreateAgentOptions
from hookspecs.values import AgentOptions, create_user_message
from shadow_mind_plugin.plugin import runtime_for

from ..cli_env import cli_env
from ..harness.helpers import AdapterPlugin
from .helpers import settle, shadow_rows, write_definition

SCRIPT = """
models:
  - {id: deepseek-chat, context_window: 64000}
  - {id: claude-x, context_window: 64000}
  - {id: gpt-5, context_window: 64000}
responses:
  - match: {depth: 0, last_user_contains: "check"}
    reply: {tool_calls: [{name: read, arguments: {path: notes.txt}}]}
  - match: {depth: 0, last_user_contains: "check"}
    reply: {text: "checked"}
  - match: {depth: 1}
    repeat: true
    reply:
      tool_calls:
        - name: structured_output
          arguments: {status: silent, content: ""}
"""


async def _review(tmp_path: Path, extra: str, *, options: AgentOptions | None = None) -> tuple[Any, ScriptedAdapter, Path]:
    home = tmp_path / "home"
    write_definition(home, extra=extra)
    work = tmp_path / "work"
    work.mkdir()
    (work / "notes.txt").write_text("staging\n")
    adapter = ScriptedAdapter.from_text(SCRIPT)
    rows = [
        ProfileRow(id="agent-loop", name="agent-loop", config={"model": "scripted/deepseek-chat"}, layer="test"),
        *shadow_rows({"resultBatchWindowMs": 0}),
    ]
    async with open_host(
        rows=rows, dsh_home=home, cwd=work, headless=True, extra_plugins=[("test-adapter", AdapterPlugin(adapter))],
        environ={}, logger=logging.getLogger("shadow-test"),
    ) as host:
        root = (await host.agents.create(CreateAgentOptions(agent_options=options or AgentOptions()))).agent
        assert root.resolved_route == (options.route if options and options.route else "scripted/deepseek-chat")
        root.followup(create_user_message("please check the notes"))
        await settle(host, root)
        runtime = runtime_for(host)
        assert runtime is not None
        (cycle,) = runtime.owners[root.id].governance.cycles.values()
        (view,) = cycle.runs
        return view, adapter, home


async def test_effort_alone_applies_to_the_profile_route(tmp_path: Path) -> None:
    view, adapter, _ = await _review(tmp_path, "reasoning_effort: high\n")
    # before: MODEL_SELECTION_INVALID ("reasoning_effort needs run_with_model ...")
    assert (view.phase, view.reason_code) == ("silent", None)
    (child_request,) = [r for r in adapter.requests if r.metadata["delegation_depth"] == 1]
    assert (child_request.provider, child_request.model, child_request.reasoning_effort) == (
        "scripted", "deepseek-chat", "high",
    )
    assert view.route == "scripted/deepseek-chat"
    assert view.independence == "same_vendor"  # was always "unavailable"


async def test_independence_and_trace_show_the_resolved_route(tmp_path: Path) -> None:
    view, _, home = await _review(tmp_path, "debug: true\nrun_with_model: scripted/gpt-5\n")
    assert view.independence == "independent"  # deepseek root (from the profile) vs an openai-family reviewer
    result = await trio.run_process(
        [sys.executable, "-m", "harness", "shadow", "trace", view.run_id, "--json"],
        env=cli_env(DSH_HOME=str(home)), capture_stdout=True, capture_stderr=True, check=False,
    )
    assert result.returncode == 0, result.stderr.decode()
    (run,) = json.loads(result.stdout)["runs"]
    assert run["quality"]["route"] == "scripted/gpt-5"
    assert run["quality"]["independence"] == "independent"


async def test_explicit_options_win_over_the_profile(tmp_path: Path) -> None:
    view, adapter, _ = await _review(
        tmp_path, "reasoning_effort: low\n", options=AgentOptions(provider="scripted", model="claude-x")
    )
    assert view.route == "scripted/claude-x" and view.independence == "same_vendor"
    (child_request,) = [r for r in adapter.requests if r.metadata["delegation_depth"] == 1]
    assert (child_request.model, child_request.reasoning_effort) == ("claude-x", "low")
