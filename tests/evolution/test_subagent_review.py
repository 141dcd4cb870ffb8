"""``subagent`` mode over the real host: the child's plan is validated and
applied, failures fall back to the prompt, the deadline is a cancel scope and
the child is disposed on every path."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing

from evolution_review_plugin.prompts import review_prompt
from evolution_review_plugin.vocabulary import PLAN_APPLIED, REVIEW_ERROR, REVIEW_SCHEDULED
from hookspecs.values import create_user_message

from .helpers import evolution_host, reviews, say

pytestmark = pytest.mark.trio

CONFIG = {"memoryInterval": 1, "skillInterval": 50, "substantiveMinUserChars": 5}
CHILD = 'depth: 1, system_contains: "You review a finished conversation"'
ROOT_OK = """\
  - match: {}
    repeat: true
    reply: {text: ok}
"""


def plan_script(plan: dict[str, Any], *, before: str = "", reply_extra: str = "", repeat: bool = False) -> str:
    return (
        "responses:\n"
        + before
        + f"  - match: {{{CHILD}}}\n"
        + ("    repeat: true\n" if repeat else "")
        + "    reply:\n"
        + reply_extra
        + f"      tool_calls: [{{name: structured_output, arguments: {json.dumps(plan)}}}]\n"
        + ROOT_OK
    )


PLAN = {
    "memoryOps": [{"action": "add", "target": "user", "text": "Prefers answers in French."}],
    "skillOps": [{"action": "write", "name": "make-check", "content": "# make check\n\nRun `make check` before a commit.\n"}],
    "summary": "Kept a preference and the build routine.",
}


def children(host: Any) -> list[Any]:
    return [a for a in host.agents.list() if not a.is_root]


async def test_the_plan_lands_and_the_next_session_starts_with_the_memory(dsh_host: Any, dsh_home: Path) -> None:
    async with evolution_host(dsh_host, plan_script(PLAN), **CONFIG) as (host, recorder):
        agent = await dsh_host.new_root(host)
        await say(host, agent, "hello there, answer in French please")
        assert (dsh_home / "memory" / "USER.md").read_text() == "Prefers answers in French.\n"
        skill = dsh_home / "skills" / "make-check" / "SKILL.md"
        assert "make check" in skill.read_text()
        assert oct(skill.stat().st_mode & 0o777) == "0o600"
        assert oct(skill.parent.stat().st_mode & 0o777) == "0o700"
        [notice] = reviews(agent)
        assert notice.startswith("💾 Self-improvement review: 1 memory note saved; skill make-check saved.")
        [applied] = recorder.named(PLAN_APPLIED)
        assert applied["memoryApplied"] == 1 and applied["skillApplied"] == ["make-check"]
        assert [p["kind"] for p in recorder.named(REVIEW_SCHEDULED)] == ["memory"]
        assert children(host) == []  # disposed
        # never a session event: the process-event channel only
        assert not [e for e in agent.session.events if e.type.startswith("evolution/")]

        nxt = await dsh_host.new_root(host)
        await say(host, nxt, "hi again")
        system = host.pm.get_plugin("dsh-test-model").adapter.requests[-1].system
        assert "Prefers answers in French." in system


async def test_unread_skill_writes_are_dropped(dsh_host: Any, dsh_home: Path) -> None:
    (dsh_home / "skills" / "deploy").mkdir(parents=True)
    (dsh_home / "skills" / "deploy" / "SKILL.md").write_text("# deploy\n\nPush to staging first.\n")
    plan = {"memoryOps": [], "skillOps": [{"action": "patch", "name": "deploy", "old": "staging", "new": "prod"}], "summary": "s"}
    async with evolution_host(dsh_host, plan_script(plan), **CONFIG) as (host, recorder):
        agent = await dsh_host.new_root(host)
        await say(host, agent, "hello there, a question")
        assert "staging" in (dsh_home / "skills" / "deploy" / "SKILL.md").read_text()
        [notice] = reviews(agent)
        assert "nothing was saved" in notice and "'deploy' was not read" in notice
        assert recorder.named(PLAN_APPLIED)[0]["rejectedOps"] == ["skill 'deploy' was not read before the change (dropped)"]


async def test_a_skill_the_child_read_may_be_patched(dsh_host: Any, dsh_home: Path) -> None:
    (dsh_home / "skills" / "deploy").mkdir(parents=True)
    (dsh_home / "skills" / "deploy" / "SKILL.md").write_text("# deploy\n\nPush to staging first.\n")
    plan = {"memoryOps": [], "skillOps": [{"action": "patch", "name": "deploy", "old": "staging", "new": "a canary"}], "summary": "s"}
    read_first = (
        f"  - match: {{{CHILD}, has_tools: [skill]}}\n"
        "    reply:\n"
        "      tool_calls: [{name: skill, arguments: {action: read, name: deploy}}]\n"
    )
    async with evolution_host(dsh_host, plan_script(plan, before=read_first), **CONFIG) as (host, _):
        agent = await dsh_host.new_root(host)
        await say(host, agent, "hello there, a question")
        assert "Push to a canary first." in (dsh_home / "skills" / "deploy" / "SKILL.md").read_text()


async def test_protected_skills_and_oversized_plans_are_refused(dsh_host: Any, dsh_home: Path) -> None:
    plan = {"memoryOps": [], "skillOps": [{"action": "write", "name": "core", "content": "x"}], "summary": "s"}
    config = {**CONFIG, "protectedSkillNames": ["core"]}
    async with evolution_host(dsh_host, plan_script(plan), **config) as (host, _):
        agent = await dsh_host.new_root(host)
        await say(host, agent, "hello there, a question")
        assert "skill 'core' is protected" in reviews(agent)[0]
        assert not (dsh_home / "skills" / "core").exists()
    big = {"memoryOps": [{"action": "add", "target": "memory", "text": f"n{i}"} for i in range(3)], "skillOps": [], "summary": "s"}
    async with evolution_host(dsh_host, plan_script(big), maxOpsPerPlan=2, **CONFIG) as (host, _):
        agent = await dsh_host.new_root(host)
        await say(host, agent, "hello there, a question")
        assert "the plan has 3 operations, over maxOpsPerPlan = 2" in reviews(agent)[0]
        assert not (dsh_home / "memory" / "MEMORY.md").exists()


async def test_timeout_of_one_ms_aborts_the_run_and_disposes_the_child(dsh_host: Any) -> None:
    script = plan_script(PLAN, reply_extra="      delay_seconds: 30\n")
    async with evolution_host(dsh_host, script, reviewTimeoutMs=1, **CONFIG) as (host, recorder):
        agent = await dsh_host.new_root(host)
        started = trio.current_time()
        await say(host, agent, "hello there, a question")
        assert trio.current_time() - started < 30  # the child's reply never came
        assert reviews(agent) == [review_prompt("memory")]  # fell back to the prompt
        [error] = recorder.named(REVIEW_ERROR)  # settled once: one error, no plan
        assert "reviewTimeoutMs" in error["reason"] and recorder.named(PLAN_APPLIED) == []
        assert children(host) == []
        child_ids = [s.id for s in host.sessions.list() if s.parent_session == agent.id]
        assert len(child_ids) == 1
        _, events = host.sessions.read(child_ids[0])
        # cut before or during its first turn: never completed, never answered
        assert [e.data["reason"]["kind"] for e in events if e.type == "turn/end"] in ([], ["aborted"])
        assert not [e for e in events if e.type in ("tool/call", "assistant/message")]


async def test_no_structured_plan_falls_back_to_the_prompt(dsh_host: Any) -> None:
    script = f"responses:\n  - match: {{{CHILD}}}\n    repeat: true\n    reply: {{text: 'nothing to add'}}\n" + ROOT_OK
    async with evolution_host(dsh_host, script, **CONFIG) as (host, recorder):
        agent = await dsh_host.new_root(host)
        await say(host, agent, "hello there, a question")
        assert reviews(agent) == [review_prompt("memory")]
        assert len(recorder.named(REVIEW_ERROR)) == 1 and recorder.named(PLAN_APPLIED) == []
        assert children(host) == []


async def test_no_subagent_service_falls_back_to_the_prompt(dsh_host: Any) -> None:
    async with evolution_host(dsh_host, plan_script(PLAN), **CONFIG) as (host, _):
        plugin = host.pm.get_plugin("evolution-review")
        plugin.controller.reviewer.host = object()  # a host without host.subagents
        agent = await dsh_host.new_root(host)
        await say(host, agent, "hello there, a question")
        assert reviews(agent) == [review_prompt("memory")]


async def test_a_second_review_while_one_is_in_flight_falls_back(dsh_host: Any, clock: trio.testing.MockClock) -> None:
    script = plan_script(PLAN, reply_extra="      delay_seconds: 5\n")
    async with evolution_host(dsh_host, script, **CONFIG) as (host, _):
        first, second = await dsh_host.new_root(host), await dsh_host.new_root(host)
        first.followup(create_user_message("hello there, first question"))
        await first.when_idle()
        second.followup(create_user_message("hello there, second question"))
        await host.wait_background_idle()
        await first.when_idle()
        await second.when_idle()
        assert reviews(first)[0].startswith("💾")
        assert reviews(second) == [review_prompt("memory")]


async def test_the_child_inherits_the_route_unless_the_policy_names_a_model(dsh_host: Any) -> None:
    async with evolution_host(dsh_host, plan_script(PLAN), **CONFIG) as (host, _):
        agent = await dsh_host.new_root(host)
        await say(host, agent, "hello there, a question")
        [child] = [r for r in host.pm.get_plugin("dsh-test-model").adapter.requests if r.metadata.get("delegation_depth") == 1]
        assert (child.provider, child.model) == ("scripted", "dsh-test-model")
        # reviewToolAllow (default [skill]) plus the structured-output tool the schema adds
        assert sorted(t.name for t in child.tools) == ["skill", "structured_output"]
        assert child.metadata["delegation_depth"] == 1
    async with evolution_host(dsh_host, plan_script(PLAN), memoryReviewModel="review-model", **CONFIG) as (host, _):
        agent = await dsh_host.new_root(host)
        await say(host, agent, "hello there, a question")
        [child] = [r for r in host.pm.get_plugin("dsh-test-model").adapter.requests if r.metadata.get("delegation_depth") == 1]
        assert (child.provider, child.model) == ("scripted", "review-model")


async def test_an_exception_after_the_run_falls_back_and_still_disposes_the_child(dsh_host: Any) -> None:
    async with evolution_host(dsh_host, plan_script(PLAN), **CONFIG) as (host, recorder):
        plugin = host.pm.get_plugin("evolution-review")

        def broken_library() -> Any:
            raise RuntimeError("library exploded")  # fault injection inside the review

        plugin.controller.reviewer.skills = broken_library
        agent = await dsh_host.new_root(host)
        await say(host, agent, "hello there, a question")
        assert reviews(agent) == [review_prompt("memory")]
        [error] = recorder.named(REVIEW_ERROR)
        assert "RuntimeError: library exploded" in error["reason"] and recorder.named(PLAN_APPLIED) == []
        assert children(host) == []


async def test_skill_writes_emit_skill_mutated(dsh_host: Any) -> None:
    async with evolution_host(dsh_host, plan_script(PLAN), **CONFIG) as (host, recorder):
        agent = await dsh_host.new_root(host)
        await say(host, agent, "hello there, a question")
        assert recorder.named("evolution/skill-mutated") == [
            {"name": "make-check", "action": "create", "origin": "background_review"}
        ]


async def test_a_review_error_carries_no_secret_and_is_bounded(dsh_host: Any) -> None:
    """The reason in ``evolution/review-error`` comes from an exception (a
    provider's message may echo a key): scrubbed and bounded like the plugin's
    other output (control characters are escaped where it is printed)."""
    async with evolution_host(dsh_host, plan_script(PLAN), **CONFIG) as (host, recorder):
        plugin = host.pm.get_plugin("evolution-review")

        def broken_library() -> Any:
            raise RuntimeError("upstream said: bad key sk-abcdefghijklmnop0123 " + "x" * 2000)

        plugin.controller.reviewer.skills = broken_library
        agent = await dsh_host.new_root(host)
        await say(host, agent, "hello there, a question")
        [error] = recorder.named(REVIEW_ERROR)
        assert "RuntimeError: upstream said: bad key" in error["reason"]
        assert "sk-abcdefghijklmnop0123" not in error["reason"] and len(error["reason"]) <= 500
