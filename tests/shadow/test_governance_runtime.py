"""The governance stage end to end: stagnation, escalation, decay, budgets that
survive a restart, the value loop, the watchdog, lifecycle journals and the
headless drain bound."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from harness.host import open_host
from harness.llm.scripted import ScriptedAdapter
from hookspecs.protocols import CreateAgentOptions
from hookspecs.values import AgentOptions, create_user_message
from shadow_mind_plugin.plugin import runtime_for

from ..harness.helpers import AdapterPlugin
from .helpers import new_root, settle, shadow_host, shadow_rows, write_definition

PLUGIN_SOURCE = {"kind": "plugin", "plugin": "scheduler"}


def root_turns(count: int, *, start: int = 0) -> str:
    """``turn N`` → read notes.txt, then answer. Relays are acknowledged."""
    out = ["""
  - match: {depth: 0, last_user_contains: "Shadow reports"}
    repeat: true
    reply: {text: "noted"}
"""]
    for i in range(start, start + count):
        out.append(
            f"""
  - match: {{depth: 0, last_user_contains: "turn {i}"}}
    reply: {{tool_calls: [{{name: read, arguments: {{path: notes.txt}}}}]}}
  - match: {{depth: 0, last_user_contains: "turn {i}"}}
    reply: {{text: "done {i}"}}
"""
        )
    return "".join(out)


def reviewer(verdict: str = "challenge", refs: str = "[2]", content: str = "same finding", *, repeat: bool = True, model: str | None = None) -> str:
    match = "{depth: 1}" if model is None else f"{{depth: 1, model: {model}}}"
    return f"""
  - match: {match}
    repeat: {str(repeat).lower()}
    reply:
      tool_calls:
        - name: structured_output
          arguments: {{status: report, verdict: {verdict}, refs: {refs}, content: "{content}"}}
