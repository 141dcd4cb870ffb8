"""Approval-staged plan writes: in an interactive host a review plan's memory
notes and skill writes wait under ``skills/.staged/<planId>/`` until the user runs
``/evolution approve`` (or ``reject``); headless hosts apply them directly.
Real host (interactive), real files, and one real ``harness run`` process."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from evolution_review_plugin.plan import SkillOp
from evolution_review_plugin.skills_store import FileSkillLibrary
from evolution_review_plugin.staged_command import staged_verb
from evolution_review_plugin.staging import SkillStaging
from evolution_review_plugin.vocabulary import PLAN_APPLIED, SKILL_MUTATED
from harness.host import drain
from hookspecs.errors import DshError
from hookspecs.values import create_user_message

from .helpers import ROOT, ProcessEventRecorder, evolution_host, harness_cli, interactive_root, reviews, say
from .test_subagent_review import CHILD, CONFIG, PLAN, plan_script


@asynccontextmanager
async def interactive(home: Path, workspace: Path, script: str) -> AsyncIterator[tuple[Any, Any, ProcessEventRecorder]]:
    """An interactive (not headless) host, one root agent, one finished conversation."""
    recorder = ProcessEventRecorder()
    async with interactive_root(home, workspace, script, CONFIG, plugins=[("recorder", recorder)]) as (host, agent):
        agent.followup(create_user_message("hello there, answer in French please"))
        await drain(host, agent)
        yield host, agent, recorder


async def command(host: Any, agent: Any, line: str) -> tuple[str, str]:
    result = await host.commands.execute(agent, line)
    return result.kind, result.text


async def test_an_interactive_host_stages_plan_writes_until_approved(dsh_home: Path, dsh_workspace: Path) -> None:
    async with interactive(dsh_home, dsh_workspace, plan_script(PLAN)) as (host, agent, recorder):
        [applied] = recorder.named(PLAN_APPLIED)
        plan_id = applied["planId"]
        assert (applied["skillApplied"], applied["skillStaged"]) == ([], ["make-check"])
        assert (applied["memoryApplied"], applied["memoryStaged"]) == (0, 1)
        # the memory note waits with the skill
        assert not (dsh_home / "memory" / "USER.md").exists()
        skill = dsh_home / "skills" / "make-check" / "SKILL.md"
        assert not skill.exists()
        staged = dsh_home / "skills" / ".staged" / plan_id / "plan.json"
        assert json.loads(staged.read_text())["ops"][0]["name"] == "make-check"
        assert oct(staged.stat().st_mode & 0o777) == "0o600"
        assert {oct(d.stat().st_mode & 0o777) for d in (staged.parent, staged.parent.parent)} == {"0o700"}
        [notice] = reviews(agent)
        assert f"1 memory note and skill make-check staged for your approval — `/evolution show {plan_id}`" in notice
        assert recorder.named(SKILL_MUTATED) == []

        kind, listing = await command(host, agent, "/evolution staged")
        assert kind == "success"
        assert f"- {plan_id}: memory note (add, USER.md), skill make-check (write) — Kept a preference" in listing
        kind, shown = await command(host, agent, f"/evolution show {plan_id}")
        assert kind == "success" and "Run `make check` before a commit." in shown
        assert "--- memory note 1: add in USER.md ---\nPrefers answers in French." in shown

        kind, text = await command(host, agent, f"/evolution approve {plan_id}")
        assert (kind, text) == ("success", f"Plan {plan_id} approved: 1 memory note saved, skill make-check saved.")
        assert (dsh_home / "memory" / "USER.md").read_text() == "Prefers answers in French.\n"
        assert "Run `make check` before a commit." in skill.read_text()
        assert recorder.named(SKILL_MUTATED) == [{"name": "make-check", "action": "create", "origin": "background_review"}]
        assert not staged.parent.exists()
        assert await command(host, agent, "/evolution staged") == ("success", "No staged changes.")


async def test_a_rejected_plan_writes_nothing(dsh_home: Path, dsh_workspace: Path) -> None:
    async with interactive(dsh_home, dsh_workspace, plan_script(PLAN)) as (host, agent, recorder):
        plan_id = recorder.named(PLAN_APPLIED)[0]["planId"]
        kind, text = await command(host, agent, f"/evolution reject {plan_id}")
        assert (kind, text) == (
            "success",
            f"Plan {plan_id} rejected: memory note (add, USER.md), skill make-check (write) discarded.",
        )
        assert not (dsh_home / "skills" / "make-check").exists()
        assert not (dsh_home / "memory" / "USER.md").exists()
        assert not (dsh_home / "skills" / ".staged" / plan_id).exists()
        assert await command(host, agent, f"/evolution approve {plan_id}") == (
            "error",
            f"there is no staged plan {plan_id!r}; `/evolution staged` lists them",
        )


async def test_a_skill_changed_since_the_review_is_not_overwritten(dsh_home: Path, dsh_workspace: Path) -> None:
    skill = dsh_home / "skills" / "deploy" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("# deploy\n\nPush to staging first.\n")
    plan = {"memoryOps": [], "skillOps": [{"action": "patch", "name": "deploy", "old": "staging", "new": "a canary"}]}
    read_first = (
        f"  - match: {{{CHILD}, has_tools: [skill]}}\n"
        "    reply:\n"
        "      tool_calls: [{name: skill, arguments: {action: read, name: deploy}}]\n"
    )
    async with interactive(dsh_home, dsh_workspace, plan_script(plan, before=read_first)) as (host, agent, recorder):
        plan_id = recorder.named(PLAN_APPLIED)[0]["planId"]
        skill.write_text("# deploy\n\nPush to staging first, then tell the team.\n")  # edited meanwhile
        kind, text = await command(host, agent, f"/evolution approve {plan_id}")
        assert kind == "success"
        assert text == (
            f"Plan {plan_id} approved: nothing applied; not applied: skill 'deploy' changed since the review; not overwritten."
        )
        assert skill.read_text() == "# deploy\n\nPush to staging first, then tell the team.\n"


async def test_bad_command_input_gets_one_line_naming_it(dsh_home: Path, dsh_workspace: Path) -> None:
    async with interactive(dsh_home, dsh_workspace, plan_script(PLAN)) as (host, agent, _):
        assert await command(host, agent, "/evolution approve ../../etc") == (
            "error",
            "planId '../../etc' is not a plan id (12 hex digits, as the review notice shows)",
        )
        assert await command(host, agent, "/evolution frobnicate") == (
            "error",
            "unknown subcommand 'frobnicate'; /evolution help lists them",
        )
        kind, usage = await command(host, agent, "/evolution approve")
        assert kind == "error" and "/evolution approve PLAN" in usage


async def test_a_headless_host_applies_plan_writes_directly(dsh_host: Any, dsh_home: Path) -> None:
    async with evolution_host(dsh_host, plan_script(PLAN), **CONFIG) as (host, recorder):
        agent = await dsh_host.new_root(host)
        await say(host, agent, "hello there, a question")
        assert (dsh_home / "skills" / "make-check" / "SKILL.md").exists()
        assert recorder.named(PLAN_APPLIED)[0]["skillStaged"] == []
        assert not (dsh_home / "skills" / ".staged").exists()


def test_a_staged_plan_is_approved_from_the_command_line(tmp_path: Path) -> None:
    home = tmp_path / "home"
    library = FileSkillLibrary(home / "skills", content_chars=100_000)
    staging = SkillStaging(home / "skills" / ".staged")
    op = SkillOp(action="write", name="flaky-tests", content="# Flaky tests\n\nPin the seed.\n")
    staging.stage("0123456789ab", [op], session_id="s1", summary="kept a fix", library=library)
    argv = ["run", "--profile", "examples/profiles/evolution-scripted.yml"]
    listed = harness_cli(ROOT, home, *argv, "/evolution staged")
    assert listed.returncode == 0, listed.stderr
    assert "- 0123456789ab: skill flaky-tests (write) — kept a fix" in listed.stdout
    approved = harness_cli(ROOT, home, *argv, "/evolution approve 0123456789ab")
    assert approved.returncode == 0, approved.stderr
    assert re.search(r"Plan 0123456789ab approved: skill flaky-tests saved\.", approved.stdout)
    assert (home / "skills" / "flaky-tests" / "SKILL.md").read_text() == "# Flaky tests\n\nPin the seed.\n"
    assert not (home / "skills" / ".staged" / "0123456789ab").exists()


def test_the_staging_area_lists_plans_oldest_first_and_skips_what_it_cannot_read(tmp_path: Path) -> None:
    library = FileSkillLibrary(tmp_path / "skills", content_chars=100_000)
    staging = SkillStaging(tmp_path / "skills" / ".staged")
    assert staging.pending() == []  # no staging area yet
    op = SkillOp(action="write", name="a", content="# a\n")
    staging.stage("00000000000b", [op], session_id="s", summary="", library=library)
    staging.stage("00000000000a", [op], session_id="s", summary="", library=library)
    (tmp_path / "skills" / ".staged" / "0000000000ff").mkdir()  # no plan file
    (tmp_path / "skills" / ".staged" / "0000000000ee").mkdir()
    (tmp_path / "skills" / ".staged" / "0000000000ee" / "plan.json").write_text("{not json")
    assert sorted(p.plan_id for p in staging.pending()) == ["00000000000a", "00000000000b"]
    with pytest.raises(DshError, match="a staged plan with this id already exists"):
        staging.stage("00000000000a", [op], session_id="s", summary="", library=library)
    with pytest.raises(DshError, match="0000000000ee.*unreadable staged plan"):
        staging.get("0000000000ee")


async def test_approving_a_plan_never_overwrites_a_pinned_skill(tmp_path: Path) -> None:
    library = FileSkillLibrary(tmp_path / "skills", content_chars=100_000)
    library.write("deploy", "# deploy\n\nPush to staging first.\n", origin="tool")
    staging = SkillStaging(tmp_path / "skills" / ".staged")
    ops = [
        SkillOp(action="write", name="deploy", content="# deploy\n\nPush to prod.\n"),
        SkillOp(action="write", name="notes", content="# notes\n"),
    ]
    staging.stage("0123456789ab", ops, session_id="s1", summary="", library=library)
    (tmp_path / "skills" / "deploy" / ".pinned").write_text("")  # pinned while the plan waited
    result = await staged_verb(["approve", "0123456789ab"], lambda: staging, lambda: library)
    assert (result.kind, result.text) == (
        "success",
        "Plan 0123456789ab approved: skill notes saved; not applied: skill 'deploy' is pinned (its directory has a "
        ".pinned file): the self-improvement review may not change it.",
    )
    assert library.read("deploy") == "# deploy\n\nPush to staging first.\n"
    assert library.read("notes") == "# notes\n"
