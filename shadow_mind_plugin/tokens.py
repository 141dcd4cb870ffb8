"""A cheap, model-independent token estimate and the model-derived prompt budget.

The estimate is the reference's heuristic: CJK text costs about one token per
character, everything else about one token per two characters (UTF-16 units).
It only has to be stable and roughly right, because it bounds prompts.
"""

from __future__ import annotations

import math
import re
from typing import Final

from .utf16 import LONG_TEXT, PrefixMemo, u16len

#: CJK blocks counted as one token per UTF-16 unit (radicals, punctuation, kana,
#: bopomofo, ideographs incl. extensions, hangul, compatibility and full-width forms).
_DENSE: Final = re.compile(
    "["
    "\u2e80-\u2eff"
    "\u3000-\u303f"
    "\u3040-\u30ff"
    "\u3100-\u312f"
    "\u31c0-\u31ef"
    "\u3400-\u4dbf"
    "\u4e00-\u9fff"
    "\uac00-\ud7af"
    "\uf900-\ufaff"
    "\uff00-\uffef"
    "\U00020000-\U000323af"
    "]+"
)

#: everything below the first dense block: dropping its runs first is ~8x faster than
#: scanning every character against the dense classes (the regex engine's run loop)
_BELOW_DENSE: Final = re.compile("[\x00-\u2e7f]+")


def estimate_tokens(text: str) -> int:
    """``dense + ceil((u16len - dense) / 2)`` where ``dense`` is the CJK share in UTF-16 units."""
    if not text:
        return 0
    if text.isascii() or _BELOW_DENSE.fullmatch(text):
        return (len(text) + 1) // 2  # no dense and no astral character: one unit each
    total, dense = _LONG(text) if len(text) >= LONG_TEXT else _sizes(text)
    return dense + math.ceil((total - dense) / 2)


def _sizes(text: str) -> tuple[int, int]:
    """(UTF-16 units, dense UTF-16 units): both add up over concatenation."""
    return u16len(text), u16len("".join(_DENSE.findall(_BELOW_DENSE.sub("", text))))


#: the regex scan costs ~50 ns a character: a growing trajectory is scanned on its new tail only
_LONG = PrefixMemo(_sizes)
