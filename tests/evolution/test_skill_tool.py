"""The model-facing ``skill`` and ``memory`` tools over the real host:
read-before-write, protected names, the size cap, approval in interactive
sessions, and the files they leave under DSH_HOME."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from hookspecs import hookimpl
from hookspecs.values import EventTypes

from .helpers import evolution_host, interactive_root, say

pytestmark = pytest.mark.trio


def calls_script(*calls: str) -> str:
    """One root tool call per request, in order, then ``done``."""
    steps = "".join(
        f"  - match: {{depth: 0}}\n    reply:\n      tool_calls: [{{name: {call}}}]\n" for call in calls
    )
    return "responses:\n" + steps + "  - match: {}\n    repeat: true\n    reply: {text: done}\n"


def results(agent: Any) -> list[str]:
    """Each tool result: ``ok`` or its error message."""
    out = []
    for event in agent.session.events:
        if event.type == EventTypes.TOOL_RESULT:
            error = event.data.get("error")
            # the host prefixes argument errors ("invalid arguments: ..."); keep the tool's own words
            out.append(error["message"].split(": ", 1)[-1] if error else "ok")
    return out


OFF = {"reviewEnabled": False}


async def test_write_read_patch_and_read_before_write(dsh_host: Any, dsh_home: Path) -> None:
    script = calls_script(
        'skill, arguments: {action: list}',
        'skill, arguments: {action: write, name: make-check, content: "# make check\\n\\nRun make check."}',
        'skill, arguments: {action: patch, name: make-check, old: "Run", new: "Always run"}',
    )
    async with evolution_host(dsh_host, script, **OFF) as (host, _):
        agent = await dsh_host.new_root(host)
        await say(host, agent, "save the routine")
        assert results(agent) == ["ok", "ok", "ok"]  # a new skill needs no read; its writer knows it
        assert (dsh_home / "skills" / "make-check" / "SKILL.md").read_text() == "# make check\n\nAlways run make check.\n"

    script = calls_script(
        'skill, arguments: {action: patch, name: make-check, old: "Always", new: "Never"}',
        "skill, arguments: {action: read, name: make-check}",
        'skill, arguments: {action: patch, name: make-check, old: "Always", new: "Usually"}',
    )
    async with evolution_host(dsh_host, script, **OFF) as (host, _):
        agent = await dsh_host.new_root(host)  # another agent: it has read nothing
        await say(host, agent, "change the routine")
        assert results(agent) == ["read skill 'make-check' before changing it (action 'read')", "ok", "ok"]
        assert "Usually run make check." in (dsh_home / "skills" / "make-check" / "SKILL.md").read_text()


async def test_protected_names_bad_names_and_the_size_cap(dsh_host: Any, dsh_home: Path) -> None:
    script = calls_script(
        "skill, arguments: {action: write, name: core, content: x}",
        "skill, arguments: {action: write, name: ../escape, content: x}",
        "skill, arguments: {action: write, name: big, content: 0123456789ABC}",
        "skill, arguments: {action: read, name: missing}",
    )
    config = {**OFF, "protectedSkillNames": ["core"], "skillContentChars": 10}
    async with evolution_host(dsh_host, script, **config) as (host, _):
        agent = await dsh_host.new_root(host)
        await say(host, agent, "try things")
        protected, bad, big, missing = results(agent)
        assert protected == "skill 'core' is protected; it cannot be changed"
        assert bad.startswith("skill name '../escape' is invalid")
        assert big == "skill content is 13 characters, over the cap of 10; shorten it"
        assert missing == "there is no skill 'missing'; `list` shows the existing ones"
    assert not (dsh_home / "skills").exists() or list((dsh_home / "skills").iterdir()) == []
    assert not (dsh_home.parent / "escape").exists()


async def test_the_memory_tool_keeps_bounded_notes(dsh_host: Any, dsh_home: Path) -> None:
    script = calls_script(
        'memory, arguments: {action: add, target: user, text: "Likes tables."}',
        'memory, arguments: {action: add, target: user, text: "Writes in British English, always."}',
        'memory, arguments: {action: replace, target: user, old_text: "Likes", text: "Loves"}',
        'memory, arguments: {action: remove, target: memory, old_text: "nothing"}',
    )
    async with evolution_host(dsh_host, script, userChars=20, **OFF) as (host, _):
        agent = await dsh_host.new_root(host)
        await say(host, agent, "remember this")
        ok, over, replaced, missing = results(agent)
        assert (ok, replaced) == ("ok", "ok")
        assert over.startswith("USER.md would hold") and "over its cap of 20" in over
        assert missing == "old_text not found in MEMORY.md"
    notes = dsh_home / "memory" / "USER.md"
    assert notes.read_text() == "Loves tables.\n"
    assert oct(notes.stat().st_mode & 0o777) == "0o600" and oct(notes.parent.stat().st_mode & 0o777) == "0o700"


class Answerer:
    def __init__(self, outcome: str) -> None:
        self.outcome = outcome
        self.asked: list[str] = []

    @hookimpl
    async def dsh_approval_request(self, request: Any, call_next: Callable[[], Awaitable[str]]) -> str:
        self.asked.append(request.summary)
        return self.outcome


@pytest.mark.parametrize("outcome", ["allowed-once", "rejected"])
async def test_interactive_sessions_ask_before_a_skill_write(dsh_home: Path, dsh_workspace: Path, outcome: str) -> None:
    from harness.host import drain
    from hookspecs.values import create_user_message

    script = calls_script("skill, arguments: {action: list}", "skill, arguments: {action: write, name: notes, content: hi}")
    answerer = Answerer(outcome)
    async with interactive_root(dsh_home, dsh_workspace, script, OFF, plugins=[("answerer", answerer)]) as (host, agent):
        agent.followup(create_user_message("save a note"))
        await drain(host, agent)
    assert len(answerer.asked) == 1  # the list was not asked about, the write was
    assert (dsh_home / "skills" / "notes" / "SKILL.md").exists() == (outcome == "allowed-once")
