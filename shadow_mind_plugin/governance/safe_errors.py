"""Safe error summaries for status, journals and the browser (docs/shadow-mind.md §7 "Diagnostics").

Diagnostics must never leak credentials, absolute paths or stack traces. An
error becomes ``{name, message, code?, causes?}`` with every string sanitized
and bounded. What counts as a secret or a path is the contract's
(``hookspecs.scrub``), shared with the host; only the error shape and the
UTF-16 bound are the plugin's.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from typing import Any, Final

import attrs

from hookspecs.scrub import scrub_text

from ..utf16 import u16slice
from ..vocabulary import ReasonCode, Stage
from .holdout import redact

MAX_MESSAGE_UNITS: Final = 500
MAX_AGGREGATE_CAUSES: Final = 8
#: a card's or status line's cause (a whole message stays in the run's error)
MAX_CAUSE_CHARS: Final = 200
_WHITESPACE: Final = re.compile(r"\s+")
# C0/C1 controls, DEL, bidi and other format characters that survive whitespace folding
_UNPRINTABLE: Final = re.compile("[\x00-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff]")


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


def one_line_cause(error: Mapping[str, Any] | None, *, holdout_keys: Iterable[str] = ()) -> str | None:
    """What a card or a status line says after ``failed [CODE]``: the error's
    message (a group's members after a colon), scrubbed, on one line (each run
    of whitespace one space, other control and format characters escaped so a
    terminal shows them, never obeys them), at most :data:`MAX_CAUSE_CHARS`
    characters. None when there is nothing to say.

    ``holdout_keys`` are redacted after folding, which could otherwise join a
    literal that a line break had split."""
    if not error:
        return None
    text = _text_of(error)
    members = [_text_of(c) for c in error.get("causes") or () if isinstance(c, Mapping)]
    if any(members):
        text = f"{text}: " + "; ".join(m for m in members if m)
    text = _UNPRINTABLE.sub(_escape, _WHITESPACE.sub(" ", scrub_text(text, limit=None))).strip()
    text = redact(text, holdout_keys)
    if not text:
        return None
    if len(text) > MAX_CAUSE_CHARS:
        text = text[: MAX_CAUSE_CHARS - 1] + "…"
    return text


def _text_of(error: Mapping[str, Any]) -> str:
    message = error.get("message")
    return message if isinstance(message, str) and message.strip() else str(error.get("name") or "")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


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

