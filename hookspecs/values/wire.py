"""Helpers shared by the private cattrs converters of each wire format."""

from __future__ import annotations

from typing import Any, TypeVar

import cattrs
from cattrs.v import format_exception

from ..errors import DshError
from ..scrub import scrub_text

T = TypeVar("T")


def make_converter() -> cattrs.Converter:
    """A fresh converter that refuses unknown keys and coercions (one per wire format).

    Scalars are strict: ``"1"`` is not an int and ``1`` is not a string. Fields that
    hold arbitrary JSON are typed ``dict[str, Any]`` / ``Any`` and pass through
    unchanged; whoever builds them checks losslessness (``check_json``).
    """
    conv = cattrs.Converter(forbid_extra_keys=True, omit_if_default=False)
    conv.register_structure_hook(str, _strict_str)
    conv.register_structure_hook(bool, _strict_bool)
    conv.register_structure_hook(int, _strict_int)
    conv.register_structure_hook(float, _strict_float)
    return conv


def _strict_str(value: Any, _t: Any) -> str:
    if type(value) is not str:
        raise TypeError(f"expected a string, got {describe_value(value)}")
    return value


def _strict_bool(value: Any, _t: Any) -> bool:
    if type(value) is not bool:
        raise TypeError(f"expected true or false, got {describe_value(value)}")
    return value


def _strict_int(value: Any, _t: Any) -> int:
    if type(value) is not int:
        raise TypeError(f"expected an integer, got {describe_value(value)}")
    return value


def _strict_float(value: Any, _t: Any) -> float:
    if type(value) is int:
        return float(value)
    if type(value) is not float:
        raise TypeError(f"expected a number, got {describe_value(value)}")
    return value


def describe_value(value: Any) -> str:
    """A short noun phrase for a raw (JSON or YAML) value, for error messages.

    ``null``, ``a boolean``, ``the number 3``, ``the string 'x'`` (the repr of
    the plain string, so YAML's string subclasses read like any other), ``a
    list``, ``a mapping``; anything else is named by its type. The wire
    converters, the profile parser and the scripted adapter all word their
    "expected ..., got ..." errors with it.
    """
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return f"the number {value!r}"
    if isinstance(value, str):
        return f"the string {str(value)!r}"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__


#: how much of a YAML loader's problem text a message repeats
_YAML_PROBLEM_LIMIT = 200


def describe_yaml_error(exc: BaseException, *, first_line: int | None = 1) -> str:
    """A YAML loader's failure in one line: the problem, then where it is
    (``mapping values are not allowed here (line 3, column 7)``).

    Every YAML reader words its errors with it (profiles, the settings document,
    scripts, corpora, definition frontmatter). ``first_line`` is the number of
    the text's first line (a frontmatter starts below its ``---``); ``None`` for
    a one-line value, whose column alone is given. Handles ruamel's marked and
    plain errors, a depth bound's error (``line``/``column`` attributes,
    1-based), ``RecursionError``, and the plain errors ruamel's constructors
    leak for a tag that cannot be built (``!!float xyz``).
    """
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    at_line, at_column = getattr(exc, "line", None), getattr(exc, "column", None)
    if mark is not None:
        problem = getattr(exc, "problem", None) or getattr(exc, "context", None) or "syntax error"
        line, column = mark.line + 1, mark.column + 1
    elif isinstance(at_line, int) and isinstance(at_column, int):
        problem, line, column = str(exc), at_line, at_column
    else:
        if isinstance(exc, RecursionError):  # the composer recurses once per nesting level
            problem = "nested too deeply"
        elif type(exc).__module__.startswith("ruamel"):
            problem = " ".join(str(exc).split()) or type(exc).__name__
        else:
            problem = f"a tagged value cannot be built ({' '.join(str(exc).split()) or type(exc).__name__})"
        return scrub_text(problem, limit=_YAML_PROBLEM_LIMIT)
    where = f"column {column}" if first_line is None else f"line {line - 1 + first_line}, column {column}"
    return f"{scrub_text(str(problem), limit=_YAML_PROBLEM_LIMIT)} ({where})"


def structure(
    converter: cattrs.Converter,
    data: Any,
    cls: Any,
    *,
    where: str,
    error: type[DshError] = DshError,
) -> Any:
    """Structure ``data`` as ``cls``; failures become one ``error`` listing every
    path-qualified problem, prefixed with ``where`` (a file, field or argument).
    """
    try:
        return converter.structure(data, cls)
    except Exception as exc:  # cattrs raises ExceptionGroups and plain errors
        raise error(f"{where}: {'; '.join(describe_errors(exc))}") from exc


def _unknown_fields(exc: cattrs.ForbiddenExtraKeysError) -> str:
    # a YAML document may have non-string keys (``? `` is a null key), which
    # cattrs's own message cannot join: name each by its repr
    names = sorted(k if isinstance(k, str) else repr(k) for k in exc.extra_fields)
    return f"unknown field(s): {', '.join(names)}"


def _format(exc: BaseException, type_: Any) -> str:
    if isinstance(exc, cattrs.ForbiddenExtraKeysError):  # before str(exc), which may fail for it
        return _unknown_fields(exc)
    if isinstance(exc, TypeError) and str(exc).startswith("expected "):
        return str(exc)
    if "not in literal" in str(exc):
        allowed = ", ".join(repr(a) for a in getattr(type_, "__args__", ()))
        return f"invalid value; expected one of {allowed}" if allowed else "invalid value"
    if isinstance(exc, KeyError):
        return "required field missing"
    return format_exception(exc, type_)


def describe_errors(exc: BaseException) -> list[str]:
    """Flatten a cattrs error into ``'<problem> @ $.path'`` strings."""
    if isinstance(exc, (cattrs.ClassValidationError, cattrs.IterableValidationError)):
        return list(cattrs.transform_error(exc, path="$", format_exception=_format))
    if isinstance(exc, cattrs.ForbiddenExtraKeysError):
        return [_unknown_fields(exc)]
    if isinstance(exc, BaseExceptionGroup):
        out: list[str] = []
        for sub in exc.exceptions:
            out.extend(describe_errors(sub))
        return out
    return [str(exc) or type(exc).__name__]
