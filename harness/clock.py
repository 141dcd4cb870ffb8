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

    def _trio_now(self) -> float | None:
        try:
            return trio.current_time()
        except RuntimeError:  # outside trio.run
            return None

    def now(self) -> float:
        current = self._trio_now()
        if current is None:
            return time.time()
        if self._trio_start is None:
            self._trio_start = current
        return self._wall_start + (current - self._trio_start)

    def now_ms(self) -> float:
        return round(self.now() * 1000, 3)
