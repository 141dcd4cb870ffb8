"""Render one session event as the text block a Shadow reviews.

Privacy-preserving: never reasoning, tool result text or (unless
``disclosure="full"``) tool arguments. Each block starts with ``[seq=N ...]``.
A tool result is named by its call, which :func:`render_event` records in
``calls`` (call id -> name and seq) when it renders the call.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, MutableMapping
from typing import Any, Final, Literal, TypeAlias

from hookspecs.values import EventTypes, SessionEvent

from .utf16 import JS_SPACE, u16len

Disclosure: TypeAlias = Literal["redacted", "full"]
Capture: TypeAlias = Literal["full", "since-compaction"]

UNKNOWN_TOOL: Final = "unknown-tool"
IMAGE_PLACEHOLDER: Final = "[image omitted]"
REDACTED: Final = "[redacted]"

SUMMARY: Final = EventTypes.COMPACTION_SUMMARY
RENDERED_KINDS: Final = frozenset(
    {EventTypes.USER_MESSAGE, EventTypes.ASSISTANT_MESSAGE, SUMMARY, EventTypes.TOOL_CALL, EventTypes.TOOL_RESULT}
)


# --- content helpers -----------------------------------------------------------------------


def _blocks(value: Any) -> list[Mapping[str, Any]]:
    """Content blocks of a JSON value; anything malformed is ignored, not fatal."""
    if not isinstance(value, list | tuple):
        return []
    return [block for block in value if isinstance(block, Mapping)]


def _text_of(block: Mapping[str, Any]) -> str:
    text = block.get("text")
    return text if isinstance(text, str) else ""


def visible_text(blocks: Any) -> str:
    """What the model saw as plain text: text blocks, images as a placeholder;
    reasoning and tool payloads are dropped. Trimmed (JS semantics)."""
    parts: list[str] = []
    for block in _blocks(blocks):
        kind = block.get("type")
        if kind == "text":
            parts.append(_text_of(block))
        elif kind == "image":
            parts.append(IMAGE_PLACEHOLDER)
    # JavaScript's trim, so "blank" means what it meant there (no regex per line of output)
    return "\n".join(parts).strip(JS_SPACE)


def has_visible_text(blocks: Any) -> bool:
    """Whether :func:`visible_text` of ``blocks`` is not empty, without building it."""
    if not isinstance(blocks, list | tuple):
        return False
    for block in blocks:  # no filtered copy first: the first text block usually decides
        if type(block) is dict or isinstance(block, Mapping):
            kind = block.get("type")
            if kind == "image" or (kind == "text" and _text_of(block).strip(JS_SPACE)):
                return True
    return False


def _content_chars(blocks: Any) -> int:
    # reasoning counts here: the summary reports size, never content
    total = 0
    for block in _blocks(blocks):
        kind = block.get("type")
        if kind in ("text", "reasoning"):
            total += u16len(_text_of(block))
        elif kind == "tool-result":
            total += _content_chars(block.get("content"))
    return total


def _content_lines(blocks: Any) -> int:
    total = 0
    for block in _blocks(blocks):
        kind = block.get("type")
        if kind == "text":
            # a "\r" before the "\n" is JS whitespace: splitting on "\n" alone counts the same lines
            total += sum(1 for line in _text_of(block).split("\n") if line.strip(JS_SPACE))
        elif kind == "tool-result":
            total += _content_lines(block.get("content"))
    return total


def _content_kinds(blocks: Any, counts: dict[str, int]) -> dict[str, int]:
    for block in _blocks(blocks):
        kind = str(block.get("type"))
        counts[kind] = counts.get(kind, 0) + 1
        if kind == "tool-result":
            _content_kinds(block.get("content"), counts)
    return counts


def _locale_key(kind: str) -> tuple[str, str]:
    # approximates JS localeCompare for these ids: case-insensitive first, lowercase before uppercase
    return kind.casefold(), kind.swapcase()


def _read_meta_counts(meta: Any) -> tuple[int, int] | None:
    """(non-empty lines, chars) from a read tool's ``meta.lines`` when it validates."""
    if not isinstance(meta, Mapping):
        return None
    lines = meta.get("lines")
    if not isinstance(lines, list):
        return None
    non_empty = chars = 0
    for line in lines:
        text = line.get("text") if isinstance(line, Mapping) else None
        if not isinstance(text, str):
            return None
        if text.strip(JS_SPACE):
            non_empty += 1
        chars += u16len(text)
    return non_empty, chars


