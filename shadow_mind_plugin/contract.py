"""The Shadow's structured-output contract: schema, tool text and narrowing.

The JSON Schema cannot express the cross-field rules (verdict required on a
report, strictly ascending rendered refs, severity range, report-only fields),
so :func:`narrow_output` enforces them, and it checks every field itself
(unknown keys included) so the contract holds on any host. The child's ``structured_output`` tool
runs it (as the tool's ``check_arguments``, beside the schema check) before
capture, so every violation reaches the model as invalid arguments in one
result and it can retry in the same turn; the runtime runs it again as a backstop.
The violation texts are a contract: tests and users read them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from typing import Any, Final

import attrs

from .utf16 import JS_SPACE
from .vocabulary import STRUCTURED_OUTPUT_TOOL, OutputStatus, Verdict

MAX_REFS: Final = 8
_MAX_SAFE_INTEGER: Final = 2**53 - 1

OUTPUT_SCHEMA: Final[dict[str, Any]] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "status": {"type": "string", "enum": ["not_relevant", "silent", "report"]},
        "content": {"type": "string"},
        "verdict": {"type": "string", "enum": ["challenge", "gap", "confirm", "uncertain"]},
        "severity": {"type": "number"},
        "refs": {"type": "array", "items": {"type": "integer"}},
    },
    "required": ["status", "content"],
}

STRUCTURED_OUTPUT_DESCRIPTION: Final = (
    "Submit your final structured result. Call this once, when your answer is finished; "
    "the arguments must follow this tool's parameter schema exactly. "
    'With status "report": content must not be empty, verdict must be "challenge", "gap", '
    '"confirm", or "uncertain", refs must list at most eight rendered seq values in strictly '
    "ascending order, and severity is optional and must be a finite number from 0 through 1. "
    'With status "not_relevant" or "silent": leave out verdict, severity, and refs.'
)

STRUCTURED_OUTPUT_INSTRUCTION: Final = (
    f"You MUST deliver your final answer by calling the `{STRUCTURED_OUTPUT_TOOL}` tool with "
    "arguments that match its parameter schema exactly. A plain text answer does not count: "
    "only that tool call is taken as your result, so finish by making it."
)

#: What the tool returns once a value is staged.
STRUCTURED_OUTPUT_RECORDED: Final = "Structured output recorded."

_STATUSES: Final = frozenset(s.value for s in OutputStatus)
_VERDICTS: Final = frozenset(v.value for v in Verdict)
_REPORT_ONLY: Final = ("verdict", "severity", "refs")
_FIELDS: Final = tuple(OUTPUT_SCHEMA["properties"])
_MAX_UNKNOWN_SHOWN: Final = 8
_MAX_KEY_CHARS: Final = 64


@attrs.frozen(kw_only=True)
class ShadowOutput:
    """An accepted Shadow result.

    A non-report always has ``content == ""``, no verdict/severity and no refs;
    ``discarded_body`` holds the body a non-report carried anyway (tolerated and
    dropped, never relayed) so the runtime can log its length and digest.
    """

    status: OutputStatus
    content: str
    verdict: Verdict | None = None
    severity: float | None = None
    refs: tuple[int, ...] = ()
    discarded_body: str | None = None


@attrs.frozen(kw_only=True)
class NarrowResult:
    """Either ``output`` (no violations) or every violation found."""

    output: ShadowOutput | None
    violations: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return self.output is not None


def narrow_output(value: object, rendered_seqs: AbstractSet[int] | None = None) -> NarrowResult:
    """Apply the cross-field contract, collecting all violations so one retry can
    fix everything. ``rendered_seqs`` None skips the rendered-anchor rule."""
    if not isinstance(value, Mapping):
        return NarrowResult(output=None, violations=("structured output must be an object",))
    status = value.get("status")
    content = value.get("content")
    status_valid = isinstance(status, str) and status in _STATUSES
    violations: list[str] = []
    if not status_valid:
        violations.append('status must be "not_relevant", "silent", or "report"')
    if not isinstance(content, str):
        violations.append("content must be a string")
    _check_known_fields(value, violations)
    refs: tuple[int, ...] = ()
    if status == OutputStatus.REPORT:
        if isinstance(content, str) and _is_blank(content):
            violations.append('a "report" requires non-empty content')
        if not (isinstance(value.get("verdict"), str) and value["verdict"] in _VERDICTS):
            violations.append('a "report" requires verdict "challenge", "gap", "confirm", or "uncertain"')
        if "severity" in value and not _is_unit_number(value["severity"]):
            violations.append("severity must be a finite number from 0 through 1")
        if "refs" in value:
            refs = _check_refs(value["refs"], rendered_seqs, violations)
    elif status_valid:
        # report-only fields on a non-report are a state-machine error; the body is merely dropped
        violations.extend(f'{key} is only allowed with status "report"' for key in _REPORT_ONLY if key in value)
    if violations:
        return NarrowResult(output=None, violations=tuple(violations))
    assert isinstance(content, str) and isinstance(status, str)
    if status == OutputStatus.REPORT:
        severity = value.get("severity")
        return NarrowResult(
            output=ShadowOutput(
                status=OutputStatus.REPORT,
                content=content,
                verdict=Verdict(value["verdict"]),
                severity=None if severity is None else float(severity),
                refs=refs,
            )
        )
    return NarrowResult(
        output=ShadowOutput(status=OutputStatus(status), content="", discarded_body=content or None)
    )


def _check_known_fields(value: Mapping[Any, Any], violations: list[str]) -> None:
    """Unknown keys are violations here too: the plugin must hold on a host that
    does not enforce the schema's ``additionalProperties: false``."""
    unknown = sorted((key for key in value if key not in _FIELDS), key=repr)
    allowed = ", ".join(_FIELDS)
    violations.extend(f"unknown field {_show_key(key)} (allowed: {allowed})" for key in unknown[:_MAX_UNKNOWN_SHOWN])
    if len(unknown) > _MAX_UNKNOWN_SHOWN:
        violations.append(f"{len(unknown) - _MAX_UNKNOWN_SHOWN} more unknown fields")


