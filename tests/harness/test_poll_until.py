"""The suite's one poll for a state change no trio event signals: bounded, so a
change that never comes fails the test naming what it waited for."""

from __future__ import annotations

import pytest
import trio
from trio.testing import MockClock

from .helpers import WAIT_SECONDS, poll_until


async def test_a_condition_that_never_holds_fails_instead_of_hanging(autojump_clock: MockClock) -> None:
    with pytest.raises(AssertionError, match=r"^gave up waiting for the flag after 60 s$"):
        await poll_until(lambda: False, what="the flag")
    # virtual time: the bound costs no wall time under MockClock
    assert WAIT_SECONDS <= trio.current_time() < WAIT_SECONDS + 0.1


async def test_the_bound_is_per_call(autojump_clock: MockClock) -> None:
    with pytest.raises(AssertionError, match="after 2 s"):
        await poll_until(lambda: None, what="nothing", give_up_after=2)
    assert 2 <= trio.current_time() < 2.1


async def test_returns_the_first_truthy_value(autojump_clock: MockClock) -> None:
    answers = iter([None, 0, "", "found", "later"])
    assert await poll_until(lambda: next(answers)) == "found"


async def test_interval_zero_polls_at_every_checkpoint() -> None:
    seen: list[int] = []

    async def change_after_three_checkpoints() -> None:
        for _ in range(3):
            await trio.lowlevel.checkpoint()
        seen.append(1)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(change_after_three_checkpoints)
        assert await poll_until(lambda: seen, interval=0) == [1]
