"""A transcript that lags its Stop hook.

Claude Code fires ``Stop`` before the turn's final assistant message is
flushed to ``transcript_path`` (anthropics/claude-code#74340), so the file
may still end at the state before that message. Its Stop input carries the
message as ``last_assistant_message`` (Claude Code since 2.1.47, also on
``SubagentStop``; Codex's Stop input has the field too, possibly null). The
review must see it: :func:`with_last_message` adds it, in the transcript's
own format, after the last entry when the entries since the agent's last
input hold no such text. The file is not touched and the added entry carries
the last line's number, so what the import record says was imported is what
the file holds.

When the file catches up, the flushed message must not be imported a second
time: the hook remembers the added message (:func:`lagged_note`) and the next
Stop blanks its first copy after the recorded line (:func:`drop_flushed`).
"""

from __future__ import annotations

import hashlib
from typing import Any

import attrs

from .model import Format
from .reader import TranscriptSource

#: what a blanked entry becomes: a bookkeeping kind each importer skips
_BLANK: dict[str, dict[str, Any]] = {
    "claude-code": {"type": "system", "subtype": "flushed-after-stop"},
    "codex": {"type": "event_msg", "payload": {"type": "flushed_after_stop"}},
}
_OUTPUTS = ("function_call_output", "custom_tool_call_output", "local_shell_call_output")


def with_last_message(source: TranscriptSource, message: Any, format: Format) -> TranscriptSource:
    """``source``, with ``message`` as a final assistant entry when the transcript lacks it."""
    if not isinstance(message, str) or not message.strip():
        return source
    if message.strip() in "\n".join(_texts_since_input(source.entries, format)):
        return source
    line = source.lines
    return attrs.evolve(source, entries=[*source.entries, (line, _entry(message, format))])


def lagged_note(source: TranscriptSource, added: TranscriptSource) -> dict[str, Any] | None:
    """What the next Stop needs to recognise the message once it is flushed (None: nothing was added)."""
    if added is source:
        return None
    text = _assistant_text(added.entries[-1][1], _format_of(added.entries[-1][1]))
    return {"after_line": source.lines, "sha256": _digest(text or "")}


def drop_flushed(
    source: TranscriptSource, note: Any, format: Format, *, imported_through: int | None
) -> TranscriptSource:
    """``source`` with the first flushed copy of an added message blanked, when
    the imported session already holds it (it was imported through the line
    it was added after)."""
    if not isinstance(note, dict) or imported_through is None or note.get("after_line") != imported_through:
        return source
    entries = list(source.entries)
    for index, (line, entry) in enumerate(entries):
        if line <= imported_through:
            continue
        text = _assistant_text(entry, format)
        if text is not None and _digest(text) == note.get("sha256"):
            entries[index] = (line, dict(_BLANK[format]))
            return attrs.evolve(source, entries=entries)
    return source


def _texts_since_input(entries: list[tuple[int, dict[str, Any]]], format: Format) -> list[str]:
    """The assistant texts after the agent's last input (a user entry, a tool result)."""
    texts: list[str] = []
    for _, entry in reversed(entries):
        if _is_input(entry, format):
            break
        text = _assistant_text(entry, format, text_only=False)
        if text:
            texts.append(text)
    return texts[::-1]


def _is_input(entry: dict[str, Any], format: Format) -> bool:
    if format == "claude-code":
        return entry.get("type") == "user"
    payload = entry.get("payload")
    if entry.get("type") != "response_item" or not isinstance(payload, dict):
        return False
    return payload.get("type") in _OUTPUTS or (payload.get("type") == "message" and payload.get("role") == "user")


def _assistant_text(entry: dict[str, Any], format: Format, *, text_only: bool = True) -> str | None:
    """The text of an assistant entry (None: not one; with ``text_only``, also
    None when it holds anything but text, such as a tool call)."""
    if format == "claude-code":
        message = entry.get("message")
        if entry.get("type") != "assistant" or not isinstance(message, dict):
            return None
        content, kind = message.get("content"), "text"
    else:
        message = entry.get("payload")
        if entry.get("type") != "response_item" or not isinstance(message, dict):
            return None
        if message.get("type") != "message" or message.get("role") != "assistant":
            return None
        content, kind = message.get("content"), "output_text"
    if isinstance(content, str):
        return content
    blocks = [block for block in content if isinstance(block, dict)] if isinstance(content, list) else []
    if text_only and any(block.get("type") != kind for block in blocks):
        return None
    texts = [str(block.get("text", "")) for block in blocks if block.get("type") == kind]
    return "\n".join(texts) if texts else None


def _entry(message: str, format: Format) -> dict[str, Any]:
    if format == "claude-code":
        content = [{"type": "text", "text": message}]
        return {"type": "assistant", "message": {"role": "assistant", "content": content}}
    content = [{"type": "output_text", "text": message}]
    return {"type": "response_item", "payload": {"type": "message", "role": "assistant", "content": content}}


def _format_of(entry: dict[str, Any]) -> Format:
    return "codex" if entry.get("type") == "response_item" else "claude-code"


def _digest(text: str) -> str:
    return hashlib.sha256(text.strip().encode("utf-8", errors="surrogateescape")).hexdigest()
