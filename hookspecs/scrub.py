"""What counts as a secret or a private path: the one scrubber hosts and plugins share.

Text that crosses the host/plugin boundary or lands somewhere durable (host
logs, session events, plugin journals, ``SubagentResult.diagnostic``, error
payloads) is passed through :func:`scrub_text` so both sides agree on what is
hidden. Credentials become ``[credential]``, absolute paths ``[absolute-path]``.
The rules, applied in this order:

1. ``Bearer <token>`` and ``sk-<token>`` (8 or more token characters);
2. ``api_key`` / ``api-key`` / ``apikey`` / ``authorization`` / ``token`` /
   ``secret`` / ``password`` followed by ``:`` or ``=`` and a quoted value;
3. the same names with an unquoted value (up to white space, ``,`` or ``;``);
4. a quoted Windows path (``"C:\\Program Files\\x"``), spaces included;
5. a bare Windows path (``C:\\Users\\me\\x.txt``);
6. a quoted POSIX path (``'/etc/passwd'``);
7. a bare POSIX path of two or more segments, after the start of the text,
   white space, ``(``, a quote or ``=``; the character before it is kept.

Names match case-insensitively (``ſ`` counts as ``s`` and the Kelvin sign as
``k``, as under JavaScript's ``iu`` flags) and only as whole words: a name or
prefix must not follow an ASCII letter, digit or ``_`` (``mytoken=`` and
``ask-...`` are left alone).

White space is the union of Python's and ECMAScript's sets where it separates
(``Bearer<ws>``, ``token<ws>=<ws>``, before a bare path) and only what both call
white space where it ends a value or path, so everything either former scrubber
(the host's and the Shadow Mind plugin's) hid is still hidden. Every pattern runs
in linear time: none nests quantifiers (an unclosed quote used to backtrack
exponentially).

Importing this module has no side effects.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

__all__ = ["ABSOLUTE_PATH", "CREDENTIAL", "DEFAULT_LIMIT", "scrub_text"]

CREDENTIAL: Final = "[credential]"
ABSOLUTE_PATH: Final = "[absolute-path]"
#: Characters :func:`scrub_text` keeps by default (an ellipsis marks a cut).
DEFAULT_LIMIT: Final = 500

# White space that both Python (str.isspace) and ECMAScript agree on ...
_BREAK = "\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
# ... and white space that either of them accepts (Python adds \x1c-\x1f and
# \x85, ECMAScript \ufeff).
_SPACE = _BREAK + "\x1c-\x1f\x85\ufeff"
_S = f"[{_SPACE}]"

# "Not inside a word" before a name: an ASCII word character, or one that folds
# to one under JavaScript's `iu` flags, must not precede it. Case-sensitive even
# inside an IGNORECASE pattern (Python would otherwise add the dotted and dotless i).
_NAME_START = r"(?<!(?-i:[0-9A-Z_a-z\u017f\u212a]))"
_DRIVE_START = r"(?<![0-9A-Z_a-z])"
_SECRET_NAME = rf"{_NAME_START}(?:api[_-]?key|authorization|token|secret|password)\b"

_RULES: Final[tuple[tuple[re.Pattern[str], str], ...]] = (
    (re.compile(rf"{_NAME_START}(?:Bearer{_S}+|sk-)[A-Za-z0-9._~+/=-]{{8,}}", re.IGNORECASE), CREDENTIAL),
    (re.compile(rf"{_SECRET_NAME}{_S}*[:=]{_S}*(?:\"[^\"]*\"|'[^']*')", re.IGNORECASE), CREDENTIAL),
    (re.compile(rf"{_SECRET_NAME}{_S}*[:=]{_S}*[^{_BREAK},;]+", re.IGNORECASE), CREDENTIAL),
    (re.compile(r"([\"'])[A-Za-z]:[\\/][\s\S]*?\1"), ABSOLUTE_PATH),
    (re.compile(rf"{_DRIVE_START}[A-Za-z]:[\\/][^{_BREAK}\"'<>|]*"), ABSOLUTE_PATH),
    # The nested form (["'])/(?:[^\r\n"']+/)*[^\r\n"']*\1 accepts exactly the
    # strings of [^\r\n"'], so this matches the same spans without backtracking
    # exponentially on an unclosed quote.
    (re.compile(r"([\"'])/[^\r\n\"']*\1"), ABSOLUTE_PATH),
    (re.compile(rf"(^|[{_SPACE}(\"'=])/(?:[^{_BREAK}/\"'<>]+/)+[^{_BREAK}\"'<>]*"), rf"\1{ABSOLUTE_PATH}"),
)


def scrub_text(
    text: str,
    *,
    limit: int | None = DEFAULT_LIMIT,
    secrets: Iterable[str] = (),
    path_marker: str = ABSOLUTE_PATH,
) -> str:
    """Hide credentials and absolute paths in ``text``, then bound its length.

    ``path_marker`` replaces each absolute path (a diagnostics view that has
    already rewritten paths under a known root may prefer ``<path>``).

    ``secrets`` are exact values known to be secret (a configured API key); each
    non-empty one is replaced by ``[credential]`` wherever it appears, longest
    first and before the rules run, so no rule or cut can leave part of it
    behind. ``limit`` bounds the result in characters, the last one being ``…``
    when text was cut; ``None`` keeps the whole text (for callers that bound it
    their own way).
    """
    for secret in sorted({s for s in secrets if s}, key=len, reverse=True):
        text = text.replace(secret, CREDENTIAL)
    marker = path_marker.replace("\\", "\\\\")  # a literal in re.sub templates
    for pattern, replacement in _RULES:
        if path_marker != ABSOLUTE_PATH:
            replacement = replacement.replace(ABSOLUTE_PATH, marker)
        text = pattern.sub(replacement, text)
    if limit is not None and len(text) > limit:
        text = text[: max(limit - 1, 0)] + "…"
    return text
