"""The host clock: wall time that follows trio's clock.

Event times and wall-clock cooldowns use :meth:`HostClock.now`, anchored to the
real wall clock and advanced by ``trio.current_time()`` — so under
``trio.testing.MockClock`` wall time jumps with virtual time and tests never
sleep for real.

The wall anchor and the trio origin are taken at the same moment: at
construction when it happens inside ``trio.run`` (as ``open_host`` does), else
at first use. Taking the wall time at construction and the trio origin at first
use stamped every event early by however long the host sat idle in between
(``harness serve`` waiting for its first message).
"""

from __future__ import annotations

import time
from collections.abc import Callable

import trio


class HostClock:
    def __init__(self, *, wall_start: float | None = None, wall: Callable[[], float] = time.time) -> None:
        """``wall_start``: the wall time of now (construction inside trio, else first use); ``wall``: the real wall source."""
        self._wall = wall
        self._wall_start = wall_start
        self._trio_start = 0.0
        self._clock: trio.abc.Clock | None = None
        try:
            clock = trio.lowlevel.current_clock()
        except RuntimeError:  # outside trio.run: anchor at first use
            return
        self._adopt(clock)

    def _adopt(self, clock: trio.abc.Clock) -> None:
        # the host lives inside one trio run: keep its clock (a hot path)
        self._clock = clock
        self._trio_start = clock.current_time()
        if self._wall_start is None:
            self._wall_start = self._wall()

    def now(self) -> float:
        clock = self._clock
        if clock is None:
            try:
                clock = trio.lowlevel.current_clock()
            except RuntimeError:  # outside trio.run
                return self._wall()
            self._adopt(clock)
        return self._wall_start + (clock.current_time() - self._trio_start)  # type: ignore[operator]

    def now_ms(self) -> float:
        return self.now() * 1000.0
