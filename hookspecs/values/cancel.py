"""A cancellation token that carries a reason across an API boundary.

trio cancel scopes cannot cross an API that hands work to another owner (a
subagent provider, a tool). A :class:`CancelToken` can: the owner cancels it
with a reason, the worker waits on it or links it to a cancel scope.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import attrs
import trio


@attrs.define(eq=False)
class CancelToken:
    """Cancelled at most once; the first reason wins.

    ``reason`` is any value the owner chooses (an agent cancel cause, a Shadow
    Mind reason code...). Listeners run synchronously inside :meth:`cancel` and
    must not block.
    """

    _event: trio.Event = attrs.field(factory=trio.Event, init=False)
    _reason: Any = attrs.field(default=None, init=False)
    _listeners: list[Callable[[Any], object]] = attrs.field(factory=list, init=False)

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    @property
    def reason(self) -> Any:
        return self._reason

    def cancel(self, reason: Any = "cancelled") -> bool:
        """Cancel with ``reason``; returns False when already cancelled."""
        if self._event.is_set():
            return False
        self._reason = reason
        self._event.set()
        listeners, self._listeners = self._listeners, []
        for listener in listeners:
            listener(reason)
        return True

    async def wait(self) -> Any:
        """Block until cancelled; returns the reason."""
        await self._event.wait()
        return self._reason

    def add_listener(self, listener: Callable[[Any], object]) -> Callable[[], None]:
        """Call ``listener(reason)`` on cancellation (at once if already cancelled).

        Returns a function that removes the listener.
        """
        if self._event.is_set():
            listener(self._reason)
            return lambda: None
        self._listeners.append(listener)

        def remove() -> None:
            try:
                self._listeners.remove(listener)
            except ValueError:
                pass

        return remove

    def bind(self, scope: trio.CancelScope) -> Callable[[], None]:
        """Cancel ``scope`` when this token is cancelled; returns the unbinder."""
        return self.add_listener(lambda _reason: scope.cancel())

    def child(self) -> CancelToken:
        """A new token cancelled (with the same reason) when this one is."""
        token = CancelToken()
        self.add_listener(token.cancel)
        return token

    @classmethod
    def any(cls, tokens: Iterable[CancelToken]) -> CancelToken:
        """A token cancelled by the first of ``tokens`` to cancel."""
        combined = cls()
        for token in tokens:
            token.add_listener(combined.cancel)
        return combined

    def raise_if_cancelled(self) -> None:
        """Raise :class:`Cancelled` carrying the reason when cancelled."""
        if self._event.is_set():
            raise Cancelled(self._reason)


class Cancelled(Exception):
    """Work stopped because its :class:`CancelToken` was cancelled."""

    def __init__(self, reason: Any) -> None:
        super().__init__(f"cancelled: {reason}")
        self.reason = reason
