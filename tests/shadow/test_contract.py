"""The structured-output contract: schema, texts and every narrowing rule."""

from __future__ import annotations

import math
from typing import Any

import pytest

from shadow_mind_plugin.contract import (
    OUTPUT_SCHEMA,
    STRUCTURED_OUTPUT_DESCRIPTION,
    STRUCTURED_OUTPUT_INSTRUCTION,
    NarrowResult,
    ShadowOutput,
    narrow_output,
)
from shadow_mind_plugin.vocabulary import OutputStatus, Verdict

# --- schema ---------------------------------------------------------------------------------------

_ALLOWED_KEYWORDS = {"type", "properties", "enum", "required", "additionalProperties", "items"}
_TYPES = {"object", "string", "number", "integer", "array", "boolean", "null"}


def _check_subset(schema: Any) -> None:
    """The schema only uses the JSON-Schema subset every provider accepts."""
    assert isinstance(schema, dict)
    assert set(schema) <= _ALLOWED_KEYWORDS, set(schema) - _ALLOWED_KEYWORDS
    assert schema.get("type") in _TYPES
    for sub in schema.get("properties", {}).values():
        _check_subset(sub)
    if "items" in schema:
        _check_subset(schema["items"])
    if "required" in schema:
        assert set(schema["required"]) <= set(schema["properties"])


def _validate(schema: dict[str, Any], value: Any) -> bool:
    kind = schema.get("type")
    checks = {
        "object": lambda v: isinstance(v, dict),
        "string": lambda v: isinstance(v, str),
        "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
        "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
        "array": lambda v: isinstance(v, list),
    }
    if kind and not checks[kind](value):
        return False
    if "enum" in schema and value not in schema["enum"]:
        return False
    if kind == "object":
        props = schema.get("properties", {})
        if schema.get("additionalProperties") is False and set(value) - set(props):
            return False
        if any(key not in value for key in schema.get("required", [])):
            return False
        return all(_validate(props[k], v) for k, v in value.items() if k in props)
    if kind == "array":
        return all(_validate(schema["items"], item) for item in value)
    return True


def test_output_schema_shape() -> None:
    _check_subset(OUTPUT_SCHEMA)
    assert OUTPUT_SCHEMA["required"] == ["status", "content"]
    assert OUTPUT_SCHEMA["additionalProperties"] is False
    assert OUTPUT_SCHEMA["properties"]["status"]["enum"] == ["not_relevant", "silent", "report"]
    assert OUTPUT_SCHEMA["properties"]["verdict"]["enum"] == ["challenge", "gap", "confirm", "uncertain"]
    assert set(OUTPUT_SCHEMA["properties"]["status"]["enum"]) == {s.value for s in OutputStatus}
    assert set(OUTPUT_SCHEMA["properties"]["verdict"]["enum"]) == {v.value for v in Verdict}
    assert OUTPUT_SCHEMA["properties"]["severity"] == {"type": "number"}
    assert OUTPUT_SCHEMA["properties"]["refs"] == {"type": "array", "items": {"type": "integer"}}


def test_schema_accepts_good_values_and_rejects_extra_keys() -> None:
    assert _validate(OUTPUT_SCHEMA, {"status": "silent", "content": ""})
    assert _validate(
        OUTPUT_SCHEMA, {"status": "report", "content": "x", "verdict": "gap", "severity": 0.5, "refs": [1, 2]}
    )
    assert not _validate(OUTPUT_SCHEMA, {"status": "silent", "content": "", "extra": 1})
    assert not _validate(OUTPUT_SCHEMA, {"status": "loud", "content": ""})
    assert not _validate(OUTPUT_SCHEMA, {"status": "silent"})


def test_texts_state_the_rules() -> None:
    for needle in ('"report"', "must not be empty", '"challenge", "gap", "confirm", or "uncertain"', "strictly", "eight", "0 through 1", '"not_relevant" or "silent"', "verdict, severity, and refs"):
        assert needle in STRUCTURED_OUTPUT_DESCRIPTION
    assert "`structured_output`" in STRUCTURED_OUTPUT_INSTRUCTION
    assert "MUST" in STRUCTURED_OUTPUT_INSTRUCTION


