"""The ``/shadow`` command suite: every action and every error path.

Commands run through the host's command registry (``host.commands.execute``)
on a host with both Shadow Mind rows and a scripted model, exactly as a user
would type them.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from harness.host import open_host
from harness.profiles import ProfileRow
from hookspecs.values import CancelToken, CommandResult, SubagentRequest, TextBlock, create_user_message, settings_key
from shadow_mind_plugin.commands import SETTABLE, usage
from shadow_mind_plugin.definitions import list_starters, load_starter
from shadow_mind_plugin.settings import ShadowMindSettings, heal
from shadow_mind_plugin.trigger.trigger_state import Cooldown

from .helpers import new_root, settle, shadow_host, wait_for_stage, write_definition

STARTERS = ["architect", "contrarian", "evidence", "failure-path", "simplification"]

ROOT = """
  - match: {depth: 0, has_tools: [read], last_user_contains: "check"}
    reply:
      tool_calls: [{name: read, arguments: {path: notes.txt}}]
  - match: {depth: 0, last_user_contains: "check"}
    reply: {text: "All checked."}
"""
ROOT_FALLBACK = """
  - match: {depth: 0}
    repeat: true
    reply: {text: "noted"}
"""
SILENT = """
  - match: {depth: 1}
    repeat: true
    reply:
      tool_calls: [{name: structured_output, arguments: {status: silent, content: ""}}]
"""
REPORT = """
  - match: {depth: 1}
    repeat: true
    reply:
      tool_calls:
        - name: structured_output
          arguments: {status: report, verdict: gap, refs: ["{{seq:tool call}}"], content: "the notes were never compared"}
"""
FAIL_ONCE = """
  - match: {depth: 1}
    reply: {error: {message: boom, code: X}}
"""
HANG = """
  - match: {depth: 1}
    repeat: true
    reply: {text: "looking...", hang: true}
"""
CHILD = """
  - match: {depth: 1}
    repeat: true
    reply: {text: "child answer"}
