"""Safe error summaries for status, journals and the browser (§17).

Diagnostics must never leak credentials, absolute paths or stack traces. An
error becomes ``{name, message, code?, causes?}`` with every string sanitized
and bounded.
"""

from __future__ import annotations

import re
import math
from typing import Any, Final

import attrs

from ..utf16 import u16slice
from ..vocabulary import ReasonCode, Stage

MAX_MESSAGE_UNITS: Final = 500
MAX_AGGREGATE_CAUSES: Final = 8
CREDENTIAL: Final = "[credential]"
ABSOLUTE_PATH: Final = "[absolute-path]"

# JS regex semantics (§27): \s is the ECMAScript white-space set (Python's
# differs: it adds \x1c-\x1f and lacks \ufeff), \b is ASCII-only, so the
# English parts compile with re.ASCII and spell \s out.
_WS = "\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_S = f"[{_WS}]"

_SECRET_NAME = r"\b(?:api[_-]?key|authorization|token|secret)\b"
_IA = re.IGNORECASE | re.ASCII

_RULES: Final[tuple[tuple[re.Pattern[str], str, bool], ...]] = (
    # (pattern, replacement, case-insensitive: needs the JS fold)
    (re.compile(rf"(?:\bBearer{_S}+|\bsk-)[A-Za-z0-9._~+/=-]{{8,}}", _IA), CREDENTIAL, True),
    (re.compile(rf"{_SECRET_NAME}{_S}*[:=]{_S}*(?:\"[^\"]*\"|'[^']*')", _IA), CREDENTIAL, True),
    (re.compile(rf"{_SECRET_NAME}{_S}*[:=]{_S}*[^{_WS},;]+", _IA), CREDENTIAL, True),
    (re.compile(r"([\"'])[A-Za-z]:[\\/][\s\S]*?\1", re.ASCII), ABSOLUTE_PATH, False),
    (re.compile(rf"\b[A-Za-z]:[\\/][^{_WS}\"'<>|]*", re.ASCII), ABSOLUTE_PATH, False),
    # The reference spells this (["'])\/(?:[^\r\n"']+\/)*[^\r\n"']*\1; its body
    # accepts exactly the strings of [^\r\n"'], so this form matches the same
    # spans without the nested-quantifier blow-up on an unclosed quote.
    (re.compile(r"([\"'])/[^\r\n\"']*\1"), ABSOLUTE_PATH, False),
    (re.compile(rf"(^|[{_WS}(\"'])/(?:[^{_WS}/\"'<>]+/)+[^{_WS}\"'<>]*", re.ASCII), rf"\1{ABSOLUTE_PATH}", False),
)

# Under the JS ``iu`` flags, U+017F (long s) folds to "s" and U+212A (Kelvin
# sign) to "k", so they match those letters and count as word characters for
# \b. Matching on a 1:1 folded copy reproduces that; replacements splice the
# original text, so unmatched characters survive untouched.
_JS_FOLD: Final = {0x17F: "s", 0x212A: "k"}


def _sub(pattern: re.Pattern[str], repl: str, text: str, fold: bool) -> str:
    if not fold or text.isascii():
        return pattern.sub(repl, text)
    folded = text.translate(_JS_FOLD)
    if folded == text:
        return pattern.sub(repl, text)
    out: list[str] = []
    last = 0
    for match in pattern.finditer(folded):
        out.append(text[last : match.start()])
        out.append(match.expand(repl))
        last = match.end()
    out.append(text[last:])
    return "".join(out)


def sanitize(message: str) -> str:
    """Redact credentials and absolute paths (7 rules, in order), then keep at
    most 500 UTF-16 units."""
    for pattern, repl, fold in _RULES:
        message = _sub(pattern, repl, message, fold)
    return u16slice(message, 0, MAX_MESSAGE_UNITS)


def _js_string(value: object) -> str:
    """``String(value)`` for the values errors carry (numbers print like JS)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        if value.is_integer() and abs(value) < 1e21:
            return str(int(value))
    return str(value)


def _message(exc: BaseException) -> str:
    if isinstance(exc, BaseExceptionGroup):
        return exc.message  # str() would append "(n sub-exceptions)"
    return str(exc)


def _summarize(error: object, seen: set[int]) -> dict[str, Any]:
    if not isinstance(error, BaseException):
        return {"name": "NonError", "message": sanitize(_js_string(error))}
    if id(error) in seen:
        return {"name": "CircularError", "message": "Circular error cause omitted"}
    seen.add(id(error))
    summary: dict[str, Any] = {
        "name": sanitize(type(error).__name__),
        "message": sanitize(_message(error)),
    }
    code = getattr(error, "code", None)
    if isinstance(code, (str, int, float)) and not isinstance(code, bool):
        summary["code"] = sanitize(_js_string(code))
    if isinstance(error, BaseExceptionGroup):
        causes = [_summarize(c, seen) for c in error.exceptions[:MAX_AGGREGATE_CAUSES]]
    elif error.__cause__ is not None:
        causes = [_summarize(error.__cause__, seen)]
    else:
        causes = []
    if causes:
        summary["causes"] = causes
    return summary


def safe_error(error: object) -> dict[str, Any]:
    """A JSON-safe ``{name, message, code?, causes?}`` summary of anything
    raised. Groups list their first 8 members, other errors their explicit
    ``__cause__``; a cause seen before becomes ``CircularError``; stacks are
    never included."""
    # ``seen`` spans the whole walk, like the reference: a shared cause is
    # summarized once and reported as circular afterwards.
    return _summarize(error, set())


_STAGE_CODES: Final = {
    Stage.PREPARE: ReasonCode.TRAJECTORY_BUILD_FAILED,
    Stage.START: ReasonCode.SUBAGENT_START_FAILED,
    Stage.RUN: ReasonCode.SUBAGENT_RESULT_FAILED,
    Stage.DISPOSE: ReasonCode.SUBAGENT_DISPOSE_FAILED,
    Stage.VALIDATE: ReasonCode.INVALID_STRUCTURED_OUTPUT,
    Stage.RELAY: ReasonCode.REPORT_DELIVERY_FAILED,
}


def failure_code_for_stage(stage: Stage | str) -> ReasonCode:
    """The failure code owned by a lifecycle stage."""
    return _STAGE_CODES[Stage(stage)]


@attrs.frozen(kw_only=True)
class Failure:
    """A failure pinned to the stage that owned the operation."""

    stage: Stage
    reason_code: ReasonCode
    error: dict[str, Any]


def failure_at(stage: Stage | str, error: object) -> Failure:
    """``failureAt``: stage → reason code, plus the safe error."""
    st = Stage(stage)
    return Failure(stage=st, reason_code=failure_code_for_stage(st), error=safe_error(error))

