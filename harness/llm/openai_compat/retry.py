"""Which failures are retried, and how long to wait: pure functions, no I/O.

The schedule is jittered exponential backoff ("equal jitter": a random point
in the upper half of the exponential step), capped at ``max_seconds``; a
provider's ``Retry-After`` replaces it, still capped.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping

import attrs

#: Statuses retried before any content chunk was yielded.
RETRYABLE_STATUSES = frozenset({429, 500, 502, 503, 504})

#: Stable ``LlmError`` codes for non-2xx statuses; see :func:`code_for_status`.
_STATUS_CODES: Mapping[int, str] = {
    400: "BAD_REQUEST",
    401: "AUTH_FAILED",
    402: "PAYMENT_REQUIRED",
    403: "FORBIDDEN",
    404: "NOT_FOUND",
    413: "REQUEST_TOO_LARGE",
    422: "BAD_REQUEST",
    429: "RATE_LIMITED",
}


@attrs.frozen(kw_only=True)
class RetryPolicy:
    max_retries: int = 3
    base_seconds: float = 1.0
    max_seconds: float = 30.0


def code_for_status(status: int) -> str:
    """``RATE_LIMITED``, ``SERVER_ERROR``, ``BAD_REQUEST``... or ``HTTP_ERROR``."""
    if status in _STATUS_CODES:
        return _STATUS_CODES[status]
    return "SERVER_ERROR" if status >= 500 else "HTTP_ERROR"


def is_retryable_status(status: int) -> bool:
    return status in RETRYABLE_STATUSES


def backoff_seconds(retry: int, policy: RetryPolicy, rng: random.Random | None = None) -> float:
    """The wait before retry number ``retry`` (1-based), without ``Retry-After``.

    ``base * 2**(retry-1)`` capped at ``max_seconds``, then scaled by a random
    factor in [0.5, 1.0] so clients that failed together do not return together.
    """
    if retry < 1:
        raise ValueError("retry is 1-based")
    step = min(policy.max_seconds, policy.base_seconds * 2.0 ** min(retry - 1, 62))
    factor = 0.5 + 0.5 * (rng or random).random()
    return step * factor


def parse_retry_after(headers: Mapping[str, str], *, now: float) -> float | None:
    """Seconds the provider asked us to wait, or None.

    Reads ``retry-after-ms`` (OpenAI) first, then ``Retry-After`` as delta
    seconds or an HTTP date (relative to ``now``, a Unix time). Negative or
    past values become 0; unparsable values are ignored.
    """
    millis = headers.get("retry-after-ms")
    if millis is not None:
        value = _number(millis)
        if value is not None:
            return max(0.0, value / 1000.0)
    raw = headers.get("retry-after")
    if raw is None:
        return None
    value = _number(raw)
    if value is not None:
        return max(0.0, value)
    import email.utils  # an HTTP date is rare: its parser (and datetime) load only for one

    try:
        when = email.utils.parsedate_to_datetime(raw.strip())
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:  # an HTTP date is always GMT
        return None
    return max(0.0, when.timestamp() - now)


def retry_delay(
    retry: int, retry_after: float | None, policy: RetryPolicy, rng: random.Random | None = None
) -> float:
    """The delay before retry ``retry``: ``Retry-After`` when given, else backoff; capped."""
    if retry_after is not None:
        return min(retry_after, policy.max_seconds)
    return backoff_seconds(retry, policy, rng)


def _number(text: str) -> float | None:
    try:
        value = float(text.strip())
    except ValueError:
        return None
    return value if math.isfinite(value) else None