"""


def script(*reviewers: str, turns: int = 1) -> str:
    """``turns`` checked root turns (one tool call each), then plain replies."""
    return "responses:\n" + ROOT * turns + "".join(reviewers) + ROOT_FALLBACK


def disable(path: Path) -> None:
    path.write_text(path.read_text().replace("enabled: true", "enabled: false"))


async def shadow(host: Any, agent: Any, line: str) -> CommandResult:
    result = await host.commands.execute(agent, line)
    assert result is not None, f"{line!r} was not recognised as a command"
    return result


def ok(result: CommandResult) -> str:
    assert result.kind == "success", result.text
    return result.text


def err(result: CommandResult) -> str:
    assert result.kind == "error", result.text
    return result.text


async def checked_turn(host: Any, root: Any) -> None:
    root.followup(create_user_message("please check the notes"))
    await settle(host, root)


def all_runs(runtime: Any, root: Any) -> list[Any]:
    return [v for c in runtime.owners[root.id].governance.cycles.values() for v in c.runs]


def default_md(home: Path) -> Path:
    return home / "shadow-minds" / "default.md"


def relays(root: Any) -> list[Any]:
    return [
        e
        for e in root.session.events
        if e.type == "user/message" and e.data["message"]["source"]["kind"] == "shadow-report"
    ]


# --- help, usage, unknown actions ------------------------------------------------------------


async def test_help_lists_every_action_and_the_starters(tmp_path: Path) -> None:
    async with shadow_host(tmp_path, script()) as (host, _, _):
        root = await new_root(host)
        text = ok(await shadow(host, root, "/shadow help"))
        for action in ("status", "new", "retry RUN", "pause | resume", "cycles", "show", "set FIELD VALUE", "use STARTER", "config [KEY [VALUE]]", "help"):
            assert action in text
        assert ", ".join(STARTERS) in text
        assert text == usage()


async def test_bare_command_is_status(tmp_path: Path) -> None:
    async with shadow_host(tmp_path, script()) as (host, _, runtime):
        root = await new_root(host)
        bare = ok(await shadow(host, root, "/shadow"))
        assert bare == ok(await shadow(host, root, "/shadow status"))
        assert bare == ok(await shadow(host, root, "/shadow    status   "))
        # reading the status never creates per-root state
        assert root.id not in runtime.owners


@pytest.mark.parametrize("line", ["/shadow frobnicate", "/shadow STATUS", "/shadow statusx now"])
async def test_unknown_action_prints_the_usage(tmp_path: Path, line: str) -> None:
    async with shadow_host(tmp_path, script()) as (host, _, _):
        root = await new_root(host)
        text = err(await shadow(host, root, line))
        action = line.split()[1]
        assert text.startswith(f"unknown action {action!r}.")
        assert text.endswith(usage())


async def test_child_agents_get_a_clear_refusal_for_every_action(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_definition(home)
    before = default_md(home).read_bytes()
    async with shadow_host(tmp_path, "responses:\n" + CHILD, home=home) as (host, _, runtime):
        root = await new_root(host)
        run = await host.subagents.start(
            "spawn",
            SubagentRequest(label="helper", prompt=(TextBlock(text="do it"),), parent=root, cancel=CancelToken()),
        )
        try:
            await run.result()
            child = run.local_agent
            assert child is not None and not child.is_root
            for line in (
                "/shadow",
                "/shadow status",
                "/shadow new",
                "/shadow retry abcdef123456",
                "/shadow pause",
                "/shadow resume",
                "/shadow cycles",
                "/shadow show",
                "/shadow set enabled false",
                "/shadow use architect",
                "/shadow config",
                "/shadow config maxReportChars 5",
                "/shadow help",
                "/shadow frobnicate",
            ):
                text = err(await shadow(host, child, line))
                assert text.startswith("Shadow Mind controls are available only on root agents;"), line
                assert "main session" in text, line
            assert child.id not in runtime.owners
        finally:
            await run.dispose()
    # nothing was changed on the child's behalf
    assert default_md(home).read_bytes() == before
    assert not (home / "settings.yaml").exists()


async def test_without_the_runtime_row_the_command_says_what_to_add(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    async with open_host(
        rows=[ProfileRow(id="tool-shadow-mind", name="tool-shadow-mind", layer="test")],
        dsh_home=tmp_path / "home",
        cwd=work,
        headless=True,
        environ={},
        logger=logging.getLogger("shadow-test"),
    ) as host:
        root = await new_root(host)
        text = err(await shadow(host, root, "/shadow status"))
        assert "runtime is not loaded" in text
        assert "add the shadow-mind-runtime row (or the shadow-mind bundle)" in text


# --- status --------------------------------------------------------------------------------------


async def test_status_of_a_fresh_root(tmp_path: Path) -> None:
    async with shadow_host(tmp_path, script()) as (host, _, _):
        root = await new_root(host)
        text = ok(await shadow(host, root, "/shadow status"))
        assert text.splitlines() == [
            "Shadow Mind active: 0 reviews running, 0 waiting to start, 0 in this session",
            "review budget: standard (0 characters reviewed since your last message)",
            "no completed runs",
        ]


async def test_status_shows_the_last_run_totals_and_spend(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_definition(home)
    async with shadow_host(tmp_path, script(SILENT), home=home) as (host, _, runtime):
        root = await new_root(host)
        await checked_turn(host, root)
        (view,) = all_runs(runtime, root)
        text = ok(await shadow(host, root, "/shadow status"))
        lines = text.splitlines()
        spent = runtime.owners[root.id].trigger.spent_chars
        assert spent > 0
        assert lines[0] == "Shadow Mind active: 0 reviews running, 0 waiting to start, 1 in this session"
        assert lines[1] == f"review budget: standard ({spent} characters reviewed since your last message)"
        assert lines[2].startswith(
            f"last run: default/{view.run_id} silent at validate (seq {view.captured_through_seq}, "
        )
        assert "settings healed" not in text


async def test_status_shows_a_running_review_and_a_cooldown(tmp_path: Path, autojump_clock: Any) -> None:
    home = tmp_path / "home"
    write_definition(home)
    async with shadow_host(tmp_path, script(HANG), home=home) as (host, _, runtime):
        root = await new_root(host)
        root.followup(create_user_message("please check the notes"))
        entry = await wait_for_stage(runtime, root, "run")
        state = runtime.owners[root.id]
        state.trigger.cooldowns["other"] = Cooldown(until=runtime.now() + 60, patterns=("spinning", "no_drift"))
        text = ok(await shadow(host, root, "/shadow status"))
        assert ": 1 review running, " in text.splitlines()[0]
        assert f"  running default/{entry.view.run_id} at run (seq {entry.view.captured_through_seq})" in text
        assert "  cooldown other until " in text and "(spinning, no_drift)" in text
        # a second forced review of the same Shadow is refused while it runs
        busy = err(await shadow(host, root, "/shadow new"))
        assert busy == "Shadow default is already running; wait for it or /shadow pause"
        ok(await shadow(host, root, "/shadow pause"))
        await settle(host, root)
        assert entry.view.phase == "aborted" and entry.view.reason_code == "SHADOW_PAUSED"
        # pausing cleared the cooldowns
        assert "cooldown" not in ok(await shadow(host, root, "/shadow status"))


async def test_status_shows_an_exhausted_budget(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_definition(home)
    async with shadow_host(tmp_path, script(SILENT), home=home, config={"sessionShadowHardBudgetChars": 10}) as (host, _, runtime):
        root = await new_root(host)
        await checked_turn(host, root)
        text = ok(await shadow(host, root, "/shadow status"))
        assert f"review budget: exhausted ({runtime.owners[root.id].trigger.spent_chars} characters" in text


# --- pause, resume, cycles -------------------------------------------------------------------------


async def test_pause_stops_automatic_reviews_and_resume_restarts_them(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_definition(home)
    async with shadow_host(tmp_path, script(SILENT, turns=2), home=home) as (host, adapter, runtime):
        root = await new_root(host)
        assert ok(await shadow(host, root, "/shadow pause")) == (
            "Shadow reviews paused for this session; /shadow resume restarts them."
        )
        assert ok(await shadow(host, root, "/shadow status")).startswith("Shadow Mind paused: ")
        # pausing twice is harmless
        ok(await shadow(host, root, "/shadow pause"))
        await checked_turn(host, root)
        assert runtime.owners[root.id].run.total_runs == 0
        assert not [r for r in adapter.requests if r.metadata["delegation_depth"] == 1]

        assert ok(await shadow(host, root, "/shadow resume")) == "Shadow reviews resumed."
        assert ok(await shadow(host, root, "/shadow status")).startswith("Shadow Mind active: ")
        await checked_turn(host, root)
        assert runtime.owners[root.id].run.total_runs == 1


async def test_cycles(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_definition(home)
    async with shadow_host(tmp_path, script(SILENT), home=home) as (host, _, runtime):
        root = await new_root(host)
        assert ok(await shadow(host, root, "/shadow cycles")) == "no review cycles yet"
        await checked_turn(host, root)
        (view,) = all_runs(runtime, root)
        text = ok(await shadow(host, root, "/shadow cycles"))
        assert text.splitlines() == [
            f"seq {view.captured_through_seq}",
            f"  {view.run_id} default silent at validate",
        ]


# --- new ----------------------------------------------------------------------------------------------


async def test_new_on_an_empty_session_is_refused(tmp_path: Path) -> None:
    """Nothing has happened in the session yet: there is nothing to review.

    The command's own ``command/run`` bookkeeping event is not something to review.
    """
    home = tmp_path / "home"
    write_definition(home)
    async with shadow_host(tmp_path, script(SILENT), home=home) as (host, adapter, runtime):
        root = await new_root(host)
        assert root.session.seq == 0
        text = err(await shadow(host, root, "/shadow new"))
        assert "no events to review" in text
        await settle(host, root)
        assert not [r for r in adapter.requests if r.metadata["delegation_depth"] == 1]


async def test_new_bypasses_probability_enabled_and_pause(tmp_path: Path) -> None:
    home = tmp_path / "home"
    disable(write_definition(home, probability=0.0))
    async with shadow_host(tmp_path, script(SILENT), home=home) as (host, adapter, runtime):
        root = await new_root(host)
        await checked_turn(host, root)
        # probability 0 and disabled: no automatic review (not even an owner state)
        state = runtime.owners.get(root.id)
        assert state is None or state.run.total_runs == 0
        assert not [r for r in adapter.requests if r.metadata["delegation_depth"] == 1]
        ok(await shadow(host, root, "/shadow pause"))
        text = ok(await shadow(host, root, "/shadow new"))
        (view,) = all_runs(runtime, root)
        assert text == f"Shadow review admitted; 1 running: default/{view.run_id}."
        await settle(host, root)
        assert (view.phase, view.stage) == ("silent", "validate")
        assert len([r for r in adapter.requests if r.metadata["delegation_depth"] == 1]) == 1
        # still paused afterwards
        assert ok(await shadow(host, root, "/shadow status")).startswith("Shadow Mind paused: ")


async def test_a_forced_review_while_paused_reaches_the_root(tmp_path: Path) -> None:
    """Pause stops *automatic* reviews; a review the user forces with ``/shadow new``
    bypasses pause, so its report must be relayed rather than discarded."""
    home = tmp_path / "home"
    write_definition(home, probability=0.0)
    async with shadow_host(tmp_path, script(REPORT), home=home) as (host, _, runtime):
        root = await new_root(host)
        await checked_turn(host, root)
        ok(await shadow(host, root, "/shadow pause"))
        ok(await shadow(host, root, "/shadow new"))
        await settle(host, root)
        (view,) = all_runs(runtime, root)
        assert (view.phase, view.reason_code) == ("report", None), (view.phase, view.stage, view.reason_code)
        assert view.relayed is True
        assert len(relays(root)) == 1


async def test_new_bypasses_an_exhausted_budget(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_definition(home)
    async with shadow_host(tmp_path, script(SILENT), home=home, config={"sessionShadowHardBudgetChars": 10}) as (host, _, runtime):
        root = await new_root(host)
        await checked_turn(host, root)
        state = runtime.owners[root.id]
        assert state.run.total_runs == 1
        assert "budget: exhausted" in ok(await shadow(host, root, "/shadow status"))
        ok(await shadow(host, root, "/shadow new"))
        await settle(host, root)
        assert state.run.total_runs == 2
        assert state.governance.last_run is not None and state.governance.last_run.phase == "silent"


# --- retry -----------------------------------------------------------------------------------------------


async def test_retry_of_a_failed_run_uses_the_same_watermark_and_cycle(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_definition(home)
    async with shadow_host(tmp_path, script(FAIL_ONCE, SILENT), home=home) as (host, _, runtime):
        root = await new_root(host)
        await checked_turn(host, root)
        (failed,) = all_runs(runtime, root)
        assert (failed.phase, failed.reason_code) == ("failed", "PROVIDER_ERROR")
        # retry by a unique prefix of the run id
        text = ok(await shadow(host, root, f"/shadow retry {failed.run_id[:8]}"))
        state = runtime.owners[root.id]
        cycle = state.governance.cycles[failed.captured_through_seq]
        assert [v.run_id for v in cycle.runs][0] == failed.run_id
        retried = cycle.runs[1]
        assert text == f"Shadow retry admitted: default/{retried.run_id}."
        await settle(host, root)
        assert retried.run_id != failed.run_id
        assert retried.captured_through_seq == failed.captured_through_seq
        assert (retried.phase, retried.stage) == ("silent", "validate")
        assert list(state.governance.cycles) == [failed.captured_through_seq]  # no new cycle
        assert state.run.total_runs == 2
        # the failed run keeps its own outcome
        assert (failed.phase, failed.reason_code) == ("failed", "PROVIDER_ERROR")
        cycles = ok(await shadow(host, root, "/shadow cycles")).splitlines()
        assert cycles == [
            f"seq {failed.captured_through_seq}",
            f"  {failed.run_id} default failed at run [PROVIDER_ERROR]",
            "    cause: boom",
            f"  {retried.run_id} default silent at validate",
        ]


async def test_retry_by_full_id_of_an_aborted_run(tmp_path: Path, autojump_clock: Any) -> None:
    home = tmp_path / "home"
    write_definition(home)
    reviewer = """
  - match: {depth: 1}
    reply: {text: "looking...", hang: true}