"""


async def turn(host: Any, root: Any, i: int, *, source: dict[str, Any] | None = PLUGIN_SOURCE) -> None:
    """A tool turn; a plugin-sourced message keeps the budget window open."""
    root.followup(create_user_message(f"turn {i}", source=source))
    await settle(host, root)


def journal(home: Path) -> list[dict[str, Any]]:
    path = home / "shadow-minds" / "logs" / "default.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


async def test_spinning_installs_a_cooldown_and_stops_scheduling(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_definition(home, extra="debug: true\n")
    script = "responses:\n" + reviewer() + root_turns(4)
    async with shadow_host(tmp_path, script, home=home) as (host, adapter, runtime):
        root = await new_root(host)
        for i in range(3):
            await turn(host, root, i)
        status = runtime.controls.status(root)
        assert status["total_runs"] == 3
        assert [c["patterns"] for c in status["cooldowns"]] == [["spinning"]]
        await turn(host, root, 3)  # cooling down: no fourth run
        assert runtime.controls.status(root)["total_runs"] == 3
        records = journal(home)
        stagnation = [r for r in records if r.get("status") == "stagnation"]
        assert stagnation[-1]["action"] == "cooldown" and "spinning" in stagnation[-1]["patterns"]
        # a real user message clears cooldowns
        await turn(host, root, 99, source=None)
        assert runtime.controls.status(root)["cooldowns"] == []


async def test_oscillation_reserves_one_escalation(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_definition(home, extra="reasoning_effort: low\nrun_with_model: scripted/shadow\n")
    alternating = (
        reviewer("challenge", repeat=False, model="shadow")
        + reviewer("confirm", repeat=False, model="shadow")
        + reviewer("challenge", repeat=False, model="shadow")
        + reviewer("confirm", repeat=False, model="shadow")
        + reviewer("gap", repeat=True, model="shadow")
    )
    script = "responses:\n" + alternating + root_turns(5)
    # plugin-sourced turns are not real user input: five relays in a row, unbounded here
    config = {
        "stagnationEscalationEnabled": True, "spinningRepeatCount": 5, "noDriftRepeatCount": 5,
        "diminishingWindowSize": 5, "maxRelayCyclesPerUserMessage": 0,
    }
    async with shadow_host(tmp_path, script, home=home, config=config) as (host, adapter, runtime):
        root = await new_root(host)
        for i in range(4):
            await turn(host, root, i)
        status = runtime.controls.status(root)
        assert status["pending_escalations"] == ["default"]
        assert status["cooldowns"] == []
        await turn(host, root, 4)
        efforts = [r.reasoning_effort for r in adapter.requests if r.metadata["delegation_depth"] == 1]
        assert efforts == ["low", "low", "low", "low", "medium"]
        assert runtime.controls.status(root)["pending_escalations"] == []


async def test_stale_report_decay_lowers_the_probability(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_definition(home)
    script = "responses:\n" + reviewer() + root_turns(2)
    async with shadow_host(tmp_path, script, home=home, config={"staleReportDecay": 0.5, "spinningRepeatCount": 8, "noDriftRepeatCount": 8, "reviewWindowSize": 8, "diminishingWindowSize": 8}) as (host, _, runtime):
        root = await new_root(host)
        await turn(host, root, 0)
        await turn(host, root, 1)
        assert runtime.owners[root.id].coordination.decay_factor("default") == 0.5


BUDGET = {"sessionShadowSoftBudgetChars": 100, "sessionShadowHardBudgetChars": 100_000, "frugalShadowModel": "scripted/frugal"}


async def run_host(tmp_path: Path, home: Path, script: str, config: dict[str, Any], body: Any) -> Any:
    adapter = ScriptedAdapter.from_text(script)
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    (work / "notes.txt").write_text("notes\n")
    async with open_host(
        rows=shadow_rows({"resultBatchWindowMs": 0, **config}),
        dsh_home=home,
        cwd=work,
        headless=True,
        extra_plugins=[("adapter", AdapterPlugin(adapter))],
        environ={},
        logger=logging.getLogger("restart"),
    ) as host:
        runtime = runtime_for(host)
        return await body(host, runtime, adapter)


async def test_soft_budget_survives_a_restart(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_definition(home)
    script = "responses:\n" + reviewer(model="frugal") + reviewer() + root_turns(1) + root_turns(1, start=1)

    async def first(host: Any, runtime: Any, adapter: Any) -> str:
        root = await new_root(host)
        await turn(host, root, 0, source=None)  # the user opens the window
        state = runtime.owners[root.id]
        assert state.trigger.spent_chars > 100  # prompt + report
        return root.id

    root_id = await run_host(tmp_path, home, script, BUDGET, first)

    async def second(host: Any, runtime: Any, adapter: Any) -> None:
        handle = await host.agents.resume(root_id, agent_options=AgentOptions(provider="scripted", model="root-model"))
        root = handle.agent
        await turn(host, root, 1)  # automation, not a person: same window
        status = runtime.controls.status(root)
        assert status["budget_tier"] == "frugal"
        child_models = [r.model for r in adapter.requests if r.metadata["delegation_depth"] == 1]
        assert child_models == ["frugal"]

    await run_host(tmp_path, home, script, BUDGET, second)


async def test_hard_budget_survives_a_restart(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_definition(home)
    config = {"sessionShadowHardBudgetChars": 100}
    script = "responses:\n" + reviewer() + root_turns(1) + root_turns(1, start=1)

    async def first(host: Any, runtime: Any, adapter: Any) -> str:
        root = await new_root(host)
        await turn(host, root, 0, source=None)
        assert runtime.controls.status(root)["budget_tier"] == "exhausted"
        return root.id

    root_id = await run_host(tmp_path, home, script, config, first)

    async def second(host: Any, runtime: Any, adapter: Any) -> None:
        handle = await host.agents.resume(root_id, agent_options=AgentOptions(provider="scripted", model="root-model"))
        await turn(host, handle.agent, 1)
        assert runtime.controls.status(handle.agent)["total_runs"] == 0
        assert [r for r in adapter.requests if r.metadata["delegation_depth"] == 1] == []

    await run_host(tmp_path, home, script, config, second)


async def test_a_real_user_message_opens_a_new_window_after_restart(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_definition(home)
    config = {"sessionShadowHardBudgetChars": 100}
    script = "responses:\n" + reviewer() + root_turns(2)

    async def first(host: Any, runtime: Any, adapter: Any) -> str:
        root = await new_root(host)
        await turn(host, root, 0, source=None)
        return root.id

    root_id = await run_host(tmp_path, home, script, config, first)

    async def second(host: Any, runtime: Any, adapter: Any) -> None:
        handle = await host.agents.resume(root_id, agent_options=AgentOptions(provider="scripted", model="root-model"))
        await turn(host, handle.agent, 1, source=None)
        assert runtime.controls.status(handle.agent)["total_runs"] == 1

    await run_host(tmp_path, home, script, config, second)


async def test_unreadable_budget_state_fails_closed(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_definition(home)
    script = "responses:\n" + reviewer() + root_turns(1)
    config = {"sessionShadowHardBudgetChars": 100_000}

    async def body(host: Any, runtime: Any, adapter: Any) -> None:
        from shadow_mind_plugin.trigger.ledger import root_hash

        handle = await host.agents.create(CreateAgentOptions(session_id="fixed-root", agent_options=AgentOptions(provider="scripted", model="m")))
        root = handle.agent
        governance = home / "shadow-minds" / "governance"
        governance.mkdir(parents=True, exist_ok=True)
        (governance / f"{root_hash('fixed-root')}.json").write_text("{not json")
        await turn(host, root, 0)
        status = runtime.controls.status(root)
        assert status["total_runs"] == 0
        assert status["budget_tier"] == "exhausted"
        assert "corrupt" in status["budget_state_error"]

    await run_host(tmp_path, home, script, config, body)


ADOPTING_ROOT = """
  - match: {depth: 0, last_user_contains: "Shadow reports"}
    reply:
      text: "I will fix notes.txt as the review says."
      tool_calls: [{name: read, arguments: {path: notes.txt}}]
  - match: {depth: 0, last_user_contains: "Shadow reports"}
    reply: {text: "fixed"}
