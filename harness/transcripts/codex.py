"""Codex CLI's rollout JSONL (``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``).

Each line is ``{timestamp, type, payload}``. ``session_meta`` names the session
and its working directory; ``response_item`` payloads are the model history
(``message``, ``function_call`` / ``custom_tool_call`` / ``local_shell_call``
and their ``*_output``, ``reasoning``); ``compacted`` holds a compaction's
summary. ``event_msg`` lines repeat the history for UIs, ``turn_context`` and
``world_state`` lines restate settings and ``token_usage_record`` lines count
tokens: they produce no event. A ``user`` message Codex wrote itself (its
provenance is ``harness``, or older files' ``<environment_context>``) is not
the person's and is dropped, except a hook's answer (``<hook_prompt>``: a
blocking Stop hook's reason), kept as a user message whose source is the hook.
"""

from __future__ import annotations

import json
import re
from typing import Any

from .builder import EventBuilder, argument_text, loads, type_of

LINE_TYPES = frozenset(
    {"session_meta", "response_item", "event_msg", "turn_context", "compacted", "world_state", "token_usage_record"}
)
#: a hook's answer as Codex feeds it to the model (seen in 0.171.0): ``<hook_prompt hook_run_id="stop:0:...">``
_HOOK_PROMPT = re.compile(r'\A<hook_prompt hook_run_id="([a-z_]+)[^"]*">(.*)</hook_prompt>\s*\Z', re.DOTALL)
_EXIT = re.compile(r"(?:process exited with code|exit code:?)\s*(-?\d+)", re.IGNORECASE)
#: how Codex words a call it refused or could not run (no exit code to read)
_REFUSED = re.compile(
    r"^(?:failed in sandbox|patch rejected|exec command rejected|apply_patch verification failed|aborted)",
    re.IGNORECASE,
)
_CALLS = {"function_call": "arguments", "custom_tool_call": "input", "local_shell_call": "action"}
_OUTPUTS = frozenset({"function_call_output", "custom_tool_call_output", "local_shell_call_output"})


def source_of(entries: list[tuple[int, dict[str, Any]]]) -> tuple[str | None, str | None]:
    for _, entry in entries:
        payload = entry.get("payload")
        if type_of(entry) == "session_meta" and isinstance(payload, dict):
            sid, cwd = payload.get("id"), payload.get("cwd")
            return (sid if isinstance(sid, str) else None), (cwd if isinstance(cwd, str) else None)
    return None, None


def feed(builder: EventBuilder, line: int, entry: dict[str, Any]) -> None:
    kind = entry.get("type")  # (type_of, inline here and below: entries and payloads are dicts)
    if not isinstance(kind, str):
        kind = None
    payload = entry.get("payload")
    if not isinstance(payload, dict):
        builder.skip(f"{kind}: no payload", unknown=True)
    elif kind == "response_item":
        _item(builder, line, payload)
    elif kind == "compacted":
        builder.compaction(_compacted_text(payload), line)
    elif kind == "turn_context":
        model = payload.get("model")
        if isinstance(model, str):
            builder.source = {"kind": "model", "provider": "openai", "model": model}
        builder.skip("turn_context")
    elif kind in LINE_TYPES:
        ptype = payload.get("type")
        builder.skip(f"{kind}:{ptype}" if isinstance(ptype, str) else str(kind))
    else:
        builder.skip(str(kind), unknown=True)


def _item(builder: EventBuilder, line: int, item: dict[str, Any]) -> None:
    itype = item.get("type")
    if not isinstance(itype, str):
        itype = None
    if itype == "message":
        role = item.get("role")
        text = "\n".join(_texts(item.get("content")))
        if role == "user":
            _user(builder, line, item, text)
        elif role == "assistant":
            builder.assistant([text], [], line)
        else:
            builder.skip(f"message:{role}")  # developer / system instructions
    elif itype in _CALLS:
        call_id = item.get("call_id") or item.get("id")
        if not isinstance(call_id, str):
            builder.skip(f"{itype} without an id", unknown=True)
            return
        raw = item.get(_CALLS[str(itype)])
        args = (
            raw
            if itype == "function_call" and isinstance(raw, str)
            else argument_text({"input": raw} if itype == "custom_tool_call" else raw)
        )
        builder.assistant([], [(call_id, str(item.get("name") or "local_shell"), args)], line)
    elif itype in _OUTPUTS:
        call_id = item.get("call_id")
        if isinstance(call_id, str):
            text, failed = _output(item.get("output"))
            builder.tool_result(call_id, text, failed, line)
        else:
            builder.skip(f"{itype} without an id", unknown=True)
    elif itype == "reasoning":
        builder.skip("reasoning")
    else:
        builder.skip(f"response_item:{itype}", unknown=True)


def _user(builder: EventBuilder, line: int, item: dict[str, Any], text: str) -> None:
    provenance = _provenance(item)
    hook = _HOOK_PROMPT.match(text)
    if hook is not None or provenance.get("hook") is True:
        event = "".join(part.capitalize() for part in hook.group(1).split("_")) if hook else "unknown"  # stop -> Stop
        said = hook.group(2) if hook else text
        builder.user(said, line, source={"kind": "hook", "agent": "codex", "event": event})
    elif provenance.get("type") == "harness" or text.startswith("<environment_context>"):
        builder.skip("message:harness")  # context Codex adds for the model, not the person's words
    else:
        builder.user(text, line)


def _provenance(item: dict[str, Any]) -> dict[str, Any]:
    """Who Codex says wrote a message: ``{"type": "user"}``, ``{"type": "harness", "hook": bool}``; ``{}`` when unsaid."""
    meta = item.get("internal_chat_message_metadata_passthrough")
    blocks = meta.get("content_item_metadata") if isinstance(meta, dict) else None
    first = blocks[0] if isinstance(blocks, list) and blocks and isinstance(blocks[0], dict) else {}
    provenance = first.get("provenance")
    return provenance if isinstance(provenance, dict) else {}


def _texts(content: Any) -> list[str]:
    blocks = content if isinstance(content, list) else []
    return [b["text"] for b in blocks if isinstance(b, dict) and isinstance(b.get("text"), str)]


def _output(raw: Any) -> tuple[str, bool]:
    """The result text and whether it failed: a non-zero exit code or ``success: false``."""
    if isinstance(raw, dict):  # {content, success}
        return str(raw.get("content", "")), raw.get("success") is False
    text = raw if isinstance(raw, str) else json.dumps(raw)
    try:
        decoded = loads(text)
    except ValueError:
        decoded = None
    if isinstance(decoded, dict) and isinstance(decoded.get("metadata"), dict):
        code = decoded["metadata"].get("exit_code")
        return str(decoded.get("output", "")), isinstance(code, int) and code != 0
    match = _EXIT.search(text[:2000])
    return text, bool(match and int(match.group(1)) != 0) or bool(_REFUSED.match(text))


def _compacted_text(payload: dict[str, Any]) -> str:
    message = payload.get("message")
    if isinstance(message, str) and message.strip():
        return message
    history = payload.get("replacement_history")
    items = history if isinstance(history, list) else []
    return "\n".join(t for item in items if isinstance(item, dict) for t in _texts(item.get("content")))
