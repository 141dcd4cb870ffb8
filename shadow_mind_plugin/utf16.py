"""UTF-16 code-unit lengths and slicing.

The system we re-implement counts characters in UTF-16 units (JavaScript
string length). Budgets, bounds and telemetry use these helpers so our numbers
match its documented behaviour for every script, including astral characters.
"""

from __future__ import annotations


def u16len(text: str) -> int:
    """Length in UTF-16 code units (an astral character counts 2)."""
    # fast path: most text is BMP-only
    n = len(text)
    if text.isascii():
        return n
    return n + sum(1 for ch in text if ord(ch) > 0xFFFF)


def u16slice(text: str, start: int, stop: int | None = None) -> str:
    """``text[start:stop]`` measured in UTF-16 units; never splits a surrogate
    pair (a cut in the middle of a pair drops that character)."""
    if text.isascii():
        return text[start:stop]
    units = text.encode("utf-16-le")
    total = len(units) // 2
    lo = _clamp(start, total)
    hi = total if stop is None else _clamp(stop, total)
    if hi <= lo:
        return ""
    return units[lo * 2 : hi * 2].decode("utf-16-le", errors="ignore")


def _clamp(index: int, total: int) -> int:
    if index < 0:
        index += total
    return max(0, min(index, total))
