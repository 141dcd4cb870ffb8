"""One await at a time under the request deadline and the ``CancelToken``.

An async generator must not hold a trio cancel scope across ``yield`` (the
consumer's code would run inside it, and a cancellation could land in the
wrong frame). So the adapter never wraps its whole body in ``fail_after``:
each network await or backoff sleep runs in a short-lived scope carrying the
one absolute deadline of the request, and the token cancels whichever scope
is current.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

import trio

from hookspecs.values.cancel import CancelToken

T = TypeVar("T")


class TimedOut(Exception):
    """The request deadline passed during an await."""


class Guard:
    """Runs awaits under ``deadline`` (trio time); :meth:`close` detaches the token.

    A token cancellation raises :class:`hookspecs.values.cancel.Cancelled`;
    the deadline raises :class:`TimedOut`; cancellation of the *caller's* scope
    propagates untouched as ``trio.Cancelled``.
    """

    __slots__ = ("deadline", "_token", "_scope", "_unbind")

    def __init__(self, deadline: float, token: CancelToken) -> None:
        self.deadline = deadline
        self._token = token
        self._scope: trio.CancelScope | None = None
        # One listener per request, not one per await: reads are frequent.
        self._unbind = token.add_listener(self._on_cancel)

    def _on_cancel(self, _reason: object) -> None:
        if self._scope is not None:
            self._scope.cancel()

    def close(self) -> None:
        self._unbind()

    def remaining(self) -> float:
        return self.deadline - trio.current_time()

    async def run(self, fn: Callable[[], Awaitable[T]]) -> T:
        self._token.raise_if_cancelled()
        with trio.CancelScope(deadline=self.deadline) as scope:
            self._scope = scope
            try:
                return await fn()
            finally:
                self._scope = None
        # Only reached when this scope caught the cancellation.
        self._token.raise_if_cancelled()
        raise TimedOut()
