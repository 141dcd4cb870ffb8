"""A JSON-Schema subset: checked up front, validated with every violation reported.

Why not ``jsonschema``: a model that sends bad arguments should see *all* of its
mistakes at once, phrased for it (``limit: expected integer, got string``), and a
tool author who writes a keyword we do not enforce (``oneOf``, ``$ref``...) should
be told at registration instead of having it silently ignored.

Semantics follow JSON Schema where they overlap, with deliberate strictness:
booleans are neither integers nor numbers and ``3.0`` is not an integer.
``pattern`` uses Python's :mod:`re` (searched, not anchored).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any, TypeGuard

from hookspecs.errors import JsonDataError
from hookspecs.values.json import check_json

JSON_TYPES: frozenset[str] = frozenset({"string", "number", "integer", "boolean", "array", "object", "null"})

#: Keywords that change what validates.
ASSERTION_KEYWORDS: frozenset[str] = frozenset(
    {
        "type",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "enum",
        "const",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "minLength",
        "maxLength",
        "pattern",
        "minItems",
        "maxItems",
        "uniqueItems",
        "anyOf",
    }
)
#: Keywords that only document (shown to the model, never enforced).
ANNOTATION_KEYWORDS: frozenset[str] = frozenset({"description", "title", "default", "examples"})
SUPPORTED_KEYWORDS: frozenset[str] = ASSERTION_KEYWORDS | ANNOTATION_KEYWORDS

_BOUNDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")
_COUNTS = ("minLength", "maxLength", "minItems", "maxItems")
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")

#: Where a value sits: property names and array indexes from the root.
JsonPath = tuple[str | int, ...]


class SchemaError(ValueError):
    """A schema uses an unsupported keyword or is malformed; ``problems`` lists each."""

    def __init__(self, where: str, problems: Sequence[str]) -> None:
        self.where = where
        self.problems: tuple[str, ...] = tuple(problems)
        super().__init__(f"{where}: invalid schema: " + "; ".join(self.problems))


# --- paths and value descriptions ---------------------------------------------------


def render_path(path: JsonPath, root: str) -> str:
    """``("refs", 3, "id")`` -> ``refs[3].id``; the empty path is ``root``."""
    out = ""
    for seg in path:
        if isinstance(seg, int):
            out += f"[{seg}]"
        elif _IDENT.match(seg):
            out += f".{seg}" if out else seg
        else:
            out += f"[{json.dumps(seg, ensure_ascii=False)}]"
    if not out:
        return root
    return root + out if out.startswith("[") else out


def json_type_name(value: Any) -> str:
    """The JSON type a Python value stands for (``bool`` is ``boolean``, never a number)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, Mapping):
        return "object"
    return type(value).__name__


def _is_number(value: Any) -> TypeGuard[int | float]:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return True
    return isinstance(value, float) and math.isfinite(value)


def _has_type(value: Any, name: str) -> bool:
    if name == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if name == "number":
        return _is_number(value)
    if name == "string":
        return isinstance(value, str)
    if name == "boolean":
        return isinstance(value, bool)
    if name == "null":
        return value is None
    if name == "array":
        return isinstance(value, (list, tuple))
    if name == "object":
        return isinstance(value, Mapping)
    return False


def _canon(value: Any) -> Any:
    """A hashable form where JSON-equal values are equal: ``1 == 1.0``, ``True != 1``."""
    if isinstance(value, bool):
        return ("b", value)
    if isinstance(value, (int, float)):
        return ("n", int(value) if isinstance(value, float) and value.is_integer() else value)
    if isinstance(value, str):
        return ("s", value)
    if value is None:
        return ("z",)
    if isinstance(value, (list, tuple)):
        return ("a", tuple(_canon(v) for v in value))
    if isinstance(value, Mapping):
        return ("o", frozenset((k, _canon(v)) for k, v in value.items()))
    return ("?", id(value))


