"""What text leaves the process, and how: every string through the one scrubber.

Names, ids and codes (:func:`label`) are scrubbed, made printable and cut
short. Message content (:class:`Content`) is exported only when capture is
on; then each text passes :func:`hookspecs.scrub.scrub_text` (credentials and
absolute paths hidden) and is bounded. Messages are rendered in the GenAI
conventions' JSON shape: ``[{"role", "parts": [{"type": "text", "content"} |
{"type": "tool_call", "id", "name", "arguments"} | {"type":
"tool_call_response", "id", "response"}]}]``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from hookspecs.scrub import scrub_text, visible

#: characters kept of a name, id or code
LABEL_CHARS = 128


def label(value: object) -> str:
    """A short scrubbed, printable string for an attribute value ('' for none)."""
    if value is None or value == "":
        return ""
    return visible(scrub_text(str(value), limit=LABEL_CHARS))


class Content:
    """Message content for span attributes, or nothing when capture is off."""

    def __init__(self, *, enabled: bool, max_chars: int) -> None:
        self.enabled = enabled
        self.max_chars = max_chars

    def text(self, value: object) -> str:
        return scrub_text(value if isinstance(value, str) else json.dumps(value, default=str), limit=self.max_chars)

    def messages(self, messages: Sequence[Mapping[str, Any]]) -> str:
        rendered = [
            {"role": label(message.get("role")) or "user", "parts": self._parts(message.get("content"))}
            for message in messages
        ]
        return json.dumps(rendered, ensure_ascii=False)

    def tool_result(self, message: Mapping[str, Any]) -> str:
        blocks = message.get("content") or []
        texts = [_block_text(block) for block in blocks if isinstance(block, Mapping)]
        return self.text("\n".join(t for t in texts if t))

    def _parts(self, content: object) -> list[dict[str, Any]]:
        parts: list[dict[str, Any]] = []
        for block in content if isinstance(content, list) else []:
            if not isinstance(block, Mapping):
                continue
            kind = block.get("type")
            if kind == "text":
                parts.append({"type": "text", "content": self.text(block.get("text", ""))})
            elif kind == "tool-call":
                parts.append(
                    {
                        "type": "tool_call",
                        "id": label(block.get("id")),
                        "name": label(block.get("name")),
                        "arguments": self.text(block.get("arguments", "")),
                    }
                )
            elif kind == "tool-result":
                parts.append(
                    {"type": "tool_call_response", "id": label(block.get("tool_call_id")), "response": self.text(_block_text(block))}
                )
        return parts


def _block_text(block: Mapping[str, Any]) -> str:
    """The text of a text block, or of a tool-result block's own content."""
    if block.get("type") == "text":
        return str(block.get("text", ""))
    inner = block.get("content")
    if isinstance(inner, str):
        return inner
    if isinstance(inner, list):
        return "\n".join(str(b.get("text", "")) for b in inner if isinstance(b, Mapping) and b.get("type") == "text")
    return ""
