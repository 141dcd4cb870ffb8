"""Safe error summaries for status, journals and the browser (§17).

Diagnostics must never leak credentials, absolute paths or stack traces. An
error becomes ``{name, message, code?, causes?}`` with every string sanitized
and bounded. What counts as a secret or a path is the contract's
(``hookspecs.scrub``), shared with the host; only the error shape and the
UTF-16 bound are the plugin's.
"""

from __future__ import annotations

import math
from typing import Any, Final

import attrs

from hookspecs.scrub import scrub_text

from ..utf16 import u16slice
from ..vocabulary import ReasonCode, Stage

MAX_MESSAGE_UNITS: Final = 500
MAX_AGGREGATE_CAUSES: Final = 8


def sanitize(message: str) -> str:
    """Redact credentials and absolute paths with the contract's rules
    (:func:`hookspecs.scrub.scrub_text`), then keep at most 500 UTF-16 units
    (the reference system's bound: no ellipsis, never half a surrogate pair)."""
    return u16slice(scrub_text(message, limit=None), 0, MAX_MESSAGE_UNITS)


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

