"""Messages and content blocks: what the model reads and writes.

Messages cross the session log as JSON (``message_to_json`` /
``message_from_json``); inside the process they are frozen attrs values.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from typing import Any, ClassVar, Literal, TypeAlias

import attrs
import cattrs
from cattrs.strategies import configure_tagged_union

from ..errors import JsonDataError
from .json import JSON, check_json
from .wire import make_converter, structure


@attrs.frozen(kw_only=True)
class TextBlock:
    """Visible text."""

    TYPE: ClassVar[str] = "text"
    text: str


@attrs.frozen(kw_only=True)
class ReasoningBlock:
    """Model reasoning; never rendered to reviewers or other agents."""

    TYPE: ClassVar[str] = "reasoning"
    text: str


@attrs.frozen(kw_only=True)
class ImageBlock:
    """An image, base64 encoded."""

    TYPE: ClassVar[str] = "image"
    media_type: str
    data: str


@attrs.frozen(kw_only=True)
class ToolCallBlock:
    """A tool call as the model produced it; ``arguments`` is the raw JSON text."""

    TYPE: ClassVar[str] = "tool-call"
    id: str
    name: str
    arguments: str


@attrs.frozen(kw_only=True)
class ToolResultBlock:
    """The answer to one tool call."""

    TYPE: ClassVar[str] = "tool-result"
    tool_call_id: str
    content: tuple[ContentBlock, ...] = ()
    is_error: bool = False


ContentBlock: TypeAlias = TextBlock | ReasoningBlock | ImageBlock | ToolCallBlock | ToolResultBlock
BLOCK_TYPES: tuple[type, ...] = (TextBlock, ReasoningBlock, ImageBlock, ToolCallBlock, ToolResultBlock)

Role: TypeAlias = Literal["user", "assistant", "tool"]


@attrs.frozen(kw_only=True)
class Message:
    """One history entry.

    ``source`` says who produced it: ``{"kind": "user"}`` for a person,
    ``{"kind": "model", "provider": ..., "model": ...}``, ``{"kind": "tool",
    "call_id": ...}``, ``{"kind": "plugin", "plugin": ...}`` or a plugin-defined
    kind such as ``shadow-report``. It is JSON and is persisted verbatim.
    """

    id: str
    role: Role
    content: tuple[ContentBlock, ...]
    source: dict[str, Any] = attrs.field(factory=lambda: {"kind": "user"})

    @property
    def source_kind(self) -> str:
        kind = self.source.get("kind")
        return kind if isinstance(kind, str) else ""

    @property
    def text(self) -> str:
        """Visible text blocks joined by newlines (reasoning excluded)."""
        return "\n".join(b.text for b in self.content if isinstance(b, TextBlock))


def new_message_id() -> str:
    return uuid.uuid4().hex


def create_user_message(
    content: str | Iterable[ContentBlock],
    source: Mapping[str, Any] | None = None,
) -> Message:
    """A user-role message; ``content`` may be plain text.

    ``source`` defaults to ``{"kind": "user"}`` (a real person). Plugins that
    deliver text on their own behalf must set their own kind so hosts and other
    plugins can tell it apart from real user input.
    """
    blocks: tuple[ContentBlock, ...]
    if isinstance(content, str):
        blocks = (TextBlock(text=content),)
    else:
        blocks = tuple(content)
    src = dict(source) if source is not None else {"kind": "user"}
    if not isinstance(src.get("kind"), str) or not src["kind"]:
        raise JsonDataError("message source needs a non-empty string 'kind'")
    check_json(src, "source")
    return Message(id=new_message_id(), role="user", content=blocks, source=src)


def _tag(cls: type) -> str:
    return cls.TYPE  # type: ignore[attr-defined]


def _build_converter() -> cattrs.Converter:
    conv = make_converter()
    configure_tagged_union(ContentBlock, conv, tag_name="type", tag_generator=_tag)
    return conv


_WIRE = _build_converter()


def block_to_json(block: ContentBlock) -> dict[str, JSON]:
    return _WIRE.unstructure(block, ContentBlock)


def blocks_to_json(blocks: Iterable[ContentBlock]) -> list[dict[str, JSON]]:
    return [_WIRE.unstructure(b, ContentBlock) for b in blocks]


def blocks_from_json(data: Any, where: str = "content") -> tuple[ContentBlock, ...]:
    return structure(_WIRE, data, tuple[ContentBlock, ...], where=where, error=JsonDataError)


def message_to_json(message: Message) -> dict[str, JSON]:
    return _WIRE.unstructure(message)


def message_from_json(data: Any, where: str = "message") -> Message:
    return structure(_WIRE, data, Message, where=where, error=JsonDataError)
