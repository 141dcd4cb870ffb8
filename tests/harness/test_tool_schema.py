"""The JSON-Schema subset: schema checks up front, every violation collected."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.tools.builtin import builtin_tools
from harness.tools.schema import (
    SUPPORTED_KEYWORDS,
    SchemaError,
    check_object_schema,
    check_schema,
    validate,
)

# --- validate: types ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("type_", "good", "bad", "got"),
    [
        ("string", "x", 1, "integer"),
        ("integer", 3, 3.0, "number"),
        ("integer", -7, True, "boolean"),
        ("number", 2.5, False, "boolean"),
        ("number", 4, "4", "string"),
        ("boolean", False, 0, "integer"),
        ("null", None, "null", "string"),
        ("array", [1, "a"], {"a": 1}, "object"),
        ("object", {"a": 1}, [], "array"),
    ],
)
def test_type_keyword(type_: str, good: Any, bad: Any, got: str) -> None:
    assert validate(good, {"type": type_}) == []
    assert validate(bad, {"type": type_}) == [f"arguments: expected {type_}, got {got}"]


def test_integers_are_numbers_but_integral_floats_are_not_integers() -> None:
    assert validate(3, {"type": "number"}) == []
    assert validate(3.0, {"type": "integer"}) == ["arguments: expected integer, got number"]


def test_type_list_accepts_any_listed_type() -> None:
    schema = {"type": ["string", "null"]}
    assert validate(None, schema) == []
    assert validate("a", schema) == []
    assert validate(1, schema) == ["arguments: expected string or null, got integer"]


def test_no_type_accepts_anything() -> None:
    for value in (None, 1, "x", [1], {"a": [None]}):
        assert validate(value, {"description": "anything"}) == []


# --- validate: objects --------------------------------------------------------------------


def test_object_keywords_report_every_violation_with_paths() -> None:
    schema = {
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "limit": {"type": "integer", "minimum": 1},
            "mode": {"enum": ["fast", "slow"]},
        },
        "required": ["path", "mode"],
        "additionalProperties": False,
    }
    errors = validate({"limit": "ten", "foo": 1, "bar": 2}, schema)
    assert errors == [
        "arguments: missing required property 'path'",
        "arguments: missing required property 'mode'",
        "limit: expected integer, got string",
        "arguments: unexpected property 'foo' (allowed: path, limit, mode)",
        "arguments: unexpected property 'bar' (allowed: path, limit, mode)",
    ]
    assert validate({"path": "a", "mode": "fast", "limit": 2}, schema) == []


def test_additional_properties_schema_and_default_allow() -> None:
    typed = {"type": "object", "additionalProperties": {"type": "integer"}}
    assert validate({"a": 1, "b": "x"}, typed) == ["b: expected integer, got string"]
    assert validate({"anything": [1]}, {"type": "object"}) == []
    closed = {"type": "object", "additionalProperties": False}
    assert validate({"x": 1}, closed) == ["arguments: unexpected property 'x' (no properties are allowed)"]


def test_nested_paths_render_dots_and_indexes() -> None:
    schema = {
        "type": "object",
        "properties": {
            "path": {
                "type": "object",
                "properties": {
                    "to": {
                        "type": "array",
                        "items": {"type": "object", "properties": {"field": {"type": "string"}}},
                    }
                },
            },
            "odd key": {"type": "integer"},
        },
    }
    value = {"path": {"to": [{"field": "a"}, {}, {"field": 5}]}, "odd key": "x"}
    assert validate(value, schema) == [
        "path.to[2].field: expected string, got integer",
        'arguments["odd key"]: expected integer, got string',
    ]


def test_root_label_is_configurable_and_prefixes_root_arrays() -> None:
    schema = {"type": "array", "items": {"type": "integer"}}
    assert validate([1, "x"], schema, root="output") == ["output[1]: expected integer, got string"]


# --- validate: arrays ----------------------------------------------------------------------


def test_items_bounds_collect_all() -> None:
    schema = {
        "type": "object",
        "properties": {"refs": {"type": "array", "items": {"type": "integer", "minimum": 1}, "maxItems": 4}},
    }
    errors = validate({"refs": [1, 0, 2, -5, "x"]}, schema)
    assert errors == [
        "refs: must have at most 4 items (got 5)",
        "refs[1]: must be >= 1",
        "refs[3]: must be >= 1",
        "refs[4]: expected integer, got string",
    ]


def test_min_items_and_unique_items() -> None:
    schema = {"type": "array", "minItems": 2, "uniqueItems": True}
    assert validate([1], schema) == ["arguments: must have at least 2 items (got 1)"]
    assert validate([1, 1.0, "1", True, {"a": [1]}, {"a": [1]}], schema) == [
        "arguments[1]: duplicates item [0]; items must be unique",
        "arguments[5]: duplicates item [4]; items must be unique",
    ]
    assert validate([1, True, "1", None], schema) == []


def test_array_without_items_accepts_any_json_items() -> None:
    assert validate([1, "a", None, {"b": [2.5]}, [True]], {"type": "array"}) == []


# --- validate: scalars ---------------------------------------------------------------------


def test_numeric_bounds() -> None:
    schema = {"type": "number", "minimum": 0, "maximum": 10}
    assert validate(-1, schema) == ["arguments: must be >= 0"]
    assert validate(10.5, schema) == ["arguments: must be <= 10"]
    assert validate(0, schema) == [] and validate(10, schema) == []
    exclusive = {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1.5}
    assert validate(0, exclusive) == ["arguments: must be > 0"]
    assert validate(1.5, exclusive) == ["arguments: must be < 1.5"]
    assert validate(0.1, exclusive) == []


def test_bounds_do_not_apply_to_other_types() -> None:
    # No type given: a string is not compared with a minimum.
    assert validate("5", {"minimum": 10}) == []
    assert validate(5, {"minLength": 10, "pattern": "x", "minItems": 3}) == []


def test_string_keywords() -> None:
    schema = {"type": "string", "minLength": 2, "maxLength": 4, "pattern": "^[a-z]+$"}
    assert validate("ab", schema) == []
    assert validate("a", schema) == ["arguments: must be at least 2 characters long (got 1)"]
    assert validate("ABCDE", schema) == [
        "arguments: must be at most 4 characters long (got 5)",
        'arguments: must match the pattern "^[a-z]+$"',
    ]
    # Lengths count code points, and pattern is searched (not anchored).
    assert validate("é😀", {"type": "string", "maxLength": 2}) == []
    assert validate("xx-yy", {"type": "string", "pattern": "-"}) == []


def test_enum_and_const_use_json_equality() -> None:
    assert validate(1.0, {"enum": [1, "a"]}) == []
    assert validate(True, {"enum": [1, "a"]}) == ['arguments: must be one of 1, "a", got true']
    assert validate(1, {"const": True}) == ["arguments: must be true"]
    assert validate({"a": [1]}, {"const": {"a": [1.0]}}) == []
    assert validate(None, {"const": None}) == []


def test_any_of() -> None:
    schema = {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]}
    assert validate("a", schema) == []
    assert validate(["a", "b"], schema) == []
    assert validate(3, schema) == ["arguments: expected string or array, got integer"]
    errors = validate(["a", 2], schema)
    assert errors == [
        "arguments: does not match any allowed alternative: (1) value: expected string, got array"
        " | (2) value[1]: expected string, got integer"
    ]


def test_annotations_never_fail() -> None:
    schema = {"type": "integer", "description": "d", "title": "t", "default": 1, "examples": [1, 2]}
    assert validate(99, schema) == []


# --- check_schema ---------------------------------------------------------------------------


def test_supported_keywords_are_exactly_the_documented_subset() -> None:
    assert SUPPORTED_KEYWORDS == {
        "type", "properties", "required", "additionalProperties", "items", "enum", "const",
        "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength",
        "pattern", "minItems", "maxItems", "uniqueItems", "anyOf", "description", "title",
        "default", "examples",
    }  # fmt: skip


def test_unsupported_keyword_is_rejected_with_where_and_path() -> None:
    schema = {"type": "object", "properties": {"mode": {"oneOf": [{"type": "string"}]}}}
    with pytest.raises(ValueError) as info:
        check_schema(schema, "tool 'x' parameters")
    message = str(info.value)
    assert message.startswith("tool 'x' parameters:")
    assert "$.properties.mode" in message and "'oneOf'" in message


@pytest.mark.parametrize("keyword", ["$ref", "allOf", "oneOf", "not", "format", "patternProperties", "if"])
def test_each_unenforced_keyword_is_rejected(keyword: str) -> None:
    with pytest.raises(SchemaError, match=f"unsupported keyword '{__import__('re').escape(keyword)}'"):
        check_schema({keyword: {}}, "w")


@pytest.mark.parametrize(
    ("schema", "fragment"),
    [
        ({"type": "str"}, '$.type: unknown type "str"'),
        ({"type": []}, "$.type: must be a type name or a non-empty list"),
        ({"type": ["string", "string"]}, "$.type: lists a type twice"),
        ({"properties": []}, "$.properties: must be an object"),
        ({"properties": {"a": "string"}}, "$.properties.a: a schema must be an object, got string"),
        ({"required": "a"}, "$.required: must be a list of property names"),
        ({"required": ["a", "a"]}, "$.required: lists a property twice"),
        ({"additionalProperties": "no"}, "$.additionalProperties: a schema must be an object"),
        ({"items": [{"type": "string"}]}, "$.items: must be a single schema"),
        ({"enum": []}, "$.enum: must be a non-empty list"),
        ({"enum": [float("nan")]}, "$.enum: not a JSON value"),
        ({"minimum": "1"}, '$.minimum: must be a number, got "1"'),
        ({"maximum": True}, "$.maximum: must be a number, got true"),
        ({"minLength": -1}, "$.minLength: must be a non-negative integer"),
        ({"maxItems": 1.5}, "$.maxItems: must be a non-negative integer"),
        ({"minLength": 3, "maxLength": 2}, "$.minLength: 3 is greater than maxLength 2"),
        ({"pattern": "("}, "$.pattern: invalid regular expression"),
        ({"uniqueItems": "yes"}, "$.uniqueItems: must be a boolean"),
        ({"anyOf": {}}, "$.anyOf: must be a non-empty list of schemas"),
        ({"anyOf": [{"type": "nope"}]}, '$.anyOf[0].type: unknown type "nope"'),
        ({"description": 3}, "$.description: must be a string"),
        ({"examples": "x"}, "$.examples: must be a list"),
        ({"type": "integer", "default": "x"}, "$.default: does not match the schema"),
        (
            {"type": "object", "properties": {}, "required": ["a"], "additionalProperties": False},
            "$.required: 'a' is required but not in properties",
        ),
        ("not a schema", "$: a schema must be an object, got string"),
    ],
)
def test_malformed_schemas_are_rejected(schema: Any, fragment: str) -> None:
    with pytest.raises(ValueError) as info:
        check_schema(schema, "here")
    assert fragment in str(info.value)
    assert str(info.value).startswith("here: ")


def test_check_schema_collects_every_problem() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "int", "minimum": "0"}, "b": {"$ref": "#"}}}
    with pytest.raises(SchemaError) as info:
        check_schema(schema, "w")
    assert info.value.problems == (
        '$.properties.a.type: unknown type "int" (expected one of array, boolean, integer, null, '
        "number, object, string)",
        '$.properties.a.minimum: must be a number, got "0"',
        "$.properties.b: unsupported keyword '$ref'",
    )


def test_check_object_schema_requires_top_level_object() -> None:
    check_object_schema({"type": "object", "properties": {}}, "w")
    for schema in ({"type": "string"}, {"properties": {}}, {"type": ["object", "null"]}):
        with pytest.raises(ValueError, match="top-level type must be \"object\""):
            check_object_schema(schema, "w")


def test_full_schema_with_every_keyword_is_accepted() -> None:
    schema = {
        "type": "object",
        "title": "T",
        "description": "D",
        "properties": {
            "s": {"type": "string", "minLength": 1, "maxLength": 9, "pattern": "^a", "default": "ab"},
            "n": {"type": "number", "minimum": 0, "maximum": 1, "exclusiveMinimum": -1, "exclusiveMaximum": 2},
            "a": {"type": "array", "items": {"type": "integer"}, "minItems": 0, "maxItems": 3},
            "a2": {"type": "array", "uniqueItems": True},
            "e": {"enum": ["x", 1, None], "examples": ["x"]},
            "c": {"const": {"k": [1]}},
            "u": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "o": {"type": "object", "additionalProperties": {"type": "boolean"}},
        },
        "required": ["s"],
        "additionalProperties": False,
    }
    check_object_schema(schema, "w")
    good = {"s": "ab", "n": 0.5, "a": [1, 2], "e": None, "c": {"k": [1]}, "u": None, "o": {"x": True}}
    assert validate(good, schema) == []


# --- built-in tool schemas --------------------------------------------------------------------


@pytest.mark.parametrize("tool", builtin_tools(), ids=lambda t: t.name)
def test_builtin_parameter_schemas_are_strict_and_documented(tool: Any) -> None:
    check_object_schema(tool.parameters, f"tool {tool.name!r} parameters")
    assert tool.parameters["additionalProperties"] is False
    for name, prop in tool.parameters["properties"].items():
        assert prop.get("description"), f"{tool.name}.{name} has no description"
    assert validate({"nope": 1}, tool.parameters)  # unknown arguments are refused


# --- properties --------------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=5), kids, max_size=4),
    max_leaves=20,
)


@given(json_values)
def test_validate_never_raises_and_always_prefixes_paths(value: Any) -> None:
    for tool in builtin_tools():
        for violation in validate(value, tool.parameters):
            assert isinstance(violation, str) and ": " in violation


@given(st.lists(json_values, max_size=6))
def test_unique_items_agrees_with_json_equality(items: list[Any]) -> None:
    import json

    errors = validate(items, {"type": "array", "uniqueItems": True})
    # Canonical JSON (floats that are integers written as ints) decides duplicates independently.
    def canon(v: Any) -> Any:
        if isinstance(v, float) and v.is_integer():
            return int(v)
        if isinstance(v, list):
            return [canon(x) for x in v]
        if isinstance(v, dict):
            return {k: canon(x) for k, x in v.items()}
        return v

    distinct = {json.dumps(canon(v), sort_keys=True) for v in items}
    assert (errors == []) == (len(distinct) == len(items))
