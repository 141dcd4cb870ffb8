"""UTF-16 code-unit lengths and slicing, and JavaScript's whitespace.

The system we re-implement counts characters in UTF-16 units (JavaScript
string length). Budgets, bounds and telemetry use these helpers so our numbers
match its documented behaviour for every script, including astral characters.
Both run at C speed (one encode) whatever the text: they are called over whole
trajectories. ``surrogatepass`` keeps lone surrogates (JSON ``"\\ud800"``
escapes load as those): each is one unit, as in JavaScript.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

#: JavaScript's whitespace and line terminators (``String.prototype.trim``, a JS
#: regex ``\s``), spelled out: for ``str.strip`` and for regex character classes.
#: Python's ``\s`` differs at the edges (it includes U+001C..U+001F, omits U+FEFF).
JS_SPACE: Final = "\t\n\v\f\r \u00a0\u1680" + "".join(map(chr, range(0x2000, 0x200B))) + "\u2028\u2029\u202f\u205f\u3000\ufeff"

#: texts at least this long are measured through a :class:`PrefixMemo`
LONG_TEXT = 1 << 16

_CODEC = "utf-16-le"
_LONE = "surrogatepass"


class PrefixMemo:
    """Additive measures (counts per character, summed) of the latest long texts.

    A reviewer prompt is measured over a trajectory that grew by a few events
    since the previous review: a text that starts with a remembered one is
    measured on its new tail only (plus one ``startswith``, a memory compare).
    A few slots, most recent first, so the window-sized texts cut from the
    trajectory between two reviews do not push the trajectory out.
    """

    __slots__ = ("_measure", "_slots")

    SLOTS = 3

    def __init__(self, measure: Callable[[str], tuple[int, ...]]) -> None:
        self._measure = measure
        self._slots: list[tuple[str, tuple[int, ...]]] = []

    def __call__(self, text: str) -> tuple[int, ...]:
        slots = self._slots
        for index in range(len(slots)):
            last, known = slots[index]
            if text is last:
                value = known
                break
            if extends(text, last):
                tail = self._measure(text[len(last) :])
                value = tuple(a + b for a, b in zip(known, tail, strict=True))
                break
        else:
            index, value = self.SLOTS - 1, self._measure(text)
        del slots[index:index + 1]
        slots.insert(0, (text, value))
        del slots[self.SLOTS :]
        return value


# the latest (longer, prefix) pair known to extend: the second memo asked about the
# same pair, or a writer that built the text by appending, spares the compare
_extension: tuple[str, str] = ("", "")


def note_extension(prefix: str, text: str) -> None:
    """Tell the memos that ``text`` starts with ``prefix`` (its builder knows)."""
    global _extension
    _extension = (prefix, text)


def extends(text: str, prefix: str) -> bool:
    """``text.startswith(prefix)``, remembered for the latest pair."""
    known_prefix, known_text = _extension
    if known_text is text and known_prefix is prefix:
        return True
    if len(text) < len(prefix) or not text.startswith(prefix):
        return False
    note_extension(prefix, text)
    return True


def _units(text: str) -> tuple[int]:
    return (len(text.encode(_CODEC, _LONE)) >> 1,)


_LONG_UNITS = PrefixMemo(_units)


def u16len(text: str) -> int:
    """Length in UTF-16 code units (an astral character counts 2)."""
    if text.isascii():
        return len(text)
    if len(text) >= LONG_TEXT:
        return _LONG_UNITS(text)[0]
    return _units(text)[0]


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
