"""The host clock: wall time that follows trio's clock.

Event times and wall-clock cooldowns use :meth:`HostClock.now`, anchored to the
real wall clock at start and advanced by ``trio.current_time()`` — so under
``trio.testing.MockClock`` wall time jumps with virtual time and tests never
sleep for real.
"""

from __future__ import annotations

import time

import trio


class HostClock:
    def __init__(self, *, wall_start: float | None = None) -> None:
        self._wall_start = time.time() if wall_start is None else wall_start
        self._trio_start: float | None = None
        self._clock: trio.abc.Clock | None = None

    def now(self) -> float:
        clock = self._clock
        if clock is None:
            try:
                clock = trio.lowlevel.current_clock()
            except RuntimeError:  # outside trio.run
                return time.time()
            # the host lives inside one trio run: keep its clock (a hot path)
            self._clock = clock
            self._trio_start = clock.current_time()
        return self._wall_start + (clock.current_time() - self._trio_start)  # type: ignore[operator]

    def now_ms(self) -> float:
        return self.now() * 1000.0
