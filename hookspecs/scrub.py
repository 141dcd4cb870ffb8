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

Known secret values (``secrets=``, a configured API key) are hidden before
the rules run, and not only where they appear whole: any run of text built
from pieces of :data:`PARTIAL_SECRET` (8) or more consecutive characters of a
known secret is replaced, so a provider that echoes the key without its
``sk-`` prefix, or only a slice of it, still leaks nothing. Shorter fragments
are kept (seven characters of a key say nothing; hiding them would eat
ordinary words). A secret shorter than that is replaced only where it
appears whole.

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

__all__ = ["ABSOLUTE_PATH", "CREDENTIAL", "DEFAULT_LIMIT", "PARTIAL_SECRET", "scrub_secrets", "scrub_text"]

CREDENTIAL: Final = "[credential]"
ABSOLUTE_PATH: Final = "[absolute-path]"
#: Characters :func:`scrub_text` keeps by default (an ellipsis marks a cut).
DEFAULT_LIMIT: Final = 500
#: Consecutive characters of a known secret that count as an echo of it.
PARTIAL_SECRET: Final = 8

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

_SECRET_RULES: Final[tuple[tuple[re.Pattern[str], str], ...]] = (
    (re.compile(rf"{_NAME_START}(?:Bearer{_S}+|sk-)[A-Za-z0-9._~+/=-]{{8,}}", re.IGNORECASE), CREDENTIAL),
    (re.compile(rf"{_SECRET_NAME}{_S}*[:=]{_S}*(?:\"[^\"]*\"|'[^']*')", re.IGNORECASE), CREDENTIAL),
    (re.compile(rf"{_SECRET_NAME}{_S}*[:=]{_S}*[^{_BREAK},;]+", re.IGNORECASE), CREDENTIAL),
)

_RULES: Final[tuple[tuple[re.Pattern[str], str], ...]] = (
    *_SECRET_RULES,
    (re.compile(r"([\"'])[A-Za-z]:[\\/][\s\S]*?\1"), ABSOLUTE_PATH),
    (re.compile(rf"{_DRIVE_START}[A-Za-z]:[\\/][^{_BREAK}\"'<>|]*"), ABSOLUTE_PATH),
    # The nested form (["'])/(?:[^\r\n"']+/)*[^\r\n"']*\1 accepts exactly the
    # strings of [^\r\n"'], so this matches the same spans without backtracking
    # exponentially on an unclosed quote.
    (re.compile(r"([\"'])/[^\r\n\"']*\1"), ABSOLUTE_PATH),
    # \g<1>, not \1: a marker that starts with digits (a session id) must not extend the group number
    (re.compile(rf"(^|[{_SPACE}(\"'=])/(?:[^{_BREAK}/\"'<>]+/)+[^{_BREAK}\"'<>]*"), rf"\g<1>{ABSOLUTE_PATH}"),
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

    ``secrets`` are values known to be secret (a configured API key); each
    non-empty one is replaced by ``[credential]`` wherever it appears, and so
    is every stretch of text made of slices of :data:`PARTIAL_SECRET` or more
    characters of one, before the rules run, so no rule or cut can leave part
    of it behind. ``limit`` bounds the result in characters, the last one being ``…``
    when text was cut; ``None`` keeps the whole text (for callers that bound it
    their own way).
    """
    text = _hide_secrets(text, {s for s in secrets if s})
    marker = path_marker.replace("\\", "\\\\")  # a literal in re.sub templates
    for pattern, replacement in _RULES:
        if path_marker != ABSOLUTE_PATH:
            replacement = replacement.replace(ABSOLUTE_PATH, marker)
        text = pattern.sub(replacement, text)
    if limit is not None and len(text) > limit:
        text = text[: max(limit - 1, 0)] + "…"
    return text


def scrub_secrets(text: str, *, secrets: Iterable[str] = ()) -> str:
    """Hide credentials in ``text`` and nothing else: no path rule, no length bound.

    For values that are kept whole (session events, imported transcripts, tool
    output): paths are the person's own and must survive verbatim; only what
    would let someone act as the person is replaced by ``[credential]``.
    """
    text = _hide_secrets(text, {s for s in secrets if s})
    for pattern, replacement in _SECRET_RULES:
        text = pattern.sub(replacement, text)
    return text


def _hide_secrets(text: str, secrets: set[str]) -> str:
    """``text`` with each secret, and each stretch covered by slices of
    ``PARTIAL_SECRET`` characters of one, replaced by ``[credential]``.

    Linear in ``len(text)``: every window of ``PARTIAL_SECRET`` characters is
    looked up in the set of the secrets' windows; overlapping or touching
    matches merge into one span.
    """
    if not secrets:
        return text
    n = PARTIAL_SECRET
    windows = {s[i : i + n] for s in secrets if len(s) >= n for i in range(len(s) - n + 1)}
    text = _hide_windows(text, windows, n) if windows else text
    for secret in sorted((s for s in secrets if len(s) < n), key=len, reverse=True):
        text = text.replace(secret, CREDENTIAL)
    return text


def _hide_windows(text: str, windows: set[str], n: int) -> str:
    spans: list[list[int]] = []
    for i in range(len(text) - n + 1):
        if text[i : i + n] in windows:
            if spans and i <= spans[-1][1]:
                spans[-1][1] = i + n
            else:
                spans.append([i, i + n])
    if not spans:
        return text
    parts: list[str] = []
    end = 0
    for start, stop in spans:
        parts += [text[end:start], CREDENTIAL]
        end = stop
    parts.append(text[end:])
    return "".join(parts)
