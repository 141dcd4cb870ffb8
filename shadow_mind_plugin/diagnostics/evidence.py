"""What a child session's log says about a Shadow run: counts, routes, tool
calls and errors, turn ends and a one-line summary per event.

Never tool arguments, tool output or prompt text; assistant text heads and
error messages (which may quote request text) only with ``show_text``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, Final

from hookspecs.scrub import scrub_text
from hookspecs.values import EventTypes, SessionEvent
from hookspecs.values.messages import ReasoningBlock, TextBlock, ToolCallBlock

from ..governance.telemetry import INVALID_ARGS
from ..prompt import digest
from ..prompt_record import rebuild_body
from .sessions import SessionLogs, iso_ms

#: the error code a host gives a tool call its policy refused (contract: ToolResult.failure)
DENIED: Final = "DENIED"

#: Characters of an assistant text head or a reason text.
TEXT_HEAD: Final = 120


def head(text: str, limit: int = TEXT_HEAD) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def pick(record: Mapping[str, Any], keys: Sequence[str]) -> dict[str, Any]:
    """The ``keys`` of ``record`` that have a value, in ``keys`` order."""
    return {key: record[key] for key in keys if record.get(key) is not None}


def _data(event: Mapping[str, Any]) -> dict[str, Any]:
    data = event.get("data")
    return data if isinstance(data, dict) else {}


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _texts(message: Any) -> list[str]:
    if not isinstance(message, dict) or not isinstance(message.get("content"), list):
        return []
    return [
        block["text"]
        for block in message["content"]
        if isinstance(block, dict) and block.get("type") == TextBlock.TYPE and isinstance(block.get("text"), str)
    ]


def _error_code(data: Mapping[str, Any]) -> Any:
    error = data.get("error")
    return error.get("code") if isinstance(error, dict) else None


def child_evidence(sessions: SessionLogs, session_id: str, *, last_events: int, show_text: bool) -> dict[str, Any]:
    """Everything the child's log shows, with the last ``last_events`` events
    (``assistant/chunk`` left out) summarized."""
    header = sessions.header(session_id) or {}
    events, skipped = sessions.events(session_id)
    counts = Counter(str(event.get("type")) for event in events)
    calls: dict[str, dict[str, Any]] = {}
    routes, turn_ends, stops = [], [], []
    error_codes: Counter[str] = Counter()
    invalid_args: Counter[str] = Counter()
    prompt_chars = None
    reference: dict[str, Any] | None = None
    text_chars = 0
    retries = 0
    for event in events:
        kind = event.get("type")
        data = _data(event)
        if kind == EventTypes.TOOL_CALL:
            call_id = str(data.get("call_id"))
            calls[call_id] = {"seq": event.get("seq"), "name": data.get("name"), "result": "pending"}
        elif kind == EventTypes.TOOL_RESULT:
            call_id = str(data.get("call_id"))
            row = calls.setdefault(call_id, {"seq": event.get("seq"), "name": data.get("name")})
            code = _error_code(data)
            row["result"] = str(code) if code else "ok"
            if code == DENIED:
                # a denial's reason is the host's policy text (e.g. "reviewed without file
                # tools: …"), which a person reading the trace needs to see
                row["reason"] = scrub_text(str(_dict(data.get("error")).get("message", "")), limit=200)
            if code:
                error_codes[str(code)] += 1
                if code == INVALID_ARGS:
                    invalid_args[str(data.get("name"))] += 1
        elif kind == EventTypes.REQUEST_CONTEXT:
            routes.append(pick({"seq": event.get("seq"), **data}, ("seq", "provider", "model", "reasoning_effort")))
        elif kind == EventTypes.TURN_END:
            reason = turn_end_reason(data.get("reason"), show_text=show_text)
            turn_ends.append({"seq": event.get("seq"), "turn": data.get("turn"), **reason})
        elif kind == EventTypes.ASSISTANT_MESSAGE:
            if data.get("stop"):
                stops.append(data["stop"])
            text_chars += sum(len(text) for text in _texts(data.get("message")))
        elif kind == EventTypes.USER_MESSAGE and prompt_chars is None:
            message = _dict(data.get("message"))
            stored = _dict(message.get("source")).get("stored_prompt")
            if isinstance(stored, dict):
                reference = prompt_reference(sessions, stored)
                prompt_chars = stored.get("prompt_chars")
            else:
                prompt_chars = sum(len(text) for text in _texts(message))
        elif kind == EventTypes.LLM_RETRY:
            retries += 1
    descriptor = sessions.descriptor(session_id)
    shown = [event for event in events if event.get("type") != EventTypes.ASSISTANT_CHUNK]
    last = shown[-last_events:] if last_events > 0 else []
    return {
        "session_id": session_id,
        "header": {
            "created": iso_ms(header.get("created_at")),
            "delegation_depth": header.get("delegation_depth"),
            "parent_session": header.get("parent_session"),
            "origin": header.get("origin"),
        },
        "descriptor": pick(descriptor or {}, ("provider", "label", "mode")) or None,
        "events": len(events),
        "damaged_lines": skipped,
        "counts": dict(sorted(counts.items())),
        "prompt_chars": prompt_chars,
        "prompt_reference": reference,
        "assistant_text_chars": text_chars,
        "stops": stops,
        "routes": routes,
        "tool_calls": list(calls.values()),
        "tool_errors": dict(sorted(error_codes.items())),
        "invalid_args": sum(invalid_args.values()),
        "invalid_args_by_tool": dict(sorted(invalid_args.items())),
        "retries": retries,
        "turn_ends": turn_ends,
        "last_events": [summarize_event(event, show_text=show_text) for event in last],
        "chunks_omitted": counts.get(EventTypes.ASSISTANT_CHUNK, 0),
    }


#: What a trace shows of a stored prompt's reference (never text).
REFERENCE_FIELDS: Final = (
    "root_session_id", "watermark", "capture", "disclosure", "entries", "shown", "shown_seqs", "elided",
    "elided_seqs", "cut_seq", "prompt_chars", "body_chars", "body_digest", "leads",
)


def prompt_reference(sessions: SessionLogs, stored: Mapping[str, Any]) -> dict[str, Any]:
    """The stored prompt's reference and whether re-projecting the root's log
    through the watermark gives the text that was sent: ``verified``,
    ``differs``, or ``unchecked`` (holdout, an unknown form or a missing root log)."""
    out = pick(stored, REFERENCE_FIELDS)
    root_id = stored.get("root_session_id")
    body = None
    if isinstance(root_id, str) and sessions.exists(root_id):
        events, _ = sessions.events(root_id)
        body = rebuild_body([_event(e) for e in events if isinstance(e.get("seq"), int)], stored)
    if body is None:
        out["check"] = "unchecked"
    else:
        out["check"] = "verified" if digest(body) == stored.get("body_digest") else "differs"
    return out


def _event(record: Mapping[str, Any]) -> SessionEvent:
    time = record.get("time")
    return SessionEvent(
        type=str(record.get("type")),
        seq=record["seq"],
        time=time if isinstance(time, (int, float)) else 0,
        data=record.get("data") if isinstance(record.get("data"), dict) else {},
    )


def turn_end_reason(reason: Any, *, show_text: bool) -> dict[str, Any]:
    """A ``turn/end`` reason: its kind, who aborted, a reason head and the error code."""
    if not isinstance(reason, dict):
        return {"kind": None}
    out: dict[str, Any] = {"kind": reason.get("kind")}
    if reason.get("by"):
        out["by"] = reason["by"]
    if isinstance(reason.get("reason"), str) and reason["reason"]:
        out["reason"] = head(reason["reason"])
    error = reason.get("error")
    if isinstance(error, dict):
        out["error_code"] = error.get("code")
        if show_text and isinstance(error.get("message"), str):  # may quote request text
            out["error"] = head(error["message"])
    return out


def _summarize_assistant(data: Mapping[str, Any], *, show_text: bool) -> str:
    message = _dict(data.get("message"))
    texts = _texts(message)
    blocks = message.get("content")
    content: list[Any] = blocks if isinstance(blocks, list) else []
    tools = [b.get("name") for b in content if isinstance(b, dict) and b.get("type") == ToolCallBlock.TYPE]
    reasoning = sum(1 for b in content if isinstance(b, dict) and b.get("type") == ReasoningBlock.TYPE)
    parts = [f"text {sum(len(t) for t in texts)} chars"]
    if reasoning:
        parts.append("reasoning")
    if tools:
        parts.append("calls " + ", ".join(str(name) for name in tools))
    if data.get("stop"):
        parts.append(f"stop={data['stop']}")
    if data.get("interrupted"):
        parts.append("interrupted")
    line = ", ".join(parts)
    if show_text and texts:
        line += f' "{head(" ".join(texts))}"'
    return line


def _summary(kind: str, data: Mapping[str, Any], *, show_text: bool) -> str | None:
    """What follows ``#seq type`` on an event's line; None for nothing."""
    if kind == EventTypes.TURN_START:
        return f"turn {data.get('turn')}"
    if kind in (EventTypes.STEP_START, EventTypes.STEP_END):
        return f"turn {data.get('turn')} step {data.get('step')}"
    if kind == EventTypes.USER_MESSAGE:
        message = _dict(data.get("message"))
        source = _dict(message.get("source"))
        chars = sum(len(text) for text in _texts(message))
        stored = source.get("stored_prompt")
        if isinstance(stored, dict):
            return f"from {source.get('kind', '?')}, {chars} chars stored, {stored.get('prompt_chars')} sent (trajectory by reference)"
        return f"from {source.get('kind', '?')}, {chars} chars"
    if kind == EventTypes.ASSISTANT_MESSAGE:
        return _summarize_assistant(data, show_text=show_text)
    if kind == EventTypes.TOOL_CALL:
        arguments = data.get("arguments")
        size = len(arguments) if isinstance(arguments, str) else 0
        return f"{data.get('name')} ({data.get('call_id')}, arguments {size} chars)"
    if kind == EventTypes.TOOL_RESULT:
        return f"{data.get('name')} ({data.get('call_id')}) → {_error_code(data) or 'ok'}"
    if kind == EventTypes.REQUEST_CONTEXT:
        effort = f" effort {data['reasoning_effort']}" if data.get("reasoning_effort") else ""
        return f"{data.get('provider')}/{data.get('model')}{effort}"
    if kind == EventTypes.TURN_END:
        reason = turn_end_reason(data.get("reason"), show_text=show_text)
        extra = "".join(f" {key}={value}" for key, value in reason.items() if key != "kind")
        return f"turn {data.get('turn')} {reason.get('kind')}{extra}"
    if kind == EventTypes.LLM_RETRY:
        return f"attempt {data.get('attempt')} code {data.get('code')}"
    if kind == EventTypes.SUBAGENT_DESCRIPTOR:
        return f"{data.get('provider')} label {data.get('label')}"
    if kind in (EventTypes.APPROVAL_POLICY, EventTypes.SANDBOX_MODE):
        return f"{data.get('policy') or data.get('mode')} ({data.get('source')})"
    if kind == EventTypes.ASSISTANT_CHUNK:
        return f"{_dict(data.get('chunk')).get('type')}"
    return None


def summarize_event(event: Mapping[str, Any], *, show_text: bool) -> str:
    """One line per event; never tool arguments, tool output or prompt text."""
    kind = str(event.get("type"))
    data = _data(event)
    prefix = f"#{event.get('seq')} {kind}"
    summary = _summary(kind, data, show_text=show_text)
    if summary is not None:
        return f"{prefix} {summary}"
    keys = ", ".join(sorted(str(k) for k in data)) if data else ""
    return f"{prefix}" + (f" ({keys})" if keys else "")
