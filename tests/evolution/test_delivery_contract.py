"""The delivery contract over the real host with the scripted model (inject
mode): latch and flush, one review per boundary, the woken turn, the counting
window. Timing runs on trio's MockClock; nothing sleeps."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from evolution_review_plugin.prompts import COMPLETION_SKILL_REVIEW_PROMPT, review_prompt
from evolution_review_plugin.vocabulary import REVIEW_SCHEDULED

from .helpers import evolution_host, reviews, saved_state, say, turn_ends

pytestmark = pytest.mark.trio

SCRIPT = """\
responses:
  - match: {depth: 0, last_user_contains: "long task"}
    repeat: true
    reply: {text: "working on it, still going", finish: max-tokens}
  - match: {depth: 0, last_user_contains: "look it up", has_tools: [read]}
    reply:
      tool_calls: [{name: read, arguments: {path: notes.txt}}]
  - match: {}
    repeat: true
    reply: {text: ok}
"""

#: every real user message of a few words is substantive; the woken turn's "ok" is not
SMALL = {"reviewMode": "inject", "substantiveMinUserChars": 5, "substantiveMinAgentChars": 400}


async def test_threshold_mid_task_latches_and_the_completed_turn_flushes(dsh_host: Any, dsh_home: Path) -> None:
    # memory 2 / skill 1: the cut-off turn fires "skill" (latched); the completed
    # turn fires "combined", but the latch wins (pendingKind = latch ?? kind)
    async with evolution_host(dsh_host, SCRIPT, reviewMemoryInterval=2, reviewSkillInterval=1, **SMALL) as (host, recorder):
        agent = await dsh_host.new_root(host)
        await say(host, agent, "please do the long task now")
        assert turn_ends(agent) == ["max-tokens"]
        assert reviews(agent) == [] and recorder.named(REVIEW_SCHEDULED) == []
        assert saved_state(dsh_home, agent.id) == {"turnsSinceMemory": 1, "turnsSinceSkill": 1, "lastTurn": 1}

        await say(host, agent, "thanks, carry on please")
        assert reviews(agent) == [review_prompt("skill")]
        assert [p["kind"] for p in recorder.named(REVIEW_SCHEDULED)] == ["skill"]
        # zeroed at the delivery; the woken review turn is not substantive
        assert saved_state(dsh_home, agent.id) == {"turnsSinceMemory": 0, "turnsSinceSkill": 0, "lastTurn": 3}
        assert turn_ends(agent) == ["max-tokens", "completed", "completed"]


async def test_a_fire_on_the_completing_turn_is_delivered_at_once(dsh_host: Any) -> None:
    async with evolution_host(dsh_host, SCRIPT, reviewMemoryInterval=1, reviewSkillInterval=50, **SMALL) as (host, recorder):
        agent = await dsh_host.new_root(host)
        await say(host, agent, "hello there, a question")
        assert reviews(agent) == [review_prompt("memory")]
        assert len(recorder.named(REVIEW_SCHEDULED)) == 1


async def test_below_the_interval_nothing_is_delivered(dsh_host: Any, dsh_home: Path) -> None:
    async with evolution_host(dsh_host, SCRIPT, reviewMemoryInterval=3, reviewSkillInterval=3, **SMALL) as (host, _):
        agent = await dsh_host.new_root(host)
        await say(host, agent, "hello there, a question")
        await say(host, agent, "and a second question")
        assert reviews(agent) == []
        assert saved_state(dsh_home, agent.id) == {"turnsSinceMemory": 2, "turnsSinceSkill": 2, "lastTurn": 2}
        await say(host, agent, "and a third question")
        assert reviews(agent) == [review_prompt("combined")]


async def test_both_at_one_boundary_serves_one_review(dsh_host: Any, dsh_workspace: Path) -> None:
    (dsh_workspace / "notes.txt").write_text("the answer is 42\n")
    config = {**SMALL, "skillReviewTrigger": "both", "skillReviewCompletionMinToolCalls": 1}
    async with evolution_host(dsh_host, SCRIPT, reviewMemoryInterval=1, reviewSkillInterval=50, **config) as (host, recorder):
        agent = await dsh_host.new_root(host)
        await say(host, agent, "please look it up in the notes")
        # the cadence flush served this boundary: no completion prompt beside it
        assert reviews(agent) == [review_prompt("memory")]
        assert len(recorder.named(REVIEW_SCHEDULED)) == 1


async def test_completion_channel_runs_once_after_enough_tool_calls(dsh_host: Any, dsh_workspace: Path) -> None:
    (dsh_workspace / "notes.txt").write_text("the answer is 42\n")
    config = {**SMALL, "skillReviewTrigger": "completion", "skillReviewCompletionMinToolCalls": 1}
    async with evolution_host(dsh_host, SCRIPT, reviewMemoryInterval=50, reviewSkillInterval=50, **config) as (host, recorder):
        agent = await dsh_host.new_root(host)
        await say(host, agent, "please look it up in the notes")
        await say(host, agent, "thanks, one more thing")
        assert reviews(agent) == [COMPLETION_SKILL_REVIEW_PROMPT]
        assert [p["kind"] for p in recorder.named(REVIEW_SCHEDULED)] == ["skill"]


async def test_cadence_trigger_never_takes_the_completion_channel(dsh_host: Any, dsh_workspace: Path) -> None:
    (dsh_workspace / "notes.txt").write_text("the answer is 42\n")
    config = {**SMALL, "skillReviewCompletionMinToolCalls": 1}
    async with evolution_host(dsh_host, SCRIPT, reviewMemoryInterval=50, reviewSkillInterval=50, **config) as (host, _):
        agent = await dsh_host.new_root(host)
        await say(host, agent, "please look it up in the notes")
        assert reviews(agent) == []


async def test_the_woken_turn_counts_but_cannot_refire_at_interval_one(dsh_host: Any, dsh_home: Path) -> None:
    # every turn is substantive (agent chars >= 1), so the woken review turn would fire again
    config = {**SMALL, "substantiveMinAgentChars": 1}
    # one-shot replies: a review loop would exhaust the script (an error turn) instead of hanging
    bounded = "responses:\n" + "  - match: {}\n    reply: {text: ok}\n" * 6
    async with evolution_host(dsh_host, bounded, reviewMemoryInterval=1, reviewSkillInterval=1, **config) as (host, recorder):
        agent = await dsh_host.new_root(host)
        await say(host, agent, "hello there, a question")
        assert turn_ends(agent) == ["completed", "completed"]  # the question, then the woken review turn
        assert reviews(agent) == [review_prompt("combined")]
        assert len(recorder.named(REVIEW_SCHEDULED)) == 1
        # the woken turn still counted its activity
        assert saved_state(dsh_home, agent.id) == {"turnsSinceMemory": 1, "turnsSinceSkill": 1, "lastTurn": 2}
        # the next real turn fires again: one review per real boundary, no loop
        await say(host, agent, "another question")
        assert len(reviews(agent)) == 2
        assert turn_ends(agent) == ["completed"] * 4


async def test_counters_are_activity_weighted_and_idempotent(dsh_host: Any, dsh_home: Path, dsh_workspace: Path) -> None:
    (dsh_workspace / "notes.txt").write_text("the answer is 42\n")
    config = {**SMALL, "substantiveMinToolCalls": 1}
    async with evolution_host(dsh_host, SCRIPT, reviewMemoryInterval=50, reviewSkillInterval=50, **config) as (host, _):
        agent = await dsh_host.new_root(host)
        await say(host, agent, "please look it up in the notes")  # 1 tool call: weight 1
        await say(host, agent, "don't be so verbose next time")  # a memory signal: memory +1
        state = saved_state(dsh_home, agent.id)
        assert state == {"turnsSinceMemory": 2, "turnsSinceSkill": 2, "lastTurn": 2}


async def test_latches_stay_monotonic_last_one_wins_and_warn_once(
    dsh_host: Any, dsh_home: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # memory 1 / skill 2: the first cut-off turn latches "memory", the second "combined"
    async with evolution_host(dsh_host, SCRIPT, reviewMemoryInterval=1, reviewSkillInterval=2, **SMALL) as (host, _):
        agent = await dsh_host.new_root(host)
        with caplog.at_level("WARNING"):
            await say(host, agent, "please do the long task now")
            await say(host, agent, "the long task again please")
        assert turn_ends(agent) == ["max-tokens", "max-tokens"] and reviews(agent) == []
        # the fires did not reset the windows
        assert saved_state(dsh_home, agent.id) == {"turnsSinceMemory": 2, "turnsSinceSkill": 2, "lastTurn": 2}
        assert len([r for r in caplog.records if "waits for a completed turn" in r.getMessage()]) == 1
        await say(host, agent, "thanks, carry on please")
        assert reviews(agent) == [review_prompt("combined")]