""" + SILENT
    async with shadow_host(tmp_path, script(reviewer), home=home) as (host, _, runtime):
        root = await new_root(host)
        root.followup(create_user_message("please check the notes"))
        entry = await wait_for_stage(runtime, root, "run")
        ok(await shadow(host, root, "/shadow pause"))
        await settle(host, root)
        aborted = entry.view
        assert (aborted.phase, aborted.reason_code) == ("aborted", "SHADOW_PAUSED")
        ok(await shadow(host, root, "/shadow resume"))
        ok(await shadow(host, root, f"/shadow retry {aborted.run_id}"))
        await settle(host, root)
        cycle = runtime.owners[root.id].governance.cycles[aborted.captured_through_seq]
        assert [v.phase for v in cycle.runs] == ["aborted", "silent"]


async def test_retry_errors(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_definition(home)
    async with shadow_host(tmp_path, script(REPORT), home=home) as (host, _, runtime):
        root = await new_root(host)
        assert err(await shadow(host, root, "/shadow retry")) == (
            "Usage: /shadow retry RUN (run ids are listed by /shadow cycles)"
        )
        # no state for this root yet
        assert err(await shadow(host, root, "/shadow retry 0123456789abcdef")) == (
            "Shadow run 0123456789abcdef was not found for this session; see /shadow cycles"
        )
        await checked_turn(host, root)
        (report,) = all_runs(runtime, root)
        assert report.phase == "report" and report.relayed is True
        text = err(await shadow(host, root, f"/shadow retry {report.run_id}"))
        assert text == f"Shadow run {report.run_id} is report; only failed or aborted runs can be retried"
        # a prefix shorter than 6 characters is never expanded
        short = report.run_id[:5]
        assert err(await shadow(host, root, f"/shadow retry {short}")) == (
            f"Shadow run {short} was not found for this session; see /shadow cycles"
        )
        assert runtime.owners[root.id].run.total_runs == 1


async def test_retry_of_a_disabled_definition_says_how_to_enable_it(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_definition(home)
    async with shadow_host(tmp_path, script(FAIL_ONCE, SILENT), home=home) as (host, _, runtime):
        root = await new_root(host)
        await checked_turn(host, root)
        (failed,) = all_runs(runtime, root)
        ok(await shadow(host, root, "/shadow set enabled false"))
        text = err(await shadow(host, root, f"/shadow retry {failed.run_id}"))
        assert text == (
            "the reviewer definition default is disabled; enable it before retrying (/shadow set enabled true)"
        )
        ok(await shadow(host, root, "/shadow set enabled true"))
        ok(await shadow(host, root, f"/shadow retry {failed.run_id}"))
        await settle(host, root)
        assert runtime.owners[root.id].run.total_runs == 2


# --- show and set ----------------------------------------------------------------------------------------------


async def test_show_creates_and_prints_the_default(tmp_path: Path) -> None:
    home = tmp_path / "home"
    async with shadow_host(tmp_path, script(), home=home) as (host, _, runtime):
        root = await new_root(host)
        assert not default_md(home).exists()
        text = ok(await shadow(host, root, "/shadow show"))
        assert default_md(home).read_text() == text
        assert text.startswith("---\n") and "\nid: default\n" in text and "\nenabled: true\n" in text
        assert str(home) not in text


async def test_show_and_new_take_a_definition_id(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_definition(home)
    text = (home / "shadow-minds" / "default.md").read_text().replace("id: default", "id: claims")
    (home / "shadow-minds" / "claims.md").write_text(text.replace("activation_probability: 1.0", "activation_probability: 0.25"))
    async with shadow_host(tmp_path, script(SILENT), home=home) as (host, _, runtime):
        root = await new_root(host)
        await checked_turn(host, root)
        shown = ok(await shadow(host, root, "/shadow show claims"))
        assert "\nid: claims\n" in shown and "\nactivation_probability: 0.25\n" in shown
        assert err(await shadow(host, root, "/shadow show nope")).startswith("no reviewer definition 'nope'")
        assert ok(await shadow(host, root, "/shadow new claims")).startswith("Shadow review admitted; 1 running: claims/")
        await settle(host, root)
        assert err(await shadow(host, root, "/shadow new nope")).startswith("no reviewer definition 'nope'")


async def test_set_changes_one_field_at_a_time(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_definition(home, extra="timeout_seconds: 45\nrun_with_model: scripted/shadow-model\n")
    async with shadow_host(tmp_path, script(), home=home) as (host, _, runtime):
        root = await new_root(host)
        cases = [
            ("activation_probability 0.5", "activation_probability = 0.5"),
            ("enabled false", "enabled = false"),
            ("name  My careful reviewer ", 'name = "My careful reviewer"'),
            ("prompt Check: every claim, twice.", 'prompt = "Check: every claim, twice."'),
            ("tools [read, grep, bash]", 'tools = ["read", "grep", "bash"]'),
            ("capture since-compaction", 'capture = "since-compaction"'),
            ("run_with_model none", "run_with_model = null"),
            ("timeout_seconds null", "timeout_seconds = null"),
            ("think_first true", "think_first = true"),
            ("reviewer checks", 'reviewer = "checks"'),
        ]
        for args, shown in cases:
            assert ok(await shadow(host, root, f"/shadow set {args}")) == f"default reviewer definition updated: {shown}"
        saved = runtime.registry.default_definition()
        assert saved.activation_probability == 0.5 and saved.enabled is False
        assert saved.name == "My careful reviewer"
        assert saved.prompt == "Check: every claim, twice."
        assert saved.tools == ("read", "grep", "bash")
        assert saved.capture == "since-compaction" and saved.think_first is True
        assert saved.run_with_model is None and saved.timeout_seconds is None
        assert saved.reviewer == "checks"
        shown_text = ok(await shadow(host, root, "/shadow show"))
        assert shown_text == default_md(home).read_text()
        assert "timeout_seconds" not in shown_text and "run_with_model" not in shown_text


async def test_an_invalid_default_file_is_explained(tmp_path: Path) -> None:
    """A hand-broken ``default.md`` is never overwritten; the error says what is
    wrong with it and what to do, instead of only that the file exists."""
    home = tmp_path / "home"
    path = write_definition(home, probability=3.0)
    before = path.read_bytes()
    async with shadow_host(tmp_path, script(), home=home) as (host, _, _):
        root = await new_root(host)
        for line in ("/shadow show", "/shadow set enabled false", "/shadow use architect"):
            text = err(await shadow(host, root, line))
            assert "default.md" in text, line
            assert "activation_probability must be a finite number from 0 through 1" in text, (line, text)
    assert path.read_bytes() == before


async def test_set_on_a_fresh_home_creates_the_default(tmp_path: Path) -> None:
    home = tmp_path / "home"
    async with shadow_host(tmp_path, script(), home=home) as (host, _, runtime):
        root = await new_root(host)
        ok(await shadow(host, root, "/shadow set activation_probability 0.75"))
        assert runtime.registry.default_definition().activation_probability == 0.75
        assert "activation_probability: 0.75" in default_md(home).read_text()


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ("", f"Usage: /shadow set FIELD VALUE; fields: {', '.join(SETTABLE)}"),
        ("enabled", f"Usage: /shadow set FIELD VALUE; fields: {', '.join(SETTABLE)}"),
        ("bogus 1", f"unknown field 'bogus'; fields: {', '.join(SETTABLE)}"),
        ("id other", f"unknown field 'id'; fields: {', '.join(SETTABLE)}"),
        ("holdout true", f"unknown field 'holdout' (holdout is operator-managed); fields: {', '.join(SETTABLE)}"),
        ("holdout false", f"unknown field 'holdout' (holdout is operator-managed); fields: {', '.join(SETTABLE)}"),
        ("activation_probability 1.5", "default.md: activation_probability must be a finite number from 0 through 1"),
        ("activation_probability -0.1", "default.md: activation_probability must be a finite number from 0 through 1"),
        ("activation_probability lots", "default.md: activation_probability must be a finite number from 0 through 1"),
        ("enabled maybe", "default.md: enabled must be a boolean"),
        ("timeout_seconds 0", "default.md: timeout_seconds must be a positive finite number"),
        ("capture everything", "default.md: capture must be one of full, since-compaction"),
        ("tools [read", "tools: could not read the value '[read': "),
    ],
)
async def test_set_validation_errors_leave_the_file_unchanged(tmp_path: Path, args: str, expected: str) -> None:
    home = tmp_path / "home"
    path = write_definition(home)
    before = path.read_bytes()
    async with shadow_host(tmp_path, script(), home=home) as (host, _, _):
        root = await new_root(host)
        text = err(await shadow(host, root, f"/shadow set {args}".rstrip()))
        assert text.startswith(expected), text
    assert path.read_bytes() == before


# --- use -------------------------------------------------------------------------------------------------


async def test_use_unknown_starter_lists_the_starters(tmp_path: Path) -> None:
    home = tmp_path / "home"
    path = write_definition(home)
    before = path.read_bytes()
    async with shadow_host(tmp_path, script(), home=home) as (host, _, _):
        root = await new_root(host)
        assert list_starters() == STARTERS
        for name in ("nope", "", "Architect"):
            text = err(await shadow(host, root, f"/shadow use {name}".rstrip()))
            assert text == f"unknown starter {name!r}; choose one of: {', '.join(STARTERS)}"
    assert path.read_bytes() == before


async def test_use_keeps_holdout_sticky_and_the_scheduling_knobs(tmp_path: Path) -> None:
    home = tmp_path / "home"
    path = write_definition(
        home, probability=0.7, extra="holdout: true\ntimeout_seconds: 45\nactive_for_models: [root-model]\n"
    )
    (home / "shadow-minds" / "holdout-keys.json").write_text(json.dumps({"default": ["SECRET"]}))
    async with shadow_host(tmp_path, script(), home=home) as (host, _, runtime):
        root = await new_root(host)
        assert runtime.registry.default_definition().holdout is True
        text = ok(await shadow(host, root, "/shadow use architect"))
        assert text == "installed the architect starter as the default reviewer definition (Architecture Shadow); it is enabled."
        saved = runtime.registry.default_definition()
        starter = load_starter("architect")
        assert saved.id == "default"
        assert saved.holdout is True
        assert (saved.enabled, saved.activation_probability) == (True, 0.7)
        assert saved.timeout_seconds == 45 and saved.active_for_models == ("root-model",)
        # the duty prompt comes from the starter
        assert saved.name == "Architecture Shadow" and saved.prompt == starter.prompt
        assert saved.capture == starter.capture
        on_disk = path.read_text()
        assert "holdout: true" in on_disk and "id: default" in on_disk
        shown = ok(await shadow(host, root, "/shadow show"))
        assert "holdout: true" in shown
        assert "SECRET" not in text + shown + on_disk


async def test_use_on_a_disabled_default_says_how_to_enable_it(tmp_path: Path) -> None:
    home = tmp_path / "home"
    disable(write_definition(home))
    async with shadow_host(tmp_path, script(), home=home) as (host, _, runtime):
        root = await new_root(host)
        text = ok(await shadow(host, root, "/shadow use evidence"))
        assert text == (
            "installed the evidence starter as the default reviewer definition (Evidence Shadow); "
            "it is disabled (/shadow set enabled true to run it)."
        )
        saved = runtime.registry.default_definition()
        assert saved.enabled is False and saved.holdout is False and saved.name == "Evidence Shadow"


async def test_use_on_a_fresh_home_installs_the_starter(tmp_path: Path) -> None:
    home = tmp_path / "home"
    async with shadow_host(tmp_path, script(), home=home) as (host, _, runtime):
        root = await new_root(host)
        ok(await shadow(host, root, "/shadow use simplification"))
        saved = runtime.registry.default_definition()
        assert saved.id == "default" and saved.name == "Simplification Shadow"
        assert saved.enabled is True  # the built-in default is enabled; the starter's own flag does not win


# --- config ------------------------------------------------------------------------------------------------


def settings_file(home: Path) -> Path:
    return home / "settings.yaml"


async def test_config_lists_every_setting(tmp_path: Path) -> None:
    async with shadow_host(tmp_path, script()) as (host, _, runtime):
        root = await new_root(host)
        lines = ok(await shadow(host, root, "/shadow config")).splitlines()
        import attrs

        names = [settings_key(f) for f in attrs.fields(ShadowMindSettings)]
        assert [line.split(":", 1)[0] for line in lines] == names
        assert "reviewWindowSize: 8" in lines
        assert 'argumentDisclosure: "redacted"' in lines
        assert 'reasoningEffortLadder: ["low", "medium", "high"]' in lines
        # whole numbers read as integers, also in float fields; fractions stay
        assert "resultBatchWindowMs: 0" in lines  # the profile row's value
        assert "defaultShadowTimeoutSeconds: 600" in lines
        assert "diminishingNoveltyThreshold: 0.4" in lines
        assert not any(line.endswith(".0") for line in lines)
        assert not any(line.startswith("healed") for line in lines)


async def test_config_reads_sets_and_unsets_a_key(tmp_path: Path) -> None:
    home = tmp_path / "home"
    async with shadow_host(tmp_path, script(), home=home) as (host, _, runtime):
        root = await new_root(host)
        assert ok(await shadow(host, root, "/shadow config maxReportChars")) == "maxReportChars: 0"
        assert ok(await shadow(host, root, "/shadow config maxReportChars 500")) == "maxReportChars: 500"
        assert runtime.settings().max_report_chars == 500
        assert "maxReportChars: 500" in settings_file(home).read_text()
        assert ok(await shadow(host, root, "/shadow config maxReportChars")) == "maxReportChars: 500"

        ok(await shadow(host, root, "/shadow config reasoningEffortLadder [low, high]"))
        assert runtime.settings().reasoning_effort_ladder == ("low", "high")
        ok(await shadow(host, root, "/shadow config randomSeed 42"))
        assert runtime.settings().random_seed == 42

        assert ok(await shadow(host, root, "/shadow config maxReportChars none")) == "maxReportChars: 0"
        assert runtime.settings().max_report_chars == 0
        assert "maxReportChars" not in settings_file(home).read_text()
        assert ok(await shadow(host, root, "/shadow config randomSeed null")) == "randomSeed: null"
        assert runtime.settings().random_seed is None


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        ("nope", ["unknown setting 'nope'; /shadow config lists them"]),
        ("nope 1", ["unknown setting 'nope'; /shadow config lists them"]),
        ("reviewWindowSize 1", ["reviewWindowSize", ">= 2"]),
        ("valueLoopEnabled maybe", ["valueLoopEnabled", "true or false"]),
        ("argumentDisclosure everything", ["argumentDisclosure"]),
        (
            "sessionShadowSoftBudgetChars 100",
            [
                "sessionShadowSoftBudgetChars needs sessionShadowHardBudgetChars: set a hard budget above the soft one, or unset the soft budget",
                "sessionShadowSoftBudgetChars needs frugalShadowModel: set the provider/model route",
            ],
        ),
        ("frugalShadowModel scripted/cheap", ["frugalShadowModel needs sessionShadowSoftBudgetChars"]),
        ("reasoningEffortLadder []", ["reasoningEffortLadder is empty: list at least one reasoning effort"]),
        ("spinningRepeatCount 9", ["reviewWindowSize (8) must cover every stagnation window", "raise reviewWindowSize to at least 9"]),
    ],
)
async def test_config_rejects_bad_writes_and_leaves_the_file_unchanged(
    tmp_path: Path, args: str, fragments: list[str]
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    settings_file(home).write_text("# my settings\nshadow-mind-runtime:\n  maxReportChars: 7\n")
    before = settings_file(home).read_bytes()
    async with shadow_host(tmp_path, script(), home=home) as (host, _, runtime):
        root = await new_root(host)
        value_before = runtime.settings()
        text = err(await shadow(host, root, f"/shadow config {args}"))
        for fragment in fragments:
            assert fragment in text, text
        assert runtime.settings() == value_before
    assert settings_file(home).read_bytes() == before


async def test_config_cross_field_write_is_rejected_without_creating_the_file(tmp_path: Path) -> None:
    home = tmp_path / "home"
    async with shadow_host(tmp_path, script(), home=home) as (host, _, runtime):
        root = await new_root(host)
        text = err(await shadow(host, root, "/shadow config sessionShadowSoftBudgetChars 100"))
        assert "sessionShadowSoftBudgetChars needs" in text
        assert runtime.settings().session_shadow_soft_budget_chars is None
        # a consistent write goes through
        assert ok(await shadow(host, root, "/shadow config sessionShadowHardBudgetChars 5000")) == (
            "sessionShadowHardBudgetChars: 5000"
        )
    assert "sessionShadowSoftBudgetChars" not in settings_file(home).read_text()


BROKEN = "shadow-mind-runtime:\n  reviewWindowSize: 2\n"


def heal_note() -> str:
    (note,) = heal(ShadowMindSettings(reviewWindowSize=2))[1]
    return note


async def test_a_hand_edited_settings_file_is_healed_and_reported(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    settings_file(home).write_text(BROKEN)  # before the host starts
    healed_size = heal(ShadowMindSettings(reviewWindowSize=2))[0].review_window_size
    assert healed_size > 2
    async with shadow_host(tmp_path, script(), home=home) as (host, _, runtime):
        root = await new_root(host)
        assert runtime.settings().review_window_size == healed_size
        status = ok(await shadow(host, root, "/shadow status"))
        assert "settings healed or ignored:" in status
        assert f"reviewWindowSize raised from 2 to {healed_size}" in status
        assert heal_note() in status
        listing = ok(await shadow(host, root, "/shadow config"))
        assert f"reviewWindowSize: {healed_size}" in listing
        assert "healed or ignored:" in listing and heal_note() in listing
    # healing never rewrites the user's file
    assert settings_file(home).read_text() == BROKEN


async def test_unrelated_writes_succeed_with_a_broken_file_in_place(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    settings_file(home).write_text(BROKEN)
    async with shadow_host(tmp_path, script(), home=home) as (host, _, runtime):
        root = await new_root(host)
        assert ok(await shadow(host, root, "/shadow config maxReportChars 100")) == "maxReportChars: 100"
        assert runtime.settings().max_report_chars == 100
        text = settings_file(home).read_text()
        assert "reviewWindowSize: 2" in text and "maxReportChars: 100" in text
        # the heal is still reported after the write
        assert heal_note() in ok(await shadow(host, root, "/shadow status"))
        # a write that keeps the window too small is still refused ...
        assert "reviewWindowSize (3) must cover every stagnation window" in err(
            await shadow(host, root, "/shadow config reviewWindowSize 3")
        )
        # ... and fixing the field makes the note go away
        ok(await shadow(host, root, "/shadow config reviewWindowSize 6"))
        status = ok(await shadow(host, root, "/shadow status"))
        assert "settings healed" not in status
        assert runtime.settings().review_window_size == 6


async def test_unknown_keys_in_the_settings_file_are_reported(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    settings_file(home).write_text("shadow-mind-runtime:\n  reviewWindowSzie: 12\n")
    async with shadow_host(tmp_path, script(), home=home) as (host, _, _):
        root = await new_root(host)
        status = ok(await shadow(host, root, "/shadow status"))
        assert "unknown field shadow-mind-runtime.reviewWindowSzie ignored" in status


async def test_config_sets_tied_settings_together(tmp_path: Path) -> None:
    """The soft budget, hard budget and frugal route depend on each other, so one
    key at a time can never enable the frugal tier; several KEY VALUE pairs can."""
    home = tmp_path / "home"
    async with shadow_host(tmp_path, script(), home=home) as (host, _, runtime):
        root = await new_root(host)
        text = ok(
            await shadow(
                host,
                root,
                "/shadow config sessionShadowSoftBudgetChars 100 sessionShadowHardBudgetChars 1000 frugalShadowModel scripted/cheap",
            )
        )
        assert text.splitlines() == [
            "sessionShadowSoftBudgetChars: 100",
            "sessionShadowHardBudgetChars: 1000",
            'frugalShadowModel: "scripted/cheap"',
        ]
        settings = runtime.settings()
        assert (settings.session_shadow_soft_budget_chars, settings.session_shadow_hard_budget_chars, settings.frugal_shadow_model) == (
            100, 1000, "scripted/cheap",
        )
        # unsetting one of them alone would break the rule again, and is refused
        assert "needs sessionShadowSoftBudgetChars" in err(await shadow(host, root, "/shadow config sessionShadowSoftBudgetChars none"))
        ok(await shadow(host, root, "/shadow config sessionShadowSoftBudgetChars none frugalShadowModel none"))
        assert runtime.settings().frugal_shadow_model is None
        # a bad pair in the group changes nothing
        before = settings_file(home).read_bytes()
        assert "must be less than" in err(
            await shadow(host, root, "/shadow config sessionShadowSoftBudgetChars 5000 frugalShadowModel scripted/cheap")
        )
        assert settings_file(home).read_bytes() == before


def test_a_value_yaml_cannot_read_is_a_clear_error() -> None:
    """A control character makes the YAML reader fail with an error that has no
    ``problem`` attribute; the message must still be a clear DshError."""
    from hookspecs.errors import DshError
    from shadow_mind_plugin.command_values import parse_value

    with pytest.raises(DshError, match="^maxReportChars: could not read the value"):
        parse_value("maxReportChars", "\x07")


def test_status_reads_in_words_a_person_knows() -> None:
    """No internal terms: the epoch is not shown, the value loop reads as what
    the agent did with the challenges (issue 21, item 11)."""
    from shadow_mind_plugin.commands import format_status

    status = {
        "paused": False, "active": [], "pending_schedules": 1, "total_runs": 3, "epoch": 7, "budget_tier": "standard",
        "spent_chars": 120, "cooldowns": [], "pending_escalations": [],
        "value_loop": [{"shadow_id": "default", "challenges": 3, "adopted": 1, "rejected": 1, "ignored": 1, "hit_rate": 0.5}],
    }  # fmt: skip
    text = format_status(status)
    assert "epoch" not in text and "value loop" not in text
    assert text.splitlines()[:3] == [
        "Shadow Mind active: 0 reviews running, 1 waiting to start, 3 in this session",
        "review budget: standard (120 characters reviewed since your last message)",
        "  challenges from default: 3 sent to the agent, which adopted 1, rejected 1 and ignored 1; "
        "it adopted 50% of those it answered",
    ]
