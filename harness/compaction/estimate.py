"""A fast, conservative token estimate of messages and requests.

Real tokenizers give about four characters of English per token and about one
token per CJK character. The estimate counts three ASCII characters per token
and, for any other text, half a token per UTF-8 byte (1.5 per CJK character),
so it stays above what a provider counts; ``len`` and ``encode`` run at C speed.
"""

from __future__ import annotations

from collections.abc import Iterable

from hookspecs.values import (
    ImageBlock,
    LlmRequest,
    Message,
    ReasoningBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    ToolSchema,
    dumps_compact,
)

#: role, separators and ids around each message
MESSAGE_OVERHEAD = 8
#: what providers bill for an image of unknown size
IMAGE_TOKENS = 1_000


def text_tokens(text: str) -> int:
    if text.isascii():
        return (len(text) + 2) // 3
    return (len(text.encode("utf-8", "surrogatepass")) + 1) // 2


def message_tokens(message: Message) -> int:
    total = MESSAGE_OVERHEAD
    for block in message.content:
        total += _block_tokens(block)
    return total


def _block_tokens(block: object) -> int:
    if isinstance(block, TextBlock | ReasoningBlock):
        return text_tokens(block.text)
    if isinstance(block, ToolCallBlock):
        return text_tokens(block.name) + text_tokens(block.arguments) + MESSAGE_OVERHEAD
    if isinstance(block, ToolResultBlock):
        return sum(_block_tokens(inner) for inner in block.content) + MESSAGE_OVERHEAD
    if isinstance(block, ImageBlock):
        return IMAGE_TOKENS
    return 0


def messages_tokens(messages: Iterable[Message]) -> int:
    return sum(message_tokens(message) for message in messages)


def tools_tokens(tools: Iterable[ToolSchema]) -> int:
    return sum(
        text_tokens(tool.name) + text_tokens(tool.description) + text_tokens(dumps_compact(tool.parameters))
        for tool in tools
    )


def request_tokens(request: LlmRequest) -> int:
    """Everything the request sends, plus the output it reserves (``max_tokens``)."""
    return (
        text_tokens(request.system)
        + messages_tokens(request.messages)
        + tools_tokens(request.tools)
        + (request.max_tokens or 0)
    )


class RequestEstimator:
    """:func:`request_tokens` for requests that grow by appending, as a session's
    do between compactions: per key (a session id) it remembers the messages
    already counted and counts only new ones; tool schemas are counted once.
    The result always equals :func:`request_tokens`."""

    def __init__(self) -> None:
        self._counted: dict[str, tuple[int, Message, int]] = {}  # key -> (messages, last one, their tokens)
        self._tools: dict[int, tuple[ToolSchema, int]] = {}  # id -> (schema kept alive, tokens)

    def tokens(self, key: str, request: LlmRequest) -> int:
        messages = request.messages
        counted = self._counted.get(key)
        if counted is not None and 0 < counted[0] <= len(messages) and messages[counted[0] - 1] is counted[1]:
            start, total = counted[0], counted[2]
        else:
            start, total = 0, 0
        total += messages_tokens(messages[start:])
        if messages:
            self._counted[key] = (len(messages), messages[-1], total)
        return text_tokens(request.system) + total + self._tools_tokens(request.tools) + (request.max_tokens or 0)

    def forget(self, key: str) -> None:
        """Drop what is remembered of ``key`` (its session closed)."""
        self._counted.pop(key, None)

    def remembered(self) -> int:
        """How many keys have counted messages remembered."""
        return len(self._counted)

    def _tools_tokens(self, tools: Iterable[ToolSchema]) -> int:
        total = 0
        for tool in tools:
            known = self._tools.get(id(tool))
            if known is None or known[0] is not tool:
                if len(self._tools) > 1_024:
                    self._tools.clear()
                known = (tool, tools_tokens((tool,)))
                self._tools[id(tool)] = known
            total += known[1]
        return total
