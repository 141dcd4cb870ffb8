"""The retry schedule and Retry-After parsing, as pure functions."""

from __future__ import annotations

import email.utils
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.llm.openai_compat.retry import (
    RetryPolicy,
    backoff_seconds,
    code_for_status,
    is_retryable_status,
    parse_retry_after,
    retry_delay,
)

POLICY = RetryPolicy(max_retries=5, base_seconds=1.0, max_seconds=30.0)
NOW = 1_750_000_000.0


def test_backoff_doubles_with_jitter_in_the_upper_half() -> None:
    rng = random.Random(1)
    for retry, step in [(1, 1.0), (2, 2.0), (3, 4.0), (4, 8.0), (5, 16.0), (6, 30.0), (60, 30.0), (5000, 30.0)]:
        delays = [backoff_seconds(retry, POLICY, rng) for _ in range(200)]
        assert all(step / 2 <= d <= step for d in delays), retry
        assert max(delays) - min(delays) > step / 4  # jitter actually spreads clients out


def test_backoff_is_deterministic_for_a_seeded_rng() -> None:
    first = [backoff_seconds(r, POLICY, random.Random(3)) for r in (1, 2, 3)]
    assert first == [backoff_seconds(r, POLICY, random.Random(3)) for r in (1, 2, 3)]
    with pytest.raises(ValueError):
        backoff_seconds(0, POLICY)


@given(st.integers(1, 10_000), st.floats(0, 100), st.floats(0, 1000), st.integers(0, 2**32))
def test_backoff_never_exceeds_the_cap(retry: int, base: float, cap: float, seed: int) -> None:
    delay = backoff_seconds(retry, RetryPolicy(base_seconds=base, max_seconds=cap), random.Random(seed))
    assert 0 <= delay <= cap


def test_retry_after_wins_but_is_capped() -> None:
    assert retry_delay(1, 2.5, POLICY) == 2.5
    assert retry_delay(3, 0.0, POLICY) == 0.0
    assert retry_delay(1, 120.0, POLICY) == 30.0
    assert 0.5 <= retry_delay(1, None, POLICY, random.Random(0)) <= 1.0


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({}, None),
        ({"retry-after": "7"}, 7.0),
        ({"retry-after": " 1.5 "}, 1.5),
        ({"retry-after": "-3"}, 0.0),
        ({"retry-after": "soon"}, None),
        ({"retry-after": "nan"}, None),
        ({"retry-after": email.utils.formatdate(NOW + 42, usegmt=True)}, 42.0),
        ({"retry-after": email.utils.formatdate(NOW - 42, usegmt=True)}, 0.0),
        ({"retry-after-ms": "250", "retry-after": "9"}, 0.25),
        ({"retry-after-ms": "x", "retry-after": "9"}, 9.0),
    ],
)
def test_parse_retry_after(headers: dict[str, str], expected: float | None) -> None:
    assert parse_retry_after(headers, now=NOW) == expected


@pytest.mark.parametrize(
    ("status", "code", "retryable"),
    [
        (400, "BAD_REQUEST", False),
        (401, "AUTH_FAILED", False),
        (402, "PAYMENT_REQUIRED", False),
        (404, "NOT_FOUND", False),
        (418, "HTTP_ERROR", False),
        (422, "BAD_REQUEST", False),
        (429, "RATE_LIMITED", True),
        (500, "SERVER_ERROR", True),
        (501, "SERVER_ERROR", False),
        (502, "SERVER_ERROR", True),
        (503, "SERVER_ERROR", True),
        (504, "SERVER_ERROR", True),
    ],
)
def test_status_codes(status: int, code: str, retryable: bool) -> None:
    assert (code_for_status(status), is_retryable_status(status)) == (code, retryable)
