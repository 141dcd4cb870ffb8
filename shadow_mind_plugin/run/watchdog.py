"""Degenerate-output watchdog for a reviewer child's live stream (docs/shadow-mind.md §7 "Degenerate-output watchdog").

A stuck child either loops on one short token block (``<tool_calls>`` forever)
or streams without ever calling a tool. The guard fires once, on
``repetition`` or ``output-budget``, and the provider then cancels the child.

All lengths are UTF-16 code units, like the reference. Internally the guard
keeps its tail as a string of *units*: astral characters are split into their
surrogate pairs, so slicing by Python index equals slicing by unit, exactly as
the reference's ``slice(-128)`` (which may leave a lone surrogate at the front).
"""

from __future__ import annotations

import re
import unicodedata
from typing import Final, Literal

DegenerateReason = Literal["repetition", "output-budget"]
ChunkKind = Literal["text", "reasoning"]

REPETITION: Final = "repetition"
OUTPUT_BUDGET: Final = "output-budget"

REPETITION_MIN_PERIOD: Final = 4
REPETITION_MAX_PERIOD: Final = 32
REPETITION_REPEATS: Final = 4
#: The rolling tail the repetition check sees (units).
TAIL_CAP: Final = REPETITION_MAX_PERIOD * REPETITION_REPEATS
#: Visible text units allowed between progress signals.
MAX_CHARS_WITHOUT_TOOL_CALL: Final = 96_000
MAX_REASONING_CHARS_BASE: Final = 96_000

_EFFORT_MULTIPLIER: Final = {"low": 1, "medium": 1, "high": 2, "max": 4}
#: Unknown or unset efforts get the most generous budget: a stricter guard
#: would kill legitimate long thinking on a model we know nothing about.
_UNKNOWN_EFFORT_MULTIPLIER: Final = 4

_MIN_SPAN: Final = REPETITION_MIN_PERIOD * REPETITION_REPEATS  # 16
#: Any repeated suffix makes its last ``(REPEATS-1) * MIN_PERIOD`` units recur
#: exactly ``period`` units earlier: a cheap necessary condition (see below).
_PROBE: Final = (REPETITION_REPEATS - 1) * REPETITION_MIN_PERIOD  # 12
#: The guard's buffer may grow to this before it is cut back to ``TAIL_CAP``;
#: cutting less often keeps the per-chunk cost to one small concatenation.
_BUFFER_CAP: Final = 2 * TAIL_CAP
# DegenerateOutputGuard.observe_chunk spells these as literals
assert (_PROBE, _PROBE + REPETITION_MAX_PERIOD, REPETITION_MIN_PERIOD, TAIL_CAP, _BUFFER_CAP) == (12, 44, 4, 128, 256)

_ASTRAL = re.compile("[\U00010000-\U0010ffff]")
_SURROGATE = re.compile("[\ud800-\udfff]")
_BLANKS: Final = frozenset(" \n\t\r")


def resolve_reasoning_budget(effort: str | None) -> int:
    """Reasoning units allowed between progress signals for an effort id."""
    return MAX_REASONING_CHARS_BASE * _EFFORT_MULTIPLIER.get(effort or "", _UNKNOWN_EFFORT_MULTIPLIER)


def _split_pair(match: re.Match[str]) -> str:
    code = ord(match.group()) - 0x10000
    return chr(0xD800 + (code >> 10)) + chr(0xDC00 + (code & 0x3FF))


def to_units(text: str) -> str:
    """``text`` with every astral character replaced by its surrogate pair, so
    ``len`` and slicing count UTF-16 units."""
    if text.isascii() or not _ASTRAL.search(text):
        return text
    return _ASTRAL.sub(_split_pair, text)


def _code_points(units: str) -> str:
    """Re-join surrogate pairs (lone surrogates stay), as JS iterates a string."""
    if units.isascii() or not _SURROGATE.search(units):
        return units
    return units.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def _is_letter_or_digit(ch: str) -> bool:
    # \p{L} or \p{N}; ASCII answers without a table look-up
    if ch.isascii():
        return ch.isalnum()
    return unicodedata.category(ch)[0] in "LN"


