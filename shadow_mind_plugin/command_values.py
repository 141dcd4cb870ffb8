"""Reading the values typed after ``/shadow set`` and ``/shadow config``.

Values are YAML read by the definition parser's own loader, so a command and
a hand-edited file agree (``2024-05-01`` stays a string, ``!!int a`` is a
clear error). Several ``KEY VALUE`` pairs are split with quotes and flow
brackets respected, so ``'very high'`` or ``[low, high]`` is one value.
"""

from __future__ import annotations

from typing import Any

from hookspecs.errors import CommandError

from .definitions.errors import DefinitionError
from .definitions.parse import load_value

#: Characters of a bad value quoted back in an error.
_EXCERPT = 80
_CLOSERS = {"[": "]", "{": "}"}


def parse_value(field: str, text: str) -> Any:
    """``text`` as the YAML value for ``field``; ``none``, ``null`` and ``~``
    clear the field (None). A value YAML cannot read is a one-line
    ``CommandError`` naming ``field``."""
    text = text.strip()
    if text.lower() in ("none", "null", "~"):
        return None
    try:
        return load_value(text)
    except DefinitionError as exc:
        raise CommandError(f"{field}: could not read the value {text[:_EXCERPT]!r}: {exc.reason}") from None


def parse_text(field: str, text: str) -> str:
    """A free-text field (``name``, ``prompt``): taken verbatim, except that one
    quoted YAML scalar is unquoted (``"a: b"`` -> ``a: b``)."""
    text = text.strip()
    if text[:1] in ("'", '"') and split_values(text) == [text]:
        value = parse_value(field, text)
        if isinstance(value, str):
            return value
    return text


def split_values(text: str) -> list[str]:
    """Whitespace-separated tokens, where a quoted scalar or a bracketed flow
    collection (quotes inside respected) is one token. An unclosed quote or
    bracket runs to the end, so the YAML loader reports it for its field."""
    tokens: list[str] = []
    i, end = 0, len(text)
    while i < end:
        if text[i].isspace():
            i += 1
            continue
        start = i
        i = _token_end(text, i)
        tokens.append(text[start:i])
    return tokens


def _token_end(text: str, i: int) -> int:
    end = len(text)
    first = text[i]
    if first in ("'", '"'):
        return _quote_end(text, i)
    if first not in _CLOSERS:
        while i < end and not text[i].isspace():
            i += 1
        return i
    stack = [_CLOSERS[first]]
    i += 1
    while i < end and stack:
        ch = text[i]
        if ch in ("'", '"'):
            i = _quote_end(text, i)
            continue
        if ch in _CLOSERS:
            stack.append(_CLOSERS[ch])
        elif ch == stack[-1]:
            stack.pop()
        i += 1
    return i


def _quote_end(text: str, i: int) -> int:
    """The index after the quote that closes the one at ``i`` (YAML escapes:
    ``''`` inside single quotes, a backslash inside double quotes)."""
    quote, end = text[i], len(text)
    i += 1
    while i < end:
        ch = text[i]
        if quote == '"' and ch == "\\":
            i += 2
            continue
        if ch == quote:
            if quote == "'" and text[i + 1 : i + 2] == "'":
                i += 2
                continue
            return i + 1
        i += 1
    return end
