"""JSON Schema for a settings class, so forms can render and pre-validate fields.

Only what settings schemas use is supported (JSON scalars, optionals, lists,
homogeneous tuples, ``Literal``, string-keyed dicts, nested attrs classes); an
unsupported annotation raises ``TypeError`` so a plugin learns at registration,
not when a form breaks. Properties are named by field key (an explicit alias,
else the attribute name). A field declared with ``hookspecs.values.setting``
gets its description and bounds from that declaration; a plain attrs field,
from its metadata and its stock validators.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs
import cattrs
from attrs import validators as v

from hookspecs.values.setting_fields import setting_of
from hookspecs.values.settings import settings_key

from .fields import default_of

_SCALARS: dict[Any, str] = {bool: "boolean", int: "integer", float: "number", str: "string", type(None): "null"}
_JSON_TYPE_OF_VALUE: dict[type, str] = {bool: "boolean", int: "integer", float: "number", str: "string"}


def schema_for_class(cls: type, converter: cattrs.Converter, *, title: str = "", description: str = "") -> dict[str, Any]:
    """The JSON Schema of an attrs settings class (defaults unstructured by ``converter``)."""
    out = _object_schema(cls, converter)
    if title:
        out["title"] = title
    if description:
        out["description"] = description
    return out


def _object_schema(cls: type, converter: cattrs.Converter) -> dict[str, Any]:
    properties: dict[str, Any] = {}
    for field in attrs.fields(attrs.resolve_types(cls)):  # nested classes arrive unresolved
        key = settings_key(field)
        try:
            prop = _type_schema(field.type, converter)
        except TypeError as exc:
            raise TypeError(f"{key}: {exc}") from None
        described = setting_of(field)
        if described is not None:  # the field's one description
            prop.update(described.json_keywords())
        else:  # a plain attrs field: what its stock validators and metadata say
            prop.update(_validator_keywords(field.validator, is_array=prop.get("type") == "array"))
            description = field.metadata.get("description")
            if description:
                prop["description"] = str(description)
        default = default_of(field)  # a factory that needs ``self`` has no standalone default to show
        if default is not attrs.NOTHING:
            prop["default"] = converter.unstructure(default)
        properties[key] = prop
    return {"type": "object", "properties": properties, "additionalProperties": False}


def _type_schema(tp: Any, converter: cattrs.Converter) -> dict[str, Any]:
    if tp is Any or tp is object:
        return {}
    if tp in _SCALARS:
        return {"type": _SCALARS[tp]}
    if isinstance(tp, type) and attrs.has(tp):
        return _object_schema(tp, converter)
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin is typing.Literal:
        return _literal_schema(args)
    if origin is typing.Union or origin is types.UnionType:
        return _union_schema([_type_schema(arg, converter) for arg in args])
    if origin in (list, tuple, Sequence):
        return _array_schema(origin, args, converter)
    if origin in (dict, Mapping):
        key, value = args if args else (str, Any)
        if key is not str:
            raise TypeError(f"dict keys must be str, not {key!r}")
        items = _type_schema(value, converter)
        return {"type": "object", "additionalProperties": items} if items else {"type": "object"}
    raise TypeError(f"unsupported settings type {tp!r}")


def _literal_schema(options: tuple[Any, ...]) -> dict[str, Any]:
    out: dict[str, Any] = {"enum": list(options)}
    kinds = {_JSON_TYPE_OF_VALUE.get(type(option)) for option in options}
    if len(kinds) == 1 and None not in kinds:
        out["type"] = kinds.pop()
    return out


def _union_schema(members: list[dict[str, Any]]) -> dict[str, Any]:
    if any(not member for member in members):
        return {}  # ``Any`` absorbs the union
    # Plain ``{"type": t}`` members read better as one ``type`` list.
    if all(set(member) == {"type"} and isinstance(member["type"], str) for member in members):
        return {"type": [member["type"] for member in members]}
    return {"anyOf": members}


def _array_schema(origin: Any, args: tuple[Any, ...], converter: cattrs.Converter) -> dict[str, Any]:
    if origin is tuple and args and not (len(args) == 2 and args[1] is Ellipsis):
        items = [_type_schema(arg, converter) for arg in args]
        return {"type": "array", "prefixItems": items, "minItems": len(items), "maxItems": len(items)}
    item = _type_schema(args[0], converter) if args else {}
    return {"type": "array", "items": item} if item else {"type": "array"}


# --- validators -> keywords -------------------------------------------------------------

_NUMBER_KEYWORDS = {">=": "minimum", ">": "exclusiveMinimum", "<=": "maximum", "<": "exclusiveMaximum"}
#: attrs' ``optional()`` wrapper class (private, so found by example); typed Any
#: because the stubs describe validators only as callables
_OPTIONAL_VALIDATOR: Any = type(v.optional(v.instance_of(int)))


def _validator_keywords(validator: Callable[..., Any] | None, *, is_array: bool) -> dict[str, Any]:
    """Bounds from the stock attrs validators; custom ones are simply not described."""
    out: dict[str, Any] = {}
    for item in _flatten(validator):
        name = type(item).__name__
        if name == "_NumberValidator" and item.compare_op in _NUMBER_KEYWORDS:
            out[_NUMBER_KEYWORDS[item.compare_op]] = item.bound
        elif name == "_MinLengthValidator":
            out["minItems" if is_array else "minLength"] = item.min_length
        elif name == "_MaxLengthValidator":
            out["maxItems" if is_array else "maxLength"] = item.max_length
        elif name == "_MatchesReValidator":
            out["pattern"] = item.pattern.pattern
        elif name == "_InValidator":
            options = item._original_options
            if isinstance(options, (list, tuple, set, frozenset)):
                out["enum"] = list(options)
    return out


def _flatten(validator: Any) -> list[Any]:
    if validator is None:
        return []
    inner = getattr(validator, "_validators", None)  # attrs' and_() / list of validators
    if isinstance(inner, (list, tuple)):
        return [leaf for item in inner for leaf in _flatten(item)]
    if isinstance(validator, _OPTIONAL_VALIDATOR):
        return _flatten(validator.validator)
    return [validator]
