"""Deterministic random numbers: Mulberry32, bit-identical to the reference.

With ``randomSeed`` set, activation rolls must reproduce the JavaScript
implementation draw for draw, so the arithmetic below is the 32-bit unsigned
form of the JS code (``Math.imul`` and ``>>>`` emulated with masks).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Final

_MASK: Final = 0xFFFFFFFF
_INCREMENT: Final = 0x6D2B79F5
_TWO_32: Final = 4294967296.0


def to_uint32(value: float) -> int:
    """ECMAScript ``ToUint32``: NaN/±inf -> 0, truncate toward zero, wrap mod 2**32."""
    if isinstance(value, bool):  # True is a number to JS too, but be explicit
        value = int(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            return 0
        value = math.trunc(value)
    return int(value) & _MASK


def _imul(a: int, b: int) -> int:
    # low 32 bits of the product; signedness does not matter under the masks used
    return (a * b) & _MASK


def mulberry32(seed: float) -> Callable[[], float]:
    """A generator of floats in ``[0, 1)`` seeded like the reference's ``seededRandom``."""
    state = to_uint32(seed)

    def next_float() -> float:
        nonlocal state
        state = (state + _INCREMENT) & _MASK
        v = state
        v = _imul(v ^ (v >> 15), v | 1)
        v ^= (v + _imul(v ^ (v >> 7), v | 61)) & _MASK
        return ((v ^ (v >> 14)) & _MASK) / _TWO_32

    return next_float


def make_random(seed: float | None) -> Callable[[], float]:
    """Seeded Mulberry32 when ``seed`` is set, else the process RNG (like ``Math.random``)."""
    if seed is None:
        return random.random
    return mulberry32(seed)
