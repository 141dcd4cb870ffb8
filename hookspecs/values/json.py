"""Lossless JSON: the only data a session event may carry."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from typing import Any, TypeAlias

from ..errors import JsonDataError

#: A JSON value as Python builds it from ``json.loads``.
JSON: TypeAlias = None | bool | int | float | str | list["JSON"] | dict[str, "JSON"]

_MAX_DEPTH = 200


def check_json(value: Any, where: str = "data") -> None:
    """Raise :class:`JsonDataError` unless ``value`` survives a JSON round trip.

    Rejects NaN and infinities, non-string keys, tuples, sets, bytes and any other
    non-JSON object; the message names the offending path (``data.items[3].x``).
    """
    try:
        _check(value, 0)
    except _Bad as bad:
        path = where + "".join(reversed(bad.path))
        raise JsonDataError(f"{path}: {bad.problem}") from None


class _Bad(Exception):
    """A violation found deep inside; parents add their path segment on the way out
    (so valid data, the common case, never pays for building paths)."""

    def __init__(self, problem: str) -> None:
        self.problem = problem
        self.path: list[str] = []


def _check(value: Any, depth: int) -> None:
    if depth > _MAX_DEPTH:
        raise _Bad(f"nesting deeper than {_MAX_DEPTH} levels (cycle?)")
    t = type(value)
    if t is str or t is bool or t is int or value is None:
        return
    if t is float:
        if not math.isfinite(value):
            raise _Bad(f"{value!r} is not a finite JSON number")
        return
    if t is dict:
        for key, item in value.items():
            if type(key) is not str:
                raise _Bad(f"key {key!r} is not a string")
            try:
                _check(item, depth + 1)
            except _Bad as bad:
                bad.path.append(f".{key}")
                raise
        return
    if t is list:
        for index, item in enumerate(value):
            try:
                _check(item, depth + 1)
            except _Bad as bad:
                bad.path.append(f"[{index}]")
                raise
        return
    raise _Bad(f"{t.__name__} is not a JSON value")


def _reject_constant(name: str) -> Any:
    raise JsonDataError(f"{name} is not a finite JSON number")


def loads_strict(text: str | bytes) -> Any:
    """``json.loads`` that refuses ``NaN``/``Infinity`` literals."""
    return json.loads(text, parse_constant=_reject_constant)


#: :func:`loads_strict` for ``str`` input with one shared decoder: for hot loops
#: (``json.loads`` with ``parse_constant`` builds a new decoder on every call)
decode_strict: Callable[[str], Any] = json.JSONDecoder(parse_constant=_reject_constant).decode


def dumps_compact(value: Any) -> str:
    """Compact, key-order-preserving, non-ASCII-preserving JSON text."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def freeze_mapping(value: Mapping[str, Any] | None) -> dict[str, Any]:
    """A plain ``dict`` copy of a mapping that is checked to be JSON."""
    out = dict(value or {})
    check_json(out, "mapping")
    return out
