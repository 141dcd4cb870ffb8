"""Cleanup that awaits: shielded from the caller's cancellation, but bounded.

A cancelled caller must not cut a disposal short, yet a hung callback must not
hold a shielded region (and with it the host's teardown, whose own deadline
cannot reach inside a shield) for ever either.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import trio

#: How long one shielded cleanup step may await before it is abandoned.
CLEANUP_SECONDS = 30.0


@contextmanager
def shielded_cleanup(seconds: float = CLEANUP_SECONDS) -> Iterator[trio.CancelScope]:
    """Shield the block; after ``seconds`` cancel what it still awaits.

    The block then ends early (``cancelled_caught`` on the yielded scope says
    so), so code that must run regardless belongs after it. Sync code needs no
    shield: it has no checkpoint a cancellation could interrupt.
    """
    with trio.CancelScope(shield=True), trio.move_on_after(seconds) as bound:
        yield bound
