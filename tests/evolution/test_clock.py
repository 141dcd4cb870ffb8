"""The evolution tests' MockClock (conftest.py) is really the run's clock."""

from __future__ import annotations

import trio
import trio.testing


async def test_a_test_that_does_not_ask_for_the_clock_still_runs_on_a_mock_clock() -> None:
    assert isinstance(trio.lowlevel.current_clock(), trio.testing.MockClock)
    start = trio.current_time()
    await trio.sleep(3600)  # autojump: an hour of virtual time
    assert trio.current_time() - start >= 3600


async def test_a_requested_clock_is_the_one_the_run_uses(clock: trio.testing.MockClock) -> None:
    assert trio.lowlevel.current_clock() is clock