def _show_key(key: object) -> str:
    # repr escapes control characters; a model-chosen key is bounded
    text = key if isinstance(key, str) else repr(key)
    if len(text) > _MAX_KEY_CHARS:
        text = text[: _MAX_KEY_CHARS - 1] + "…"
    return repr(text) if isinstance(key, str) else text


def _check_refs(raw: object, rendered: AbstractSet[int] | None, violations: list[str]) -> tuple[int, ...]:
    if not isinstance(raw, list | tuple):
        violations.append("refs must be an array of rendered seq values")
        return ()
    if len(raw) > MAX_REFS:
        violations.append(f"refs holds at most {MAX_REFS} entries")
        return ()
    accepted: list[int] = []
    previous = -1
    for index, item in enumerate(raw):
        anchor = _positive_safe_int(item)
        if anchor is None:
            violations.append(f"refs[{index}] must be a positive integer")
            continue
        if anchor <= previous:
            violations.append(
                f"refs must be strictly ascending (refs[{index}] {anchor} is not greater than the previous anchor {previous})"
            )
        if rendered is not None and anchor not in rendered:
            violations.append(f"refs[{index}] {anchor} is not a rendered trajectory seq")
        previous = anchor
        accepted.append(anchor)
    return tuple(accepted)


def _positive_safe_int(item: object) -> int | None:
    """JS ``Number.isSafeInteger(x) && x > 0``; JSON ``3.0`` is the integer 3 there too."""
    if isinstance(item, bool):
        return None
    if isinstance(item, float):
        if not (math.isfinite(item) and item.is_integer()):
            return None
        item = int(item)
    if not isinstance(item, int) or item <= 0 or item > _MAX_SAFE_INTEGER:
        return None
    return item


def _is_unit_number(value: object) -> bool:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    # an int is always finite (and may be too large for math.isfinite)
    return (isinstance(value, int) or math.isfinite(value)) and 0 <= value <= 1


def _is_blank(text: str) -> bool:
    return not text.strip(JS_SPACE)  # JavaScript's whitespace only, or nothing
