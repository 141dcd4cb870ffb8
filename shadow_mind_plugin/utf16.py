"""UTF-16 code-unit lengths and slicing.

The system we re-implement counts characters in UTF-16 units (JavaScript
string length). Budgets, bounds and telemetry use these helpers so our numbers
match its documented behaviour for every script, including astral characters.
Both run at C speed (one encode) whatever the text: they are called over whole
trajectories. ``surrogatepass`` keeps lone surrogates (JSON ``"\\ud800"``
escapes load as those): each is one unit, as in JavaScript.
"""

from __future__ import annotations

_CODEC = "utf-16-le"
_LONE = "surrogatepass"


def u16len(text: str) -> int:
    """Length in UTF-16 code units (an astral character counts 2)."""
    if text.isascii():
        return len(text)
    return len(text.encode(_CODEC, _LONE)) >> 1


def u16slice(text: str, start: int, stop: int | None = None) -> str:
    """``text[start:stop]`` measured in UTF-16 units; never splits a surrogate
    pair (a cut in the middle of a pair drops that character)."""
    if text.isascii():
        return text[start:stop]
    units = text.encode(_CODEC, _LONE)
    total = len(units) >> 1
    lo = _clamp(start, total)
    hi = total if stop is None else _clamp(stop, total)
    if 0 < lo < total and _splits_pair(units, lo):
        lo += 1
    if 0 < hi < total and _splits_pair(units, hi):
        hi -= 1
    if hi <= lo:
        return ""
    return units[lo * 2 : hi * 2].decode(_CODEC, _LONE)


def _unit(units: bytes, index: int) -> int:
    return units[index * 2] | units[index * 2 + 1] << 8


def _splits_pair(units: bytes, cut: int) -> bool:
    """Whether a cut before unit ``cut`` falls between a high and a low surrogate."""
    return 0xD800 <= _unit(units, cut - 1) <= 0xDBFF and 0xDC00 <= _unit(units, cut) <= 0xDFFF


def _clamp(index: int, total: int) -> int:
    if index < 0:
        index += total
    return max(0, min(index, total))
