"""``.pinned`` skills over the real host: in inject mode a delivered review
prompt marks the session and the ``skill`` tool refuses writes to pinned
skills until the next real user message (a Shadow relay or an evolution notice
does not end it); in subagent mode the child's plan can never change them."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import attrs
import pytest

from evolution_review_plugin.pinned import ReviewMarks
from harness.host import drain
from hookspecs import hookimpl
from hookspecs.values import EventTypes, SessionEvent, create_user_message, message_to_json

from .helpers import evolution_host, interactive_root, reviews, say

pytestmark = pytest.mark.trio

ORIGINAL = "# deploy\n\nPush to staging first.\n"
REVIEW = "[self-improvement review]"


def pin(home: Path, name: str = "deploy") -> Path:
    directory = home / "skills" / name
    directory.mkdir(parents=True)
    (directory / "SKILL.md").write_text(ORIGINAL)
    (directory / ".pinned").write_text("")
    return directory / "SKILL.md"


def read_then_write(when: str, content: str) -> str:
    """Two root requests answering a user text containing ``when``: read deploy, write it."""
    return (
        f'  - match: {{depth: 0, last_user_contains: "{when}"}}\n'
        "    reply:\n"
        "      tool_calls: [{name: skill, arguments: {action: read, name: deploy}}]\n"
        f'  - match: {{depth: 0, last_user_contains: "{when}"}}\n'
        "    reply:\n"
        f"      tool_calls: [{{name: skill, arguments: {{action: write, name: deploy, content: {json.dumps(content)}}}}}]\n"
    )


def skill_results(agent: Any) -> list[str]:
    out = []
    for event in agent.session.events:
        if event.type == EventTypes.TOOL_RESULT:
            error = event.data.get("error")
            out.append(error["message"] if error else "ok")
    return out


INJECT = {"reviewMode": "inject", "reviewMemoryInterval": 1, "reviewSkillInterval": 50, "substantiveMinUserChars": 5}
#: one review per session at most: the interval is large after the first one
TAIL = "  - match: {}\n    repeat: true\n    reply: {text: ok}\n"


async def test_inject_mode_refuses_pinned_writes_until_the_next_real_user_message(dsh_host: Any, dsh_home: Path) -> None:
    skill = pin(dsh_home)
    script = (
        "responses:\n"
        '  - match: {depth: 0, last_user_contains: "hello there"}\n    reply: {text: ok}\n'
        + read_then_write(REVIEW, "# deploy\n\nChanged by the review.")
        + read_then_write("relayed finding", "# deploy\n\nChanged after a relay.")
        + read_then_write("update the deploy skill", "# deploy\n\nPush to a canary first.")
        + TAIL
    )
    async with evolution_host(dsh_host, script, **INJECT) as (host, _):
        plugin = host.pm.get_plugin("evolution-review")
        agent = await dsh_host.new_root(host)
        await say(host, agent, "hello there, a question")
        assert len(reviews(agent)) == 1
        ok, refused = skill_results(agent)[:2]
        assert ok == "ok" and "skill 'deploy' is pinned (its directory has a .pinned file)" in refused
        assert skill.read_text() == ORIGINAL
        assert plugin.marks.active(agent.id)
        # a Shadow relay is not the person talking: the mark stays
        agent.followup(create_user_message("a relayed finding", {"kind": "shadow-report"}))
        await drain(host, agent)
        assert "pinned" in skill_results(agent)[3] and skill.read_text() == ORIGINAL
        assert plugin.marks.active(agent.id)
        # the person's own request after the review may change it
        await say(host, agent, "please update the deploy skill")
        assert skill_results(agent)[4:6] == ["ok", "ok"]
        assert skill.read_text() == "# deploy\n\nPush to a canary first.\n"


async def test_without_a_review_prompt_pinned_skills_are_the_users_to_change(dsh_host: Any, dsh_home: Path) -> None:
    skill = pin(dsh_home)
    listing = "  - match: {depth: 0}\n    reply:\n      tool_calls: [{name: skill, arguments: {action: list}}]\n"
    script = "responses:\n" + listing + read_then_write("update the deploy skill", "# deploy\n\nCanary.") + TAIL
    async with evolution_host(dsh_host, script, reviewEnabled=False) as (host, _):
        agent = await dsh_host.new_root(host)
        await say(host, agent, "please update the deploy skill")
        assert skill_results(agent) == ["ok", "ok", "ok"]
        [listed] = [e.data for e in agent.session.events if e.type == EventTypes.TOOL_RESULT][:1]
        assert "- deploy (pinned): deploy" in json.dumps(listed)
        assert skill.read_text() == "# deploy\n\nCanary.\n"


CHILD = 'depth: 1, system_contains: "You review a finished conversation"'


async def test_subagent_mode_never_lets_the_plan_change_a_pinned_skill(dsh_host: Any, dsh_home: Path) -> None:
    skill = pin(dsh_home)
    plan = {"memoryOps": [], "skillOps": [{"action": "patch", "name": "deploy", "old": "staging", "new": "prod"}], "summary": "s"}
    script = (
        "responses:\n"
        f"  - match: {{{CHILD}, has_tools: [skill]}}\n"
        "    reply:\n"
        "      tool_calls: [{name: skill, arguments: {action: read, name: deploy}}]\n"
        f"  - match: {{{CHILD}}}\n"
        "    reply:\n"
        f"      tool_calls: [{{name: structured_output, arguments: {json.dumps(plan)}}}]\n" + TAIL
    )
    config = {"reviewMode": "subagent", "reviewMemoryInterval": 1, "reviewSkillInterval": 50, "substantiveMinUserChars": 5}
    async with evolution_host(dsh_host, script, **config) as (host, _):
        plugin = host.pm.get_plugin("evolution-review")
        agent = await dsh_host.new_root(host)
        await say(host, agent, "hello there, a question")
        [notice] = reviews(agent)
        assert "nothing was saved" in notice and "skill 'deploy' is protected" in notice
        assert skill.read_text() == ORIGINAL
        assert not plugin.marks.active(agent.id)  # a notice is no review prompt: the root is not marked


def user_event(seq: int, text: str, kind: str, message_id: str | None = None) -> SessionEvent:
    message = create_user_message(text, {"kind": kind})
    if message_id is not None:
        message = attrs.evolve(message, id=message_id)
    return SessionEvent(seq=seq, type=EventTypes.USER_MESSAGE, data={"message": message_to_json(message)}, time=0.0)


async def test_a_mark_ends_only_with_a_real_user_message_entered_after_its_prompt() -> None:
    marks = ReviewMarks()
    marks.set("s", "prompt-1")
    marks.on_user_message("s", user_event(1, "typed before the prompt entered", "user"))
    assert marks.active("s")  # that message precedes the review; the review is still to run
    marks.on_user_message("s", user_event(2, "review", "evolution-review", "prompt-1"))
    marks.on_user_message("s", user_event(3, "notice", "evolution-review"))
    marks.on_user_message("s", user_event(4, "relay", "shadow-report"))
    assert marks.active("s")
    marks.on_user_message("s", user_event(5, "thanks", "user"))
    assert not marks.active("s")
    # a prompt dropped from the inbox runs no review
    marks.set("s", "prompt-2")
    marks.on_discarded("s", "prompt-2")
    assert not marks.active("s")


class Answerer:
    def __init__(self) -> None:
        self.asked: list[str] = []

    @hookimpl
    async def dsh_approval_request(self, request: Any, call_next: Callable[[], Awaitable[str]]) -> str:
        self.asked.append(request.summary)
        return "allowed-once"


async def test_interactive_sessions_are_not_asked_about_a_pinned_write_the_tool_refuses(
    dsh_home: Path, dsh_workspace: Path
) -> None:
    skill = pin(dsh_home)
    script = "responses:\n" + read_then_write("first", "# deploy\n\nA.") + read_then_write("second", "# deploy\n\nB.") + TAIL
    answerer = Answerer()
    config = {"reviewEnabled": False}
    async with interactive_root(dsh_home, dsh_workspace, script, config, plugins=[("answerer", answerer)]) as (host, agent):
        plugin = host.pm.get_plugin("evolution-review")
        plugin.marks.set(agent.id, "a-review-prompt")  # as a delivered review prompt does
        agent.followup(create_user_message("first"))
        await drain(host, agent)
        assert answerer.asked == [] and "pinned" in skill_results(agent)[1]
        plugin.marks.forget(agent.id)
        agent.followup(create_user_message("second"))
        await drain(host, agent)
        assert len(answerer.asked) == 1 and skill_results(agent)[2:] == ["ok", "ok"]
    assert skill.read_text() == "# deploy\n\nB.\n"
