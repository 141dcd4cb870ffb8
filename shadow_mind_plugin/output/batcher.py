"""The report batcher: a fixed window opened by the first accepted report.

Every report accepted before the window closes goes out in one relay. The
timer and each delivery run as background tasks; ``drain`` waits for them.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Generic, TypeVar

import trio

from ..core.tracker import TaskTracker

R = TypeVar("R")


class ReportBatcher(Generic[R]):
    def __init__(
        self,
        *,
        window_seconds: Callable[[], float],
        deliver: Callable[[list[R]], Awaitable[None]],
        spawn: Callable[..., None],
        logger: logging.Logger,
    ) -> None:
        self._window_seconds = window_seconds
        self._deliver = deliver
        self._spawn = spawn
        self._logger = logger
        self._reports: list[R] = []
        self._timer: trio.CancelScope | None = None
        self._pending = TaskTracker()
        self._failures: list[BaseException] = []
        self._stopped = False

    @property
    def stopped(self) -> bool:
        return self._stopped

    @property
    def busy(self) -> bool:
        return self._timer is not None or self._pending.count > 0

    @property
    def waiting(self) -> list[R]:
        return list(self._reports)

    def add(self, report: R) -> bool:
        """Queue a report; False when the batcher is stopped."""
        if self._stopped:
            return False
        self._reports.append(report)
        if self._timer is None:
            # the window is read when it opens, so a settings change never
            # stretches a window already running
            window = max(0.0, float(self._window_seconds()))
            scope = trio.CancelScope()
            self._timer = scope
            self._pending.enter()
            self._spawn(self._run_timer, scope, window, name="shadow-mind:batch-window")
        return True

    async def _run_timer(self, scope: trio.CancelScope, window: float) -> None:
        try:
            with scope:
                await trio.sleep(window)
            if not scope.cancelled_caught:
                await self._fire()
        finally:
            self._pending.exit()

    async def _fire(self) -> None:
        batch, self._reports = self._reports, []
        self._timer = None
        if not batch:
            return
        self._pending.enter()
        try:
            await self._deliver(batch)
        except Exception as exc:
            self._failures.append(exc)
            self._logger.warning("shadow report delivery failed: %s", exc)
        finally:
            self._pending.exit()

    async def flush(self) -> list[BaseException]:
        """Deliver what is waiting now; returns failures collected since the last drain."""
        if self._timer is not None:
            self._timer.cancel()
            await self._fire()
        return await self.drain()

    async def drain(self) -> list[BaseException]:
        await self._pending.wait_idle()
        failures, self._failures = self._failures, []
        return failures

    async def dispose(self) -> list[BaseException]:
        self._stopped = True
        return await self.flush()

    def take_waiting(self) -> list[R]:
        """Remove and return every report not yet delivered (epoch changes).

        The open window closes with them: a timer left sleeping would keep the
        host's background work busy (and a chat's exit waiting) for nothing."""
        batch, self._reports = self._reports, []
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        return batch