def summarize_tool_result(tool: str, content: Any, failed: bool, meta: Any = None) -> str:
    """A size-only summary of a tool result; its text is never disclosed."""
    outcome = "error" if failed else "success"
    chars = _content_chars(content)
    if tool == "read":
        lines, chars = _read_meta_counts(meta) or (_content_lines(content), chars)
        return f"read {outcome}: {lines} non-empty lines, {chars} text characters"
    if tool == "grep":
        return f"grep {outcome}: {_content_lines(content)} result lines, {chars} text characters"
    if tool == "glob":
        return f"glob {outcome}: {_content_lines(content)} paths, {chars} text characters"
    counts = _content_kinds(content, {})
    kinds = ", ".join(f"{kind}={counts[kind]}" for kind in sorted(counts, key=_locale_key)) or "none"
    return f"{tool} {outcome}: {chars} text characters; blocks {kinds}"


# --- per-event rendering -----------------------------------------------------------------------


def message_of(data: Any) -> Mapping[str, Any]:
    """An event's ``message`` mapping; empty when it has none."""
    message = data.get("message") if isinstance(data, Mapping) else None
    return message if isinstance(message, Mapping) else {}


def call_key(value: Any) -> str | None:
    """Call ids are strings; anything else is stringified so lookups stay consistent."""
    if value is None or isinstance(value, str):
        return value
    return str(value)


def tool_name(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _arguments_text(raw: Any) -> str:
    if isinstance(raw, str):
        return raw
    return json.dumps(raw, separators=(",", ":"), ensure_ascii=False)


def render_tool_result(seq: int, data: Any, calls: Mapping[str, tuple[str, int]]) -> str:
    """A ``tool/result`` block; ``calls`` names its tool by the call id (see :func:`render_event`)."""
    data = data if isinstance(data, Mapping) else {}
    content: Any = message_of(data).get("content")
    blocks = _blocks(content)
    first = blocks[0] if blocks and blocks[0].get("type") == "tool-result" else None
    call_id = call_key(data.get("call_id"))
    if call_id is None and first is not None:
        call_id = call_key(first.get("tool_call_id"))
    # the paired call names the tool (as in the reference); our results also carry the name
    paired = calls.get(call_id) if call_id is not None else None
    tool = paired[0] if paired is not None else tool_name(data.get("name")) or UNKNOWN_TOOL
    failed = data.get("error") is not None or (first is not None and first.get("is_error") is True)
    result_content = first.get("content") if first is not None else content
    return f"[seq={seq} tool result] {summarize_tool_result(tool, result_content, failed, data.get('meta'))}"


def renders(event: SessionEvent) -> bool:
    """Whether :func:`render_event` gives ``event`` a text block (nothing is rendered)."""
    kind, data = event.type, event.data
    if kind == EventTypes.TOOL_CALL or kind == EventTypes.TOOL_RESULT:
        return True
    if kind == EventTypes.USER_MESSAGE or kind == EventTypes.ASSISTANT_MESSAGE:
        return has_visible_text(message_of(data).get("content"))
    if kind == SUMMARY:
        summary = data.get("summary") if isinstance(data, Mapping) else None
        return bool(summary.strip(JS_SPACE)) if isinstance(summary, str) else has_visible_text(summary)
    return False


def render_event(
    event: SessionEvent, calls: MutableMapping[str, tuple[str, int]], disclosure: Disclosure
) -> str | None:
    """The text block of one event, or None when it renders nothing.

    ``tool/call`` records ``call_id -> (name, seq)`` in ``calls`` so later results
    can be named.
    """
    kind, seq, data = event.type, event.seq, event.data
    if kind not in RENDERED_KINDS:
        return None  # most events (streamed chunks, step markers) render nothing: one set lookup
    if kind == EventTypes.USER_MESSAGE:
        message = message_of(data)
        text = visible_text(message.get("content"))
        if not text:
            return None
        source = message.get("source")
        source_kind = source.get("kind") if isinstance(source, Mapping) else None
        return f"[seq={seq} user:{source_kind if isinstance(source_kind, str) else 'unknown'}]\n{text}"
    if kind == EventTypes.ASSISTANT_MESSAGE:
        text = visible_text(message_of(data).get("content"))
        return f"[seq={seq} assistant]\n{text}" if text else None
    if kind == SUMMARY:
        summary = data.get("summary") if isinstance(data, Mapping) else None
        text = summary.strip(JS_SPACE) if isinstance(summary, str) else visible_text(summary)
        return f"[seq={seq} compaction summary]\n{text}" if text else None
    if kind == EventTypes.TOOL_CALL:
        data = data if isinstance(data, Mapping) else {}
        name = tool_name(data.get("name")) or UNKNOWN_TOOL
        call_id = call_key(data.get("call_id"))
        if call_id is not None:
            calls[call_id] = (name, seq)
        arguments = _arguments_text(data.get("arguments", "")) if disclosure == "full" else REDACTED
        return f"[seq={seq} tool call] {name} arguments={arguments}"
    if kind == EventTypes.TOOL_RESULT:
        return render_tool_result(seq, data, calls)
    return None
