"""What the person said not to touch: file or directory targets in their words.

Only path-like targets (with a ``/`` or an extension, or backticked) count:
"don't touch the tests" names nothing a check could match without guessing.
"""

from __future__ import annotations

import re
from typing import Final

from .text import paths_in
from .tools import normal_path

_VERBS: Final = r"(?:touch|modify|edit|change|alter|delete|remove|rewrite|overwrite)(?:ing)?"
_TARGET: Final = r"(`[^`\n]+`|[^\s,;]+)"
_FORBID: Final = re.compile(
    rf"\b(?:do not|don't|dont|never|without)\s+{_VERBS}\s+(?:anything\s+(?:in|under|inside)\s+)?(?:the\s+)?"
    rf"(?:files?\s+|director(?:y|ies)\s+|folder\s+)?{_TARGET}",
    re.IGNORECASE,
)
_LEAVE: Final = re.compile(
    rf"\bleave\s+(?:the\s+)?(?:file\s+)?{_TARGET}\s+(?:alone|as it is|as is|unchanged|untouched)", re.IGNORECASE
)
#: matched from the verb back: a pattern that starts with the target would be tried at every character
_OFF_LIMITS: Final = re.compile(r"\s+(?:is|are)\s+(?:off-limits|off limits|read-only|frozen)\b", re.IGNORECASE)


#: every pattern above needs one of these words: a message without them is not scanned three times
_WORDS: Final = r"do not|don't|dont|never|without|leave|off.limits|read-only|frozen"
_MAYBE: Final = re.compile(_WORDS, re.IGNORECASE)
_MAYBE_LOWER: Final = re.compile(_WORDS)  # on lowered text: ~8x faster than ignoring case
#: characters that ignore-case matching equates with an ASCII letter but lower() does not map to it
_FOLDS_TO_ASCII: Final = frozenset("\u017f\u212a\u0130\u0131")


def _maybe(text: str) -> bool:
    if not text.isascii() and not _FOLDS_TO_ASCII.isdisjoint(text):
        return _MAYBE.search(text) is not None
    return _MAYBE_LOWER.search(text.lower()) is not None


def protected_in(text: str) -> list[str]:
    """The targets one message forbids touching."""
    return _scan(text) if _maybe(text) else []


def _scan(text: str) -> list[str]:
    raw = [m.group(1) for pattern in (_FORBID, _LEAVE) for m in pattern.finditer(text)]
    for match in _OFF_LIMITS.finditer(text):
        before = text[: match.start()].split()
        if before:
            raw.append(before[-1])
    return [target for target in map(_target, raw) if target]


def _target(raw: str) -> str | None:
    ticked = raw.startswith("`")
    target = normal_path(raw.strip("`").rstrip(".,;:!?)\"'"))
    if not target or " " in target:
        return None
    if ticked or "/" in target or paths_in(target) == [target]:
        return target
    return None