def _show(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(value)


# --- checking schemas ------------------------------------------------------------------


def check_schema(schema: Mapping[str, Any], where: str) -> None:
    """Raise :class:`SchemaError` (a ``ValueError``) naming ``where``, the JSON path
    and the keyword or value at fault when ``schema`` leaves the supported subset."""
    problems: list[str] = []
    _check(schema, (), problems)
    if problems:
        raise SchemaError(where, problems)


def check_object_schema(schema: Mapping[str, Any], where: str) -> None:
    """:func:`check_schema` plus a top-level ``type: "object"`` (tool parameters,
    structured outputs: the model always sends an object)."""
    problems: list[str] = []
    _check(schema, (), problems)
    if isinstance(schema, Mapping) and schema.get("type") != "object":
        problems.insert(0, f"$: top-level type must be \"object\", got {_show(schema.get('type'))}")
    if problems:
        raise SchemaError(where, problems)


def _spath(path: JsonPath) -> str:
    """A schema location as ``$.properties.limit`` (``$`` is the schema itself)."""
    rest = render_path(path, "")
    return "$" + (rest if rest.startswith("[") or not rest else "." + rest)


def _check(schema: Any, path: JsonPath, problems: list[str]) -> None:
    here = _spath(path)
    if not isinstance(schema, Mapping):
        problems.append(f"{here}: a schema must be an object, got {json_type_name(schema)}")
        return
    before = len(problems)
    for key in schema:
        if key not in SUPPORTED_KEYWORDS:
            problems.append(f"{here}: unsupported keyword {key!r}")

    def bad(key: str, what: str) -> None:
        problems.append(f"{_spath(path + (key,))}: {what}")

    if "type" in schema:
        t = schema["type"]
        names = [t] if isinstance(t, str) else t
        if not isinstance(names, list) or not names:
            bad("type", f"must be a type name or a non-empty list of them, got {_show(t)}")
        else:
            for name in names:
                if not isinstance(name, str) or name not in JSON_TYPES:
                    expected = ", ".join(sorted(JSON_TYPES))
                    bad("type", f"unknown type {_show(name)} (expected one of {expected})")
            if len(set(map(str, names))) != len(names):
                bad("type", "lists a type twice")

    if "properties" in schema:
        props = schema["properties"]
        if not isinstance(props, Mapping):
            bad("properties", f"must be an object mapping names to schemas, got {json_type_name(props)}")
        else:
            for name, sub in props.items():
                if not isinstance(name, str):
                    bad("properties", f"property name {name!r} is not a string")
                    continue
                _check(sub, path + ("properties", name), problems)

    if "required" in schema:
        req = schema["required"]
        if not isinstance(req, list) or not all(isinstance(r, str) for r in req):
            bad("required", f"must be a list of property names, got {_show(req)}")
        elif len(set(req)) != len(req):
            bad("required", "lists a property twice")
        elif schema.get("additionalProperties") is False:
            known = schema.get("properties", {})
            for name in req:
                if isinstance(known, Mapping) and name not in known:
                    why = "additionalProperties is false"
                    bad("required", f"{name!r} is required but not in properties ({why})")

    if "additionalProperties" in schema:
        extra = schema["additionalProperties"]
        if not isinstance(extra, bool):
            _check(extra, path + ("additionalProperties",), problems)

    if "items" in schema:
        items = schema["items"]
        if isinstance(items, list):
            bad("items", "must be a single schema (the tuple form is not supported)")
        else:
            _check(items, path + ("items",), problems)

    if "enum" in schema:
        enum = schema["enum"]
        if not isinstance(enum, list) or not enum:
            bad("enum", f"must be a non-empty list, got {_show(enum)}")
        else:
            _check_json_value(enum, "enum", bad)

    if "const" in schema:
        _check_json_value(schema["const"], "const", bad)

    for key in _BOUNDS:
        if key in schema and not _is_number(schema[key]):
            bad(key, f"must be a number, got {_show(schema[key])}")

    for key in _COUNTS:
        if key in schema:
            n = schema[key]
            if not (isinstance(n, int) and not isinstance(n, bool) and n >= 0):
                bad(key, f"must be a non-negative integer, got {_show(n)}")

    for low, high in (("minimum", "maximum"), ("minLength", "maxLength"), ("minItems", "maxItems")):
        lo, hi = schema.get(low), schema.get(high)
        if _is_number(lo) and _is_number(hi) and lo > hi:
            bad(low, f"{lo} is greater than {high} {hi}")

    if "pattern" in schema:
        pattern = schema["pattern"]
        if not isinstance(pattern, str):
            bad("pattern", f"must be a string, got {_show(pattern)}")
        else:
            try:
                re.compile(pattern)
            except re.error as exc:
                bad("pattern", f"invalid regular expression: {exc}")

    if "uniqueItems" in schema and not isinstance(schema["uniqueItems"], bool):
        bad("uniqueItems", f"must be a boolean, got {_show(schema['uniqueItems'])}")

    if "anyOf" in schema:
        alts = schema["anyOf"]
        if not isinstance(alts, list) or not alts:
            bad("anyOf", f"must be a non-empty list of schemas, got {_show(alts)}")
        else:
            for index, sub in enumerate(alts):
                _check(sub, path + ("anyOf", index), problems)

    for key in ("description", "title"):
        if key in schema and not isinstance(schema[key], str):
            bad(key, f"must be a string, got {_show(schema[key])}")

    if "examples" in schema:
        examples = schema["examples"]
        if not isinstance(examples, list):
            bad("examples", f"must be a list, got {_show(examples)}")
        else:
            _check_json_value(examples, "examples", bad)

    if "default" in schema:
        default = schema["default"]
        if _check_json_value(default, "default", bad) and len(problems) == before:
            # Only a well-formed schema can judge its default.
            for violation in validate(default, schema, root="default"):
                bad("default", f"does not match the schema ({violation})")


def _check_json_value(value: Any, key: str, bad: Any) -> bool:
    try:
        check_json(value, key)
    except JsonDataError as exc:
        bad(key, f"not a JSON value ({exc.message})")
        return False
    return True


# --- validating values -----------------------------------------------------------------


def validate(value: Any, schema: Mapping[str, Any], *, root: str = "arguments") -> list[str]:
    """Every violation of ``schema`` by ``value``, each prefixed by its path
    (``refs[3]: must be >= 1``; ``root`` names the value itself).

    ``schema`` should have passed :func:`check_schema`; unknown keywords are ignored.
    """
    found: list[tuple[JsonPath, str]] = []
    _validate(value, schema, (), found)
    return [f"{render_path(path, root)}: {message}" for path, message in found]


def _validate(
    value: Any, schema: Mapping[str, Any], path: JsonPath, out: list[tuple[JsonPath, str]]
) -> None:
    types = schema.get("type")
    if types is not None:
        names = [types] if isinstance(types, str) else list(types)
        if not any(_has_type(value, t) for t in names):
            # Other keywords would only restate the mismatch.
            out.append((path, f"expected {' or '.join(names)}, got {json_type_name(value)}"))
            return

    if "const" in schema and _canon(value) != _canon(schema["const"]):
        out.append((path, f"must be {_show(schema['const'])}"))
    if "enum" in schema:
        options = schema["enum"]
        if _canon(value) not in {_canon(o) for o in options}:
            out.append((path, f"must be one of {', '.join(_show(o) for o in options)}, got {_show(value)}"))

    if _is_number(value):
        _validate_number(value, schema, path, out)
    elif isinstance(value, str):
        _validate_string(value, schema, path, out)
    elif isinstance(value, (list, tuple)):
        _validate_array(value, schema, path, out)
    elif isinstance(value, Mapping):
        _validate_object(value, schema, path, out)

    if "anyOf" in schema:
        _validate_any_of(value, schema["anyOf"], path, out)


def _validate_number(
    value: float, schema: Mapping[str, Any], path: JsonPath, out: list[tuple[JsonPath, str]]
) -> None:
    if "minimum" in schema and value < schema["minimum"]:
        out.append((path, f"must be >= {schema['minimum']}"))
    if "exclusiveMinimum" in schema and value <= schema["exclusiveMinimum"]:
        out.append((path, f"must be > {schema['exclusiveMinimum']}"))
    if "maximum" in schema and value > schema["maximum"]:
        out.append((path, f"must be <= {schema['maximum']}"))
    if "exclusiveMaximum" in schema and value >= schema["exclusiveMaximum"]:
        out.append((path, f"must be < {schema['exclusiveMaximum']}"))


def _validate_string(
    value: str, schema: Mapping[str, Any], path: JsonPath, out: list[tuple[JsonPath, str]]
) -> None:
    # len() counts code points, as JSON Schema does.
    if "minLength" in schema and len(value) < schema["minLength"]:
        out.append((path, f"must be at least {schema['minLength']} characters long (got {len(value)})"))
    if "maxLength" in schema and len(value) > schema["maxLength"]:
        out.append((path, f"must be at most {schema['maxLength']} characters long (got {len(value)})"))
    if "pattern" in schema and re.search(schema["pattern"], value) is None:
        out.append((path, f"must match the pattern {_show(schema['pattern'])}"))


def _validate_array(
    value: Sequence[Any], schema: Mapping[str, Any], path: JsonPath, out: list[tuple[JsonPath, str]]
) -> None:
    if "minItems" in schema and len(value) < schema["minItems"]:
        out.append((path, f"must have at least {schema['minItems']} items (got {len(value)})"))
    if "maxItems" in schema and len(value) > schema["maxItems"]:
        out.append((path, f"must have at most {schema['maxItems']} items (got {len(value)})"))
    if schema.get("uniqueItems") is True:
        first_seen: dict[Any, int] = {}
        for index, item in enumerate(value):
            key = _canon(item)
            if key in first_seen:
                out.append((path + (index,), f"duplicates item [{first_seen[key]}]; items must be unique"))
            else:
                first_seen[key] = index
    items = schema.get("items")
    if isinstance(items, Mapping):
        for index, item in enumerate(value):
            _validate(item, items, path + (index,), out)


def _validate_object(
    value: Mapping[str, Any], schema: Mapping[str, Any], path: JsonPath, out: list[tuple[JsonPath, str]]
) -> None:
    props: Mapping[str, Any] = schema.get("properties") or {}
    for name in schema.get("required") or ():
        if name not in value:
            out.append((path, f"missing required property {name!r}"))
    extra = schema.get("additionalProperties", True)
    for name, item in value.items():
        if name in props:
            _validate(item, props[name], path + (name,), out)
        elif extra is False:
            allowed = f" (allowed: {', '.join(props)})" if props else " (no properties are allowed)"
            out.append((path, f"unexpected property {name!r}{allowed}"))
        elif isinstance(extra, Mapping):
            _validate(item, extra, path + (name,), out)


def _validate_any_of(
    value: Any, alternatives: Sequence[Any], path: JsonPath, out: list[tuple[JsonPath, str]]
) -> None:
    failures: list[list[tuple[JsonPath, str]]] = []
    for alt in alternatives:
        found: list[tuple[JsonPath, str]] = []
        _validate(value, alt, path, found)
        if not found:
            return
        failures.append(found)
    typed = [alt.get("type") for alt in alternatives]
    if all(isinstance(t, str) for t in typed) and not any(_has_type(value, t) for t in typed):
        # The common case ("a string or a list of strings") reads best as one type error.
        names = list(dict.fromkeys(typed))
        out.append((path, f"expected {' or '.join(names)}, got {json_type_name(value)}"))
        return
    parts = []
    for index, found in enumerate(failures, start=1):
        # Paths inside an alternative are shown relative to the value being matched.
        detail = "; ".join(f"{render_path(p[len(path):], 'value')}: {m}" for p, m in found)
        parts.append(f"({index}) {detail}")
    out.append((path, "does not match any allowed alternative: " + " | ".join(parts)))
