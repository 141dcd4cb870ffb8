"""The host clock stamps events with the wall time of the moment they happen,
however long the host sat idle before its first event (issue 21, item 3).

``harness serve`` builds the clock inside ``open_host`` and the first event
comes when a person first sends; the clock used to take the wall time at
construction but the trio origin at first use, so every stamp was early by the
idle time. The tests inject a fake wall source and run on trio's MockClock:
nothing sleeps for real.
"""

from __future__ import annotations

import time
from pathlib import Path

import trio
import trio.testing

from harness.clock import HostClock
from harness.host import open_host


class FakeWall:
    """A wall clock that follows trio's virtual clock from a fixed epoch."""

    def __init__(self, epoch: float) -> None:
        self.epoch = epoch

    def __call__(self) -> float:
        try:
            return self.epoch + trio.current_time()
        except RuntimeError:
            return self.epoch


def run(fn: object) -> None:
    trio.run(fn, clock=trio.testing.MockClock(autojump_threshold=0))  # type: ignore[arg-type]


def test_built_inside_trio_then_idle_stamps_the_moment_of_use() -> None:
    wall = FakeWall(1_000_000.0)
    seen: list[float] = []

    async def main() -> None:
        clock = HostClock(wall=wall)
        await trio.sleep(60)  # the server sits idle; virtual time, no real sleep
        seen.append(clock.now())
        await trio.sleep(2)
        seen.append(clock.now())

    run(main)
    assert seen == [1_000_060.0, 1_000_062.0]


def test_built_outside_trio_anchors_at_first_use() -> None:
    wall = FakeWall(5_000.0)
    clock = HostClock(wall=wall)
    seen: list[float] = []

    async def main() -> None:
        await trio.sleep(30)
        seen.append(clock.now())

    run(main)
    assert seen == [5_030.0]


def test_explicit_wall_start_is_the_wall_time_of_construction() -> None:
    seen: list[float] = []

    async def main() -> None:
        await trio.sleep(5)
        clock = HostClock(wall_start=100.0)
        await trio.sleep(10)
        seen.append(clock.now())

    run(main)
    assert seen == [110.0]


def test_host_built_as_serve_builds_it_stamps_after_idle(tmp_path: Path) -> None:
    """``open_host`` with no clock, as ``harness serve`` calls it, then an idle minute."""
    ahead: list[float] = []

    async def main() -> None:
        async with open_host(dsh_home=tmp_path / "home", cwd=tmp_path, headless=True, clock=None) as host:
            await trio.sleep(60)  # virtual: the real wall clock hardly moves
            ahead.append(host.clock.now() - time.time())

    run(main)
    # the host's wall time moved with the 60 virtual seconds (stamped then, not at start)
    assert ahead and 55 < ahead[0] < 65