# --- accepted values ------------------------------------------------------------------------------


def test_report_is_accepted() -> None:
    result = narrow_output(
        {"status": "report", "content": "Check the test.", "verdict": "challenge", "severity": 1, "refs": [3, 7]},
        frozenset({3, 7, 9}),
    )
    assert result == NarrowResult(
        output=ShadowOutput(
            status=OutputStatus.REPORT, content="Check the test.", verdict=Verdict.CHALLENGE, severity=1.0, refs=(3, 7)
        )
    )
    assert result.ok


def test_report_without_optional_fields() -> None:
    out = narrow_output({"status": "report", "content": "x", "verdict": "confirm"}).output
    assert out is not None
    assert (out.severity, out.refs) == (None, ())


def test_non_report_body_is_normalized_and_flagged() -> None:
    out = narrow_output({"status": "silent", "content": "Nothing to add, because..."}).output
    assert out == ShadowOutput(status=OutputStatus.SILENT, content="", discarded_body="Nothing to add, because...")
    clean = narrow_output({"status": "not_relevant", "content": ""}).output
    assert clean == ShadowOutput(status=OutputStatus.NOT_RELEVANT, content="")


def test_integral_float_refs_count_as_integers() -> None:
    out = narrow_output({"status": "report", "content": "x", "verdict": "gap", "refs": [2.0, 5]}).output
    assert out is not None and out.refs == (2, 5)


# --- violations -----------------------------------------------------------------------------------


def _violations(value: Any, seqs: frozenset[int] | None = None) -> list[str]:
    result = narrow_output(value, seqs)
    assert result.output is None
    return list(result.violations)


@pytest.mark.parametrize("value", [None, "report", 3, [{"status": "report"}], True])
def test_non_object(value: Any) -> None:
    assert _violations(value) == ["structured output must be an object"]


def test_bad_status_and_content() -> None:
    assert _violations({"status": "loud", "content": 3}) == [
        'status must be "not_relevant", "silent", or "report"',
        "content must be a string",
    ]
    assert _violations({"content": ""}) == ['status must be "not_relevant", "silent", or "report"']
    # a bad status does not trigger the report-only-field rule
    assert _violations({"status": "x", "content": "", "verdict": "gap"}) == [
        'status must be "not_relevant", "silent", or "report"'
    ]


@pytest.mark.parametrize("content", ["", "   ", "\n\t ", "\u3000\ufeff"])
def test_blank_report(content: str) -> None:
    assert _violations({"status": "report", "content": content, "verdict": "gap"}) == [
        'a "report" requires non-empty content'
    ]


def test_report_content_not_a_string_is_one_violation() -> None:
    assert _violations({"status": "report", "content": None, "verdict": "gap"}) == ["content must be a string"]


@pytest.mark.parametrize("verdict", [None, "", "CHALLENGE", "refute", 1])
def test_bad_verdict(verdict: Any) -> None:
    value: dict[str, Any] = {"status": "report", "content": "x"}
    if verdict is not None:
        value["verdict"] = verdict
    assert _violations(value) == ['a "report" requires verdict "challenge", "gap", "confirm", or "uncertain"']


@pytest.mark.parametrize("severity", [math.nan, math.inf, -math.inf, -0.1, 1.5, True, False, "0.5", None, 10**400])
def test_bad_severity(severity: Any) -> None:
    assert _violations({"status": "report", "content": "x", "verdict": "gap", "severity": severity}) == [
        "severity must be a finite number from 0 through 1"
    ]


@pytest.mark.parametrize("severity", [0, 0.0, 1, 0.25])
def test_good_severity(severity: Any) -> None:
    assert narrow_output({"status": "report", "content": "x", "verdict": "gap", "severity": severity}).ok


@pytest.mark.parametrize("refs", [None, "1,2", {"0": 1}, 3])
def test_refs_not_an_array(refs: Any) -> None:
    assert _violations({"status": "report", "content": "x", "verdict": "gap", "refs": refs}) == [
        "refs must be an array of rendered seq values"
    ]


