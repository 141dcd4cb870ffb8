"""The delivery channel: followup or inject, refusals, restarts, persistence
failures; and the memory notes loaded into the next session's system prompt."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from evolution_review_plugin.delivery import deliver_message, notice_message
from evolution_review_plugin.prompts import review_prompt
from hookspecs.errors import AgentError
from hookspecs.values import AgentOptions

from .helpers import evolution_host, reviews, saved_state, say, turn_ends

pytestmark = pytest.mark.trio

SCRIPT = """\
responses:
  - match: {}
    repeat: true
    reply: {text: ok}
"""
CONFIG = {"reviewMode": "inject", "reviewMemoryInterval": 1, "reviewSkillInterval": 50, "substantiveMinUserChars": 5}


class NoFollowup:
    """A real agent seen through a host that has no ``followup`` primitive."""

    def __init__(self, agent: Any) -> None:
        self._agent = agent

    def __getattr__(self, name: str) -> Any:
        if name == "followup":
            raise AttributeError(name)
        return getattr(self._agent, name)


class RefusesOnce(NoFollowup):
    """A real agent whose first delivery is refused (fault injection)."""

    refused = 0

    def __getattr__(self, name: str) -> Any:
        if name in ("followup", "inject") and not self.refused:

            def refuse(message: Any) -> None:
                self.refused += 1
                raise AgentError("inbox closed for the test", code="AGENT_DISPOSED")

            return refuse
        return getattr(self._agent, name)


async def test_without_followup_the_channel_falls_back_to_inject(dsh_host: Any) -> None:
    async with evolution_host(dsh_host, SCRIPT, **CONFIG) as (host, _):
        agent = await dsh_host.new_root(host)
        how = deliver_message(NoFollowup(agent), notice_message("hi", "test"), wake=True, logger=logging.getLogger())
        assert how == "inject"
        assert [m.source["kind"] for m in agent.inbox.next_step] == ["evolution-review"]
        assert agent.status == "idle"  # inject does not wake


async def test_the_controller_uses_inject_when_the_host_lacks_followup(dsh_host: Any) -> None:
    async with evolution_host(dsh_host, SCRIPT, **CONFIG) as (host, _):
        plugin = host.pm.get_plugin("evolution-review")
        agent = await dsh_host.new_root(host)
        plugin.controller.agent_of = lambda sid: NoFollowup(host.agents.get(sid))
        await say(host, agent, "hello there, a question")
        assert turn_ends(agent) == ["completed"]  # nothing woke the agent
        assert reviews(agent) == []  # waiting in the inbox for the next wake
        await say(host, agent, "second question")
        assert reviews(agent) == [review_prompt("memory")]


async def test_review_wake_inject_false_waits_for_the_next_wake(dsh_host: Any) -> None:
    async with evolution_host(dsh_host, SCRIPT, reviewWakeInject=False, **CONFIG) as (host, _):
        agent = await dsh_host.new_root(host)
        await say(host, agent, "hello there, a question")
        assert turn_ends(agent) == ["completed"]
        assert [m.source["kind"] for m in agent.inbox.next_step] == ["evolution-review"]


async def test_a_refused_delivery_keeps_latch_and_counters(dsh_host: Any, dsh_home: Path) -> None:
    async with evolution_host(dsh_host, SCRIPT, **CONFIG) as (host, recorder):
        plugin = host.pm.get_plugin("evolution-review")
        agent = await dsh_host.new_root(host)
        flaky = RefusesOnce(agent)
        plugin.controller.agent_of = lambda sid: flaky
        await say(host, agent, "hello there, a question")
        assert flaky.refused == 1 and reviews(agent) == [] and recorder.events == []
        assert plugin.controller.state(agent.id).latched == "memory"
        assert saved_state(dsh_home, agent.id)["turnsSinceMemory"] == 1  # not zeroed
        await say(host, agent, "second question")  # the next completed boundary retries
        assert reviews(agent) == [review_prompt("memory")]
        assert saved_state(dsh_home, agent.id)["turnsSinceMemory"] == 0


async def test_a_restart_clears_the_queue(dsh_host: Any, dsh_home: Path) -> None:
    async with evolution_host(dsh_host, SCRIPT, reviewWakeInject=False, **CONFIG) as (host, _):
        agent = await dsh_host.new_root(host)
        session_id = agent.id
        await say(host, agent, "hello there, a question")
        assert agent.inbox.has_pending  # the review waits, unwoken
    async with evolution_host(dsh_host, SCRIPT, reviewWakeInject=False, **CONFIG) as (host, _):
        options = AgentOptions(provider="scripted", model="dsh-test-model")
        agent = (await host.agents.resume(session_id, agent_options=options)).agent
        assert not agent.inbox.has_pending
        assert saved_state(dsh_home, session_id)["turnsSinceMemory"] == 0  # the window was reset at delivery
        assert reviews(agent) == []
        # the resumed session keeps counting from its log's turn numbers
        await say(host, agent, "back again with a question")
        assert saved_state(dsh_home, session_id)["lastTurn"] == 2
        assert [m.source["kind"] for m in agent.inbox.next_step] == ["evolution-review"]


async def test_a_failed_reset_persist_warns_once_per_session(
    dsh_host: Any, dsh_home: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (dsh_home / "evolution" / "review-state.json").mkdir(parents=True)  # every save fails
    async with evolution_host(dsh_host, SCRIPT, **CONFIG) as (host, _):
        agent = await dsh_host.new_root(host)
        with caplog.at_level(logging.WARNING):
            await say(host, agent, "hello there, a question")
            await say(host, agent, "another question")
        assert len(reviews(agent)) == 2
        resets = [r for r in caplog.records if "review-window reset" in r.getMessage()]
        assert len(resets) == 1


async def test_memory_notes_load_into_the_next_root_system_prompt(dsh_host: Any, dsh_home: Path) -> None:
    (dsh_home / "memory").mkdir(parents=True)
    (dsh_home / "memory" / "MEMORY.md").write_text("The build runs with make check.\n")
    (dsh_home / "memory" / "USER.md").write_text("Prefers short answers.\n")
    async with evolution_host(dsh_host, SCRIPT, reviewEnabled=False) as (host, _):
        agent = await dsh_host.new_root(host)
        await say(host, agent, "hello")
        plugin = host.pm.get_plugin("dsh-test-model")
        system = plugin.adapter.requests[-1].system
        assert "The build runs with make check." in system and "Prefers short answers." in system


async def test_a_hand_edited_oversized_note_is_loaded_within_its_cap(dsh_host: Any, dsh_home: Path) -> None:
    (dsh_home / "memory").mkdir(parents=True)
    (dsh_home / "memory" / "MEMORY.md").write_text("A" * 50 + "TAIL-NOT-LOADED\n")
    async with evolution_host(dsh_host, SCRIPT, reviewEnabled=False, memoryChars=20) as (host, _):
        agent = await dsh_host.new_root(host)
        await say(host, agent, "hello")
        system = host.pm.get_plugin("dsh-test-model").adapter.requests[-1].system
        assert "A" * 19 + "…" in system and "TAIL-NOT-LOADED" not in system


async def test_the_skills_root_setting_moves_the_library(dsh_host: Any, tmp_path: Path) -> None:
    elsewhere = tmp_path / "team-skills"
    async with evolution_host(dsh_host, SCRIPT, reviewEnabled=False, root=str(elsewhere)) as (host, _):
        host.pm.get_plugin("evolution-review").skills.write("shared", "# shared\n", origin="tool")
    assert (elsewhere / "shared" / "SKILL.md").read_text() == "# shared\n"


async def test_a_corrupt_state_file_is_named_in_one_warning_and_starts_fresh(
    dsh_host: Any, dsh_home: Path, caplog: pytest.LogCaptureFixture
) -> None:
    state = dsh_home / "evolution" / "review-state.json"
    state.parent.mkdir(parents=True)
    state.write_text("{not json")
    async with evolution_host(dsh_host, SCRIPT, **CONFIG) as (host, _):
        agent = await dsh_host.new_root(host)
        with caplog.at_level(logging.WARNING):
            await say(host, agent, "hello there, a question")
        assert reviews(agent) == [review_prompt("memory")]
    warnings = [r.getMessage() for r in caplog.records if "review-state.json" in r.getMessage()]
    assert len(warnings) == 1 and "starting with empty review windows" in warnings[0]
