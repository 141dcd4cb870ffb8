"""Exact-literal holdout redaction (docs/shadow-mind.md §7 "Holdout").

Operator secrets ("holdout keys") must never reach a reviewer prompt, a report
or a relay. Replacement is plain substring work, never a regex, so a key full of
regex metacharacters is still matched literally.

A key is matched in every encoding the projection can produce: as written,
and JSON-escaped the way tool arguments are rendered with
``argumentDisclosure: full`` (``json.dumps``, with and without
``ensure_ascii``), so a literal containing a quote, a backslash, a newline or
non-ASCII text cannot slip through in its escaped form.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Final, TypeVar, cast

T = TypeVar("T")

REDACTED_HOLDOUT: Final = "[redacted holdout]"


def encodings(key: str) -> tuple[str, ...]:
    """The forms of ``key`` a rendered trajectory may hold, longest first (so an
    escaped form is replaced before the raw key could match inside it)."""
    forms = {key, json.dumps(key, ensure_ascii=False)[1:-1], json.dumps(key)[1:-1]}
    return tuple(sorted(forms, key=lambda form: (-len(form), form)))


def _forms(keys: Iterable[str]) -> list[str]:
    return [form for key in keys if key for form in encodings(key)]


def redact(text: str, keys: Iterable[str]) -> str:
    """Replace every occurrence of each key, applying the keys in order.

    Sequential application mirrors the reference's ``split(key).join(...)``:
    a later key sees the output of earlier ones, and there is no overlap
    handling beyond that. Empty keys are skipped (the sidecar forbids them, and
    an empty literal would otherwise interleave the marker between every
    character).
    """
    for form in _forms(keys):
        text = text.replace(form, REDACTED_HOLDOUT)
    return text


def contains_literal(text: str, keys: Iterable[str]) -> bool:
    """Whether any (non-empty) key still occurs in ``text``: the final invariant
    check before a relay is persisted."""
    return any(form in text for form in _forms(keys))


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
