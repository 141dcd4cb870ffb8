"""The settle watchdog over the real host: a review handle that ignores its
cancellation is abandoned ``reviewTimeoutMs`` + 5 s after the start — one
``review-error``, the child disposed, the in-flight slot freed, the prompt
delivered instead. MockClock time only (each test asks for the ``clock``
fixture: pytest-trio passes a clock only to the tests that request it),
fault-injected handles."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest
import trio
import trio.testing

from evolution_review_plugin.prompts import review_prompt
from evolution_review_plugin.vocabulary import PLAN_APPLIED, REVIEW_ERROR
from hookspecs import hookimpl
from hookspecs.values import create_user_message

from .helpers import evolution_host, reviews, say
from .test_subagent_review import CONFIG, PLAN, children, plan_script

pytestmark = pytest.mark.trio


class StuckRun:
    """A real run whose ``result`` ignores cancellation for ``hold`` seconds."""

    def __init__(self, inner: Any, hold: float) -> None:
        self.inner = inner
        self.hold = hold
        self.disposed = 0

    @property
    def id(self) -> str:
        return str(self.inner.id)

    @property
    def local_agent(self) -> Any:
        return self.inner.local_agent

    async def result(self) -> Any:
        with trio.CancelScope(shield=True):
            await trio.sleep(self.hold)
        return await self.inner.result()

    async def dispose(self) -> None:
        self.disposed += 1
        await self.inner.dispose()


class StuckSubagents:
    """The host's subagent service, its runs' results held (fault injection)."""

    def __init__(self, inner: Any, holds: list[float]) -> None:
        self.inner = inner
        self.holds = holds
        self.runs: list[StuckRun] = []
        self.started_at: list[float] = []

    async def start(self, name: str, request: Any) -> StuckRun:
        self.started_at.append(trio.current_time())
        run = StuckRun(await self.inner.start(name, request), self.holds.pop(0) if self.holds else 0)
        self.runs.append(run)
        return run


class HostWith:
    """The real host with another subagent service."""

    def __init__(self, host: Any, subagents: Any) -> None:
        self._host = host
        self.subagents = subagents

    def __getattr__(self, name: str) -> Any:
        return getattr(self._host, name)


class Clocked:
    """Process events with the (virtual) time they came."""

    def __init__(self) -> None:
        self.events: list[tuple[float, str, dict[str, Any]]] = []
        self.error = trio.Event()

    @hookimpl
    def dsh_process_event(self, name: str, payload: Mapping[str, Any]) -> None:
        self.events.append((trio.current_time(), name, dict(payload)))
        if name == REVIEW_ERROR:
            self.error.set()


def stuck(host: Any, holds: list[float]) -> StuckSubagents:
    service = StuckSubagents(host.subagents, holds)
    host.pm.get_plugin("evolution-review").controller.reviewer.host = HostWith(host, service)
    return service


async def test_a_handle_that_never_settles_is_abandoned_after_the_timeout_plus_five_seconds(dsh_host: Any, clock: trio.testing.MockClock) -> None:
    clocked = Clocked()
    script = plan_script(PLAN, repeat=True)
    async with evolution_host(dsh_host, script, reviewTimeoutMs=1000, **CONFIG) as (host, recorder):
        host.pm.register(clocked, name="clocked")
        service = stuck(host, [600.0, 0])
        first, second = await dsh_host.new_root(host), await dsh_host.new_root(host)
        first.followup(create_user_message("hello there, first question"))
        with trio.fail_after(60):  # virtual seconds: long before the stuck handle's 600
            await clocked.error.wait()
        [(at, _, error)] = [e for e in clocked.events if e[1] == REVIEW_ERROR]
        assert 6.0 <= at - service.started_at[0] < 6.1  # reviewTimeoutMs (1 s) + 5 s
        assert error["sessionId"] == first.id
        assert "did not settle within reviewTimeoutMs (1000 ms) + 5 s" in error["reason"]
        # the slot is free at once: another session's review spawns while the stuck handle still holds
        second.followup(create_user_message("hello there, second question"))
        await first.when_idle()
        await second.when_idle()
        await host.wait_background_idle()  # the abandoned waiter ends when its hold does
        assert service.started_at[1] - service.started_at[0] < 600
        assert reviews(first) == [review_prompt("memory")]  # the prompt fallback still applies
        assert reviews(second)[0].startswith("💾")
        assert [run.disposed for run in service.runs] == [1, 1]
        assert children(host) == []
        # settled once: one error for the stuck review, one plan for the other, nothing late
        assert len(recorder.named(REVIEW_ERROR)) == 1
        assert [p["sessionId"] for p in recorder.named(PLAN_APPLIED)] == [second.id]


async def test_a_handle_that_settles_within_the_grace_is_an_ordinary_timeout(dsh_host: Any, clock: trio.testing.MockClock) -> None:
    async with evolution_host(dsh_host, plan_script(PLAN), reviewTimeoutMs=1000, **CONFIG) as (host, recorder):
        service = stuck(host, [3.0])  # ignores the cancel, then settles 2 s into the grace
        agent = await dsh_host.new_root(host)
        await say(host, agent, "hello there, a question")
        [error] = recorder.named(REVIEW_ERROR)
        assert "exceeded reviewTimeoutMs (1000 ms)" in error["reason"]
        assert reviews(agent) == [review_prompt("memory")]
        assert service.runs[0].disposed == 1 and recorder.named(PLAN_APPLIED) == []


async def test_a_slow_review_inside_its_timeout_is_consumed(dsh_host: Any, clock: trio.testing.MockClock) -> None:
    # slower than the 5 s margin, far inside the default 120 s: no watchdog
    script = plan_script(PLAN, reply_extra="      delay_seconds: 8\n")
    async with evolution_host(dsh_host, script, **CONFIG) as (host, recorder):
        agent = await dsh_host.new_root(host)
        await say(host, agent, "hello there, a question")
        assert recorder.named(REVIEW_ERROR) == []
        assert reviews(agent)[0].startswith("💾")
        assert len(recorder.named(PLAN_APPLIED)) == 1