"""


async def test_value_loop_classifies_an_adopted_challenge(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_definition(home)
    script = "responses:\n" + reviewer(refs='["{{seq:tool result}}"]', repeat=False) + ADOPTING_ROOT + root_turns(1)
    async with shadow_host(tmp_path, script, home=home) as (host, _, runtime):
        root = await new_root(host)
        await turn(host, root, 0, source=None)
        stats = runtime.controls.status(root)["value_loop"]
        assert stats == [{"shadow_id": "default", "challenges": 1, "adopted": 1, "rejected": 0, "ignored": 0, "hit_rate": 1.0}]
        (line,) = (home / "shadow-minds" / "value-loop.jsonl").read_text().splitlines()
        record = json.loads(line)
        assert record["classification"] == "challenge_adopted"
        assert set(record) == {"time", "root_session_id", "shadow_id", "run_id", "classification", "relayed_at_seq", "refs", "observed_through_seq"}


DEGENERATE = """
  - match: {depth: 1}
    reply: {text: "<tool_calls>\\n<tool_calls>\\n<tool_calls>\\n<tool_calls>\\n<tool_calls>\\n<tool_calls>\\n", hang: true}
"""


async def test_degenerate_output_is_killed_and_cools_down(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_definition(home, extra="debug: true\n")
    script = "responses:\n" + DEGENERATE + root_turns(1)
    async with shadow_host(tmp_path, script, home=home) as (host, _, runtime):
        root = await new_root(host)
        await turn(host, root, 0)
        status = runtime.controls.status(root)
        last = status["last_run"]
        assert (last["phase"], last["reason_code"], last["provider_stop_reason"]) == ("failed", "DEGENERATE_OUTPUT", "degenerate-output")
        assert [c["patterns"] for c in status["cooldowns"]] == [["spinning"]]
        stagnation = [r for r in journal(home) if r.get("status") == "stagnation"]
        assert stagnation[-1]["trigger"] == "degenerate-output"


async def test_lifecycle_journal_is_metadata_only(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_definition(home, extra="debug: true\n")
    script = "responses:\n" + reviewer(content="SECRET-REPORT-BODY", repeat=False, refs='["{{seq:tool call}}"]') + root_turns(1)
    async with shadow_host(tmp_path, script, home=home) as (host, _, runtime):
        root = await new_root(host)
        await turn(host, root, 0, source=None)
    text = (home / "shadow-minds" / "logs" / "default.jsonl").read_text()
    events = [json.loads(line)["event"] for line in text.splitlines()]
    assert events == ["run-admitted", "child-started", "quality-metadata", "run-finished", "report-delivered"]
    assert "SECRET-REPORT-BODY" not in text and "notes.txt" not in text and str(tmp_path) not in text
    mode = (home / "shadow-minds" / "logs" / "default.jsonl").stat().st_mode & 0o777
    assert mode == 0o600


HANG = """
  - match: {depth: 1}
    reply: {text: "thinking", hang: true}
"""


async def test_headless_drain_is_bounded(tmp_path: Path, autojump_clock: Any) -> None:
    home = tmp_path / "home"
    write_definition(home)
    script = "responses:\n" + HANG + root_turns(1)
    async with shadow_host(tmp_path, script, home=home, config={"headlessDrainTimeoutSeconds": 30}) as (host, _, runtime):
        root = await new_root(host)
        await turn(host, root, 0, source=None)
        last = runtime.controls.status(root)["last_run"]
        assert (last["phase"], last["reason_code"], last["cancellation_source"]) == ("aborted", "HEADLESS_DRAIN_TIMEOUT", "headless")


WINDOWS_PATH_ROOT = """
  - match: {depth: 0, last_user_contains: "Shadow reports"}
    reply:
      text: "Looking again."
      tool_calls: [{name: read, arguments: {path: 'docs\\notes.txt'}}]
  - match: {depth: 0, last_user_contains: "Shadow reports"}
    reply: {text: "ok"}
  - match: {depth: 0, last_user_contains: "turn 0"}
    reply: {tool_calls: [{name: read, arguments: {path: docs/notes.txt}}]}
  - match: {depth: 0, last_user_contains: "turn 0"}
    reply: {text: "done 0"}
"""


async def test_value_loop_adopts_a_challenged_path_the_root_spells_with_backslashes(tmp_path: Path) -> None:
    # the root's later call is stored as JSON text ({"path":"docs\\\\notes.txt"}); only the
    # tool call can adopt here (the reply has no review word)
    home = tmp_path / "home"
    write_definition(home)
    script = "responses:\n" + reviewer(refs='["{{seq:tool call}}"]', repeat=False) + WINDOWS_PATH_ROOT
    async with shadow_host(tmp_path, script, home=home) as (host, _, runtime):
        root = await new_root(host)
        await turn(host, root, 0, source=None)
        calls = [e.data["arguments"] for e in root.session.events if e.type == "tool/call"]
        assert calls[-1] == '{"path":"docs\\\\notes.txt"}'
        stats = runtime.controls.status(root)["value_loop"]
        assert stats == [{"shadow_id": "default", "challenges": 1, "adopted": 1, "rejected": 0, "ignored": 0, "hit_rate": 1.0}]
