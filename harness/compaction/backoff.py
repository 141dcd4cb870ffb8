"""When a failed automatic compaction may be tried again.

Without a pause, a summary that keeps failing (an overloaded or broken model)
costs one extra request before every request of the session, forever. After a
failure, pressure compaction waits until the request grew by an eighth of the
window or a number of requests went by (doubling with each failure in a row,
up to a cap); a success, or a ``/compact`` that works, ends the pause. The
provider's overflow complaint is not gated: that request cannot go as it is.
"""

from __future__ import annotations

from typing import NamedTuple

#: requests skipped after the first failure in a row; doubles per further failure
FIRST_WAIT_REQUESTS = 4
#: the most requests skipped in a row
MAX_WAIT_REQUESTS = 64
#: the request growth (share of the window) that allows a retry before the wait is over
GROWTH_SHARE = 0.125
#: failure codes that say nothing about the next attempt (the turn was cancelled,
#: another compaction held the lock, a message arrived while the summary was written)
TRANSIENT_CODES = frozenset({"cancelled", "busy", "changed"})


# plain classes: every host loads this module, and an attrs class compiles its
# generated methods when it is defined


class _Pause:
    __slots__ = ("failures", "skipped", "tokens")

    def __init__(self, *, failures: int, tokens: int) -> None:
        self.failures = failures
        self.tokens = tokens  # the request estimate at the last failure
        self.skipped = 0

    @property
    def wait(self) -> int:
        return min(FIRST_WAIT_REQUESTS * 2 ** (self.failures - 1), MAX_WAIT_REQUESTS)


class Skip(NamedTuple):
    """A pressure compaction not tried: the reason to report."""

    reason: str


class RetryBackoff:
    """The pause of each session whose automatic compaction failed."""

    def __init__(self) -> None:
        self._paused: dict[str, _Pause] = {}

    def skip(self, session_id: str, tokens: int, window: int) -> Skip | None:
        """A :class:`Skip` when the pressure compaction of a request of ``tokens``
        should not be tried yet (counting it as a skipped request), else None."""
        pause = self._paused.get(session_id)
        if pause is None:
            return None
        if pause.skipped >= pause.wait or tokens >= pause.tokens + GROWTH_SHARE * window:
            return None
        pause.skipped += 1
        left = pause.wait - pause.skipped
        return Skip(reason=f"automatic compaction failed recently; retried in {left} requests or when the request grows")

    def failed(self, session_id: str, code: str, tokens: int) -> bool:
        """Record a failure; True when it starts a pause (the one to tell the person about)."""
        if code in TRANSIENT_CODES:
            return False
        pause = self._paused.get(session_id)
        if pause is None:
            self._paused[session_id] = _Pause(failures=1, tokens=tokens)
            return True
        pause.failures, pause.tokens, pause.skipped = pause.failures + 1, tokens, 0
        return False

    def wait_after(self, session_id: str) -> int:
        """The requests the session's current pause skips (0 when not paused)."""
        pause = self._paused.get(session_id)
        return pause.wait if pause is not None else 0

    def succeeded(self, session_id: str) -> None:
        self._paused.pop(session_id, None)

    def paused(self) -> int:
        """How many sessions are paused (the state this holds)."""
        return len(self._paused)