def test_more_than_eight_refs() -> None:
    assert _violations({"status": "report", "content": "x", "verdict": "gap", "refs": list(range(1, 10))}) == [
        "refs holds at most 8 entries"
    ]
    assert narrow_output({"status": "report", "content": "x", "verdict": "gap", "refs": list(range(1, 9))}).ok


def test_bad_ref_elements() -> None:
    refs = [0, -3, 1.5, "4", True, None, 2**53, math.nan, 5]
    assert _violations({"status": "report", "content": "x", "verdict": "gap", "refs": refs[:8]}) == [
        f"refs[{i}] must be a positive integer" for i in range(8)
    ]


def test_shipped_non_ascending_case() -> None:
    value = {"status": "report", "content": "x", "verdict": "challenge", "refs": [15675, 15]}
    assert _violations(value) == [
        "refs must be strictly ascending (refs[1] 15 is not greater than the previous anchor 15675)"
    ]
    assert _violations(value, frozenset({15675})) == [
        "refs must be strictly ascending (refs[1] 15 is not greater than the previous anchor 15675)",
        "refs[1] 15 is not a rendered trajectory seq",
    ]


def test_duplicates_are_not_ascending() -> None:
    assert _violations({"status": "report", "content": "x", "verdict": "gap", "refs": [4, 4]}) == [
        "refs must be strictly ascending (refs[1] 4 is not greater than the previous anchor 4)"
    ]


def test_invalid_element_does_not_reset_previous() -> None:
    assert _violations({"status": "report", "content": "x", "verdict": "gap", "refs": [9, "x", 3]}) == [
        "refs[1] must be a positive integer",
        "refs must be strictly ascending (refs[2] 3 is not greater than the previous anchor 9)",
    ]


def test_refs_rendered_only_checked_when_seqs_given() -> None:
    value = {"status": "report", "content": "x", "verdict": "gap", "refs": [2, 40]}
    assert narrow_output(value).ok
    assert narrow_output(value, frozenset({2, 40})).ok
    assert _violations(value, frozenset({2})) == ["refs[1] 40 is not a rendered trajectory seq"]
    assert _violations(value, frozenset()) == [
        "refs[0] 2 is not a rendered trajectory seq",
        "refs[1] 40 is not a rendered trajectory seq",
    ]


@pytest.mark.parametrize("status", ["silent", "not_relevant"])
def test_report_only_fields_on_non_report(status: str) -> None:
    value = {"status": status, "content": "", "verdict": "gap", "severity": 0.3, "refs": []}
    assert _violations(value) == [
        'verdict is only allowed with status "report"',
        'severity is only allowed with status "report"',
        'refs is only allowed with status "report"',
    ]
    assert _violations({"status": status, "content": "", "refs": None}) == ['refs is only allowed with status "report"']


def test_all_violations_are_collected() -> None:
    assert _violations(
        {"status": "report", "content": " ", "verdict": "maybe", "severity": 2, "refs": [3, 1]}, frozenset({3})
    ) == [
        'a "report" requires non-empty content',
        'a "report" requires verdict "challenge", "gap", "confirm", or "uncertain"',
        "severity must be a finite number from 0 through 1",
        "refs must be strictly ascending (refs[1] 1 is not greater than the previous anchor 3)",
        "refs[1] 1 is not a rendered trajectory seq",
    ]


def test_unknown_keys_are_rejected_by_the_plugin_itself() -> None:
    # the plugin must not rely on the host enforcing additionalProperties: false
    assert _violations({"status": "silent", "content": "", "mood": "calm"}) == [
        "unknown field 'mood' (allowed: status, content, verdict, severity, refs)"
    ]
    assert _violations({"status": "report", "content": "x", "verdict": "gap", "zz": 1, "aa": 2}) == [
        "unknown field 'aa' (allowed: status, content, verdict, severity, refs)",
        "unknown field 'zz' (allowed: status, content, verdict, severity, refs)",
    ]
    # a key that is not a string (a host handing over a non-JSON mapping) is unknown too
    assert _violations({"status": "silent", "content": "", 3: True}) == [
        "unknown field 3 (allowed: status, content, verdict, severity, refs)"
    ]
