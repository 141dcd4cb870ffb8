"""Exact-literal holdout redaction (reference §6).

Operator secrets ("holdout keys") must never reach a reviewer prompt, a report
or a relay. Replacement is plain substring work, never a regex, so a key full of
regex metacharacters is still matched literally.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final, TypeVar, cast

T = TypeVar("T")

REDACTED_HOLDOUT: Final = "[redacted holdout]"


def redact(text: str, keys: Iterable[str]) -> str:
    """Replace every occurrence of each key, applying the keys in order.

    Sequential application mirrors the reference's ``split(key).join(...)``:
    a later key sees the output of earlier ones, and there is no overlap
    handling beyond that. Empty keys are skipped (the sidecar forbids them, and
    an empty literal would otherwise interleave the marker between every
    character).
    """
    for key in keys:
        if key:
            text = text.replace(key, REDACTED_HOLDOUT)
    return text


def contains_literal(text: str, keys: Iterable[str]) -> bool:
    """Whether any (non-empty) key still occurs in ``text``: the final invariant
    check before a relay is persisted."""
    return any(key and key in text for key in keys)


def redact_value(value: T, keys: Iterable[str]) -> T:
    """``redact`` applied to every string inside JSON-like data; the result has
    the shape (and so the type) of ``value``."""
    keys = tuple(keys)
    if not keys:
        return value
    if isinstance(value, str):
        return cast(T, redact(value, keys))
    if isinstance(value, dict):
        return cast(T, {k: redact_value(v, keys) for k, v in value.items()})
    if isinstance(value, list):
        return cast(T, [redact_value(v, keys) for v in value])
    if isinstance(value, tuple):
        return cast(T, tuple(redact_value(v, keys) for v in value))
    return value
