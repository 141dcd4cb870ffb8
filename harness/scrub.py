"""Scrubbing secrets and absolute paths out of text that reaches logs and events.

The plugin has its own scrubber (``shadow_mind_plugin.governance.safe_errors``)
that follows the reference system's JavaScript regex semantics exactly; this
one is the host's policy (it also hides ``password=...``). The layering rule
keeps the two packages from sharing code.
"""

from __future__ import annotations

import re

_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"(?:\bBearer\s+|\bsk-)[A-Za-z0-9._~+/=-]{8,}", re.IGNORECASE), "[credential]"),
    (
        re.compile(r"\b(?:api[_-]?key|authorization|token|secret|password)\b\s*[:=]\s*(?:\"[^\"]*\"|'[^']*')", re.IGNORECASE),
        "[credential]",
    ),
    (re.compile(r"\b(?:api[_-]?key|authorization|token|secret|password)\b\s*[:=]\s*[^\s,;]+", re.IGNORECASE), "[credential]"),
    (re.compile(r"([\"'])[A-Za-z]:[\\/][\s\S]*?\1"), "[absolute-path]"),
    (re.compile(r"\b[A-Za-z]:[\\/][^\s\"'<>|]*"), "[absolute-path]"),
    # a quoted POSIX path; written without nested quantifiers (the nested form
    # matches the same spans but backtracks exponentially on an unclosed quote)
    (re.compile(r"([\"'])/[^\r\n\"']*\1"), "[absolute-path]"),
    (re.compile(r"(^|[\s(\"'=])/(?:[^\s/\"'<>]+/)+[^\s\"'<>]*"), r"\1[absolute-path]"),
)

DEFAULT_LIMIT = 500


def scrub_text(text: str, *, limit: int = DEFAULT_LIMIT) -> str:
    """Replace credentials and absolute paths; bound the length."""
    for pattern, replacement in _RULES:
        text = pattern.sub(replacement, text)
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return text


def scrub_secret(text: str, secret: str | None) -> str:
    """Remove one known secret value (an API key) wherever it appears."""
    if secret:
        text = text.replace(secret, "[credential]")
    return text
