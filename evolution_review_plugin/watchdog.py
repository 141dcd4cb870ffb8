"""The settle watchdog: wait for a child's result, and give up on a handle
that never settles.

A cancel scope cannot cut short an await that shields itself or swallows
``Cancelled``, so the result is awaited in a task of the host's background
group (``host.spawn``): the reviewer waits for that task until the deadline,
tells the child to stop (the request's cancel token), waits ``grace`` seconds
more, and then — if the handle still has not settled — abandons it. The
abandoned waiter stays in the background group until the handle settles or the
host stops; whatever it returns then is dropped.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Final, Generic, Literal, TypeVar

import attrs
import trio

T = TypeVar("T")

#: the reference's settle margin past ``reviewTimeoutMs``
SETTLE_GRACE_SECONDS: Final = 5.0

Ending = Literal["settled", "failed", "timeout", "unsettled"]


@attrs.define(eq=False)
class Settled(Generic[T]):
    """How waiting for one handle ended."""

    ending: Ending = "unsettled"
    value: T | None = None
    error: Exception | None = None
    done: trio.Event = attrs.field(factory=trio.Event)


async def settle(
    spawn: Callable[..., None],
    fn: Callable[[], Awaitable[T]],
    *,
    deadline: float,
    grace: float,
    on_deadline: Callable[[], Any],
    name: str,
) -> Settled[T]:
    """``fn()``'s outcome: ``settled`` (its value), ``failed`` (it raised),
    ``timeout`` (the deadline passed first: it was cancelled, and settled
    within ``grace``), or ``unsettled`` (it did not settle even ``grace``
    seconds after the deadline; abandoned)."""
    box: Settled[T] = Settled()

    async def wait() -> None:
        try:
            with trio.CancelScope(deadline=deadline) as scope:
                box.value = await fn()
            # a value returned after the deadline fired is still late
            box.ending = "timeout" if scope.cancel_called else "settled"
        except Exception as exc:
            box.ending, box.error = "failed", exc
        finally:
            box.done.set()

    spawn(wait, name=name)
    with trio.move_on_at(deadline):
        await box.done.wait()
    if not box.done.is_set():
        on_deadline()
        with trio.move_on_at(deadline + grace):
            await box.done.wait()
    if not box.done.is_set():
        return Settled(ending="unsettled")  # the waiter's late outcome lands in its own box, unread
    return box
