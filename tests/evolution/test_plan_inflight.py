"""One review in flight per process, one entry per (session, kind): a trigger
for the (session, kind) in flight is coalesced (no second child, no prompt; its
latch waits for the next completed boundary), any other trigger falls back to
the review prompt. Real host, scripted child, MockClock."""

from __future__ import annotations

from typing import Any

import pytest
import trio
import trio.testing

from evolution_review_plugin.prompts import review_prompt
from evolution_review_plugin.reviewer import COALESCED
from hookspecs.values import create_user_message

from .helpers import evolution_host, reviews, say
from .test_subagent_review import CONFIG, PLAN, plan_script

pytestmark = pytest.mark.trio

SLOW_CHILD = plan_script(PLAN, reply_extra="      delay_seconds: 5\n", repeat=True)


def spawned(host: Any, parent: Any) -> int:
    return len([s for s in host.sessions.list() if s.parent_session == parent.id])


async def in_flight(reviewer: Any, nursery: trio.Nursery, agent: Any, kind: str) -> list[Any]:
    """Start a review of (agent, kind) and return once it holds the slot."""
    out: list[Any] = []

    async def run() -> None:
        out.append(await reviewer.review(agent, kind, None))

    nursery.start_soon(run)
    await trio.testing.wait_all_tasks_blocked()  # it awaits the child's start: the slot is taken
    assert reviewer.in_flight == (agent.id, kind)
    return out


async def test_only_the_same_session_and_kind_coalesces(dsh_host: Any, clock: trio.testing.MockClock) -> None:
    async with evolution_host(dsh_host, SLOW_CHILD, **CONFIG) as (host, _):
        reviewer = host.pm.get_plugin("evolution-review").controller.reviewer
        a, b = await dsh_host.new_root(host), await dsh_host.new_root(host)
        async with trio.open_nursery() as nursery:
            first = await in_flight(reviewer, nursery, a, "memory")
            assert await reviewer.review(a, "memory", None) == COALESCED
            assert await reviewer.review(a, "skill", None) is None  # another kind: the prompt
            assert await reviewer.review(b, "memory", None) is None  # another session: the prompt
            assert reviewer.in_flight == (a.id, "memory")
        assert first[0].skills_applied == ("make-check",)
        assert reviewer.in_flight is None
        assert (spawned(host, a), spawned(host, b)) == (1, 0)  # no second child


async def test_a_coalesced_trigger_keeps_its_latch_for_the_next_completed_boundary(
    dsh_host: Any, clock: trio.testing.MockClock
) -> None:
    async with evolution_host(dsh_host, SLOW_CHILD, **CONFIG) as (host, _):
        controller = host.pm.get_plugin("evolution-review").controller
        agent = await dsh_host.new_root(host)
        async with trio.open_nursery() as nursery:
            await in_flight(controller.reviewer, nursery, agent, "memory")
            agent.followup(create_user_message("hello there, while a review runs"))
            await agent.when_idle()
            await host.wait_background_idle()
        state = controller.state(agent.id)
        assert reviews(agent) == []  # coalesced: no prompt, no second child
        assert spawned(host, agent) == 1
        assert state.latched == "memory" and state.counters.turns_since_memory > 0
        await say(host, agent, "hello there, the next question")
        [notice] = reviews(agent)  # the latch is served at the next completed boundary, by a new child
        # its plan repeats the one the first review already applied: a result notice, not the prompt
        assert notice.startswith("Self-improvement review: nothing was saved") and notice != review_prompt("memory")
        assert spawned(host, agent) == 2
        assert state.latched is None and state.counters.turns_since_memory == 0
