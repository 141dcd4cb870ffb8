"""Counting in-flight work so teardown and drains can wait for quiescence."""

from __future__ import annotations

import trio


class TaskTracker:
    """A counter with an event that is set whenever the count is zero."""

    def __init__(self) -> None:
        self._count = 0
        self._idle = trio.Event()
        self._idle.set()

    @property
    def count(self) -> int:
        return self._count

    def enter(self) -> None:
        self._count += 1
        if self._idle.is_set():
            self._idle = trio.Event()

    def exit(self) -> None:
        self._count -= 1
        if self._count <= 0:
            self._count = 0
            self._idle.set()

    async def wait_idle(self) -> None:
        while not self._idle.is_set():
            await self._idle.wait()
