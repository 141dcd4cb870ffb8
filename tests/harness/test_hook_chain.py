"""The host's waterfall for chain hooks (``HookRunner.chain``): order, passing
links, overrides through ``call_next``, failures contained or failing closed.

The walk moves past a passing link in a loop rather than a nested coroutine;
these pin the semantics that must not change with it.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest

from harness.hook_runner import HookRunner
from harness.plugins import make_plugin_manager
from hookspecs import hookimpl

HOOK = "dsh_agent_pre_step"


class Link:
    def __init__(self, name: str, trail: list[str], behave: Any) -> None:
        self.name = name
        self.trail = trail
        self.behave = behave

    @hookimpl
    def dsh_agent_pre_step(self, agent: Any, messages: Any, call_next: Any) -> Any:
        self.trail.append(self.name)
        return self.behave(messages, call_next)


def runner(*links: Link) -> HookRunner:
    pm = make_plugin_manager()
    for link in links:
        pm.register(link, name=link.name)
    return HookRunner(pm, logger=logging.getLogger("test-chain"), spawn=lambda fn, name: None)


async def walk(hooks: HookRunner, **kwargs: Any) -> Any:
    def default(*, messages: Any, **_: Any) -> Any:
        return ("default", messages)

    return await hooks.chain(HOOK, None, default, agent=None, turn=1, step=1, messages=("m",), **kwargs)


def passing(messages: Any, call_next: Any) -> None:
    return None


async def passing_async(messages: Any, call_next: Any) -> None:
    return None


async def test_links_run_in_registration_lifo_order_and_passing_links_reach_the_default() -> None:
    trail: list[str] = []
    # pluggy calls the last registered first
    hooks = runner(Link("a", trail, passing), Link("b", trail, passing_async), Link("c", trail, passing))
    assert await walk(hooks) == ("default", ("m",))
    assert trail == ["c", "b", "a"]


async def test_a_link_that_answers_stops_the_walk() -> None:
    trail: list[str] = []
    hooks = runner(Link("a", trail, passing), Link("b", trail, lambda m, n: "answer"), Link("c", trail, passing))
    assert await walk(hooks) == "answer"
    assert trail == ["c", "b"]


async def test_overrides_through_call_next_reach_downstream_and_a_passing_caller_keeps_its_result() -> None:
    trail: list[str] = []

    async def rewrite(messages: Any, call_next: Any) -> None:
        await call_next(messages=("rewritten",))
        return None  # passes: the downstream result it obtained is the answer

    seen: list[Any] = []

    def record(messages: Any, call_next: Any) -> None:
        seen.append(messages)
        return None

    hooks = runner(Link("a", trail, record), Link("b", trail, rewrite))
    assert await walk(hooks) == ("default", ("rewritten",))
    assert trail == ["b", "a"] and seen == [("rewritten",)]


async def test_a_link_may_wrap_the_downstream_result() -> None:
    trail: list[str] = []

    async def wrap(messages: Any, call_next: Any) -> Any:
        return ("wrapped", await call_next())

    hooks = runner(Link("a", trail, passing), Link("b", trail, wrap))
    assert await walk(hooks) == ("wrapped", ("default", ("m",)))
    assert trail == ["b", "a"]


async def test_a_raising_link_is_logged_and_skipped(caplog: pytest.LogCaptureFixture) -> None:
    trail: list[str] = []

    def boom(messages: Any, call_next: Any) -> None:
        raise RuntimeError("broken link")

    hooks = runner(Link("a", trail, passing), Link("b", trail, boom))
    with caplog.at_level(logging.ERROR, logger="test-chain"):
        assert await walk(hooks) == ("default", ("m",))
    assert trail == ["b", "a"]
    assert "plugin 'b' failed" in caplog.text


async def test_a_link_that_raised_after_calling_downstream_keeps_that_result() -> None:
    trail: list[str] = []

    async def late_boom(messages: Any, call_next: Any) -> None:
        await call_next(messages=("seen",))
        raise RuntimeError("after downstream")

    hooks = runner(Link("a", trail, passing), Link("b", trail, late_boom))
    assert await walk(hooks) == ("default", ("seen",))
    assert trail == ["b", "a"]  # downstream ran once, not again after the failure


async def test_on_error_fails_closed_with_the_failing_plugin_named() -> None:
    trail: list[str] = []

    def boom(messages: Any, call_next: Any) -> None:
        raise RuntimeError("broken link")

    hooks = runner(Link("a", trail, passing), Link("b", trail, boom))
    result = await walk(hooks, on_error=lambda name, exc: ("closed", name, str(exc)))
    assert result == ("closed", "b", "broken link")
    assert trail == ["b"]