def is_signal_block(units: str) -> bool:
    """A block worth firing on: it has a letter or digit, a character other
    than space/newline/tab/CR, and at least two distinct code points. Rules out
    ``======``, ``aaaa`` and whitespace runs (those stay with the budget)."""
    chars = _code_points(units)
    return (
        any(_is_letter_or_digit(ch) for ch in chars)
        and any(ch not in _BLANKS for ch in chars)
        and len(set(chars)) >= 2
    )


def _repeated_units(units: str) -> bool:
    n = len(units)
    if n < _MIN_SPAN:
        return False
    for period in range(REPETITION_MIN_PERIOD, min(REPETITION_MAX_PERIOD, n // REPETITION_REPEATS) + 1):
        span = period * REPETITION_REPEATS
        # four equal blocks <=> the last three blocks equal the three before,
        # shifted by one period: one C-level comparison per period
        if units[n - span + period :] == units[n - span : n - period] and is_signal_block(units[n - period :]):
            return True
    return False


def has_repeated_suffix(tail: str) -> bool:
    """Whether ``tail`` ends in 4 consecutive copies of one signal block whose
    length (in UTF-16 units) is 4..32."""
    return _repeated_units(to_units(tail))


class DegenerateOutputGuard:
    """One-shot watchdog over one child's streamed text and reasoning.

    Feed every text/reasoning delta to :meth:`observe_chunk`, every tool call to
    :meth:`observe_tool_call` and every step/turn end (or stream end) to
    :meth:`observe_boundary`.
    """

    __slots__ = ("_reasoning_budget", "_text", "_reasoning", "_buf", "_reason")

    def __init__(self, reasoning_budget: int = MAX_REASONING_CHARS_BASE) -> None:
        self._reasoning_budget = reasoning_budget
        self._text = 0
        self._reasoning = 0
        # The stream's most recent units: at least min(total, TAIL_CAP) of them
        # and at most _BUFFER_CAP + one chunk. The check reads only the last
        # TAIL_CAP, so the extra prefix never changes an answer.
        self._buf = ""
        self._reason: DegenerateReason | None = None

    @property
    def fired(self) -> bool:
        return self._reason is not None

    @property
    def reason(self) -> DegenerateReason | None:
        return self._reason

    @property
    def reasoning_budget(self) -> int:
        return self._reasoning_budget

    def observe_chunk(self, text: str, kind: ChunkKind) -> DegenerateReason | None:
        """Observe one delta; return the reason the first time the guard fires."""
        if self._reason is not None or not text:
            return None
        if not text.isascii():
            text = to_units(text)
        size = len(text)
        # (This runs once per streamed delta, so it spells the constants as
        # literals; an assert at import ties them to the named ones.)
        # Budgets first, as the reference does; strictly greater fires.
        if kind == "text":
            spent = self._text + size
            self._text = spent
            if spent > MAX_CHARS_WITHOUT_TOOL_CALL:
                self._reason = OUTPUT_BUDGET
                return OUTPUT_BUDGET
        elif kind == "reasoning":
            spent = self._reasoning + size
            self._reasoning = spent
            if spent > self._reasoning_budget:
                self._reason = OUTPUT_BUDGET
                return OUTPUT_BUDGET
        else:
            raise ValueError(f"unknown chunk kind {kind!r}")
        buf = self._buf + text
        if len(buf) > 256:  # _BUFFER_CAP
            buf = buf[-128:]  # TAIL_CAP
        self._buf = buf
        # Cheap filter first (two slices and one C-level `in`): a repeated
        # suffix of period p makes its last 12 units recur exactly p units
        # earlier, i.e. wholly inside buf[-44:-4]. Ordinary prose almost never
        # passes, so the full check (29 periods) runs only on tails that really
        # are periodic. (Slices, not str.find(sub, start, end): its argument
        # parsing costs more than the search.)
        if buf[-12:] in buf[-44:-4] and _repeated_units(buf[-128:]):
            self._reason = REPETITION
            return REPETITION
        return None

    def observe_tool_call(self) -> None:
        """The child made progress: both budgets restart (the tail does not)."""
        self._text = 0
        self._reasoning = 0

    def observe_boundary(self) -> None:
        """A step/turn ended (or the stream ended): both budgets restart."""
        self._text = 0
        self._reasoning = 0
