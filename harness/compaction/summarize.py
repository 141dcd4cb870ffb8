"""The summarising request: the shadowed messages as a bounded transcript, our
own instructions, and the streamed summary text."""

from __future__ import annotations

from collections.abc import Sequence

import trio

from hookspecs.errors import LlmError
from hookspecs.scrub import scrub_text
from hookspecs.values import (
    CancelToken,
    LlmRequest,
    Message,
    ReasoningBlock,
    TextBlock,
    TextDelta,
    ToolCallBlock,
    ToolResultBlock,
    create_user_message,
)
from hookspecs.values.compaction import is_checkpoint_source

from .estimate import text_tokens

SUMMARY_SYSTEM = """\
You write the working memory of a coding agent whose conversation grew too long.
The transcript below will be deleted and replaced by your summary; the agent
continues from the summary alone, so it must keep everything needed to go on:

- the user's goals and every explicit instruction or constraint, with exact names;
- decisions made and why; what was tried and failed;
- facts learned from tool results: file paths, identifiers, values, error messages;
- the state of the work: what is done, what is in progress, what comes next;
- the latest user request, quoted exactly.

Write plain text, dense and factual, in the transcript's language. Do not call
tools, do not continue the work, do not address the user."""

#: characters of one message kept in the transcript (a huge tool output is
#: noise for a summary; its head and tail carry the useful part)
MESSAGE_CHARS = 6_000
#: tokens the system text, framing and estimate error may take
MARGIN_TOKENS = 512


class SummaryFailed(Exception):
    """The model gave no usable summary; ``code`` is ``summary`` or ``cancelled``."""

    def __init__(self, message: str, code: str = "summary") -> None:
        super().__init__(message)
        self.code = code


def render_message(message: Message) -> str:
    role = "summary of earlier conversation" if is_checkpoint_source(message.source) else message.role
    parts: list[str] = []
    for block in message.content:
        if isinstance(block, TextBlock):
            parts.append(block.text)
        elif isinstance(block, ToolCallBlock):
            parts.append(f"(tool call {block.name} {block.arguments})")
        elif isinstance(block, ToolResultBlock):
            inner = " ".join(b.text for b in block.content if isinstance(b, TextBlock))
            parts.append(f"(tool result{' error' if block.is_error else ''}) {inner}")
        elif not isinstance(block, ReasoningBlock):  # reasoning is not memory; images cannot be quoted
            parts.append(f"({block.TYPE})")
    text = "\n".join(part for part in parts if part)
    if len(text) > MESSAGE_CHARS:
        half = MESSAGE_CHARS // 2
        text = f"{text[:half]}\n[... {len(text) - MESSAGE_CHARS} characters left out ...]\n{text[-half:]}"
    return f"## {role}\n{text}"


def transcript(messages: Sequence[Message], budget_tokens: int) -> str:
    """The messages as text within ``budget_tokens``: the first one (often the
    previous summary) and as many of the newest as fit, with one marker line
    for what was left out between them."""
    blocks = [render_message(message) for message in messages]
    costs = [text_tokens(block) + 1 for block in blocks]
    if sum(costs) <= budget_tokens:
        return "\n\n".join(blocks)
    head = blocks[:1] if costs and costs[0] <= budget_tokens // 2 else []
    left = budget_tokens - (costs[0] if head else 0) - 32
    tail: list[str] = []
    for block, cost in zip(reversed(blocks[len(head):]), reversed(costs[len(head):]), strict=True):
        if cost > left:
            break
        tail.append(block)
        left -= cost
    tail.reverse()
    omitted = len(blocks) - len(head) - len(tail)
    return "\n\n".join([*head, f"[... {omitted} messages left out to fit the summarising request ...]", *tail])


def summary_request(
    messages: Sequence[Message],
    *,
    provider: str,
    model: str,
    window: int | None,
    max_tokens: int,
    input_tokens: int,
    metadata: dict[str, object],
) -> LlmRequest:
    """The request that summarises ``messages``; it fits ``window`` (or
    ``input_tokens`` when the window is unknown)."""
    limit = window - max_tokens if window is not None else input_tokens
    budget = limit - text_tokens(SUMMARY_SYSTEM) - min(MARGIN_TOKENS, limit // 10)
    body = transcript(messages, max(budget, 256))
    prompt = f"Summarise this transcript as your instructions say.\n\n{body}"
    return LlmRequest(
        provider=provider,
        model=model,
        system=SUMMARY_SYSTEM,
        messages=(create_user_message(prompt, {"kind": "plugin", "plugin": "compact"}),),
        max_tokens=max_tokens,
        metadata={**metadata, "purpose": "compaction"},
    )


async def stream_summary(stream: object, request: LlmRequest, cancel: CancelToken) -> str:
    """Run ``request`` through ``stream`` (an ``LlmService.stream``) and return the
    summary text. Raises :class:`SummaryFailed`."""
    pieces: list[str] = []
    with trio.CancelScope() as scope:
        unbind = cancel.bind(scope)
        try:
            async for chunk in stream(request, cancel):  # type: ignore[operator]
                if isinstance(chunk, TextDelta):
                    pieces.append(chunk.text)
        except LlmError as exc:
            raise SummaryFailed(f"the summarising request failed: {scrub_text(exc.message)} ({exc.code})") from None
        finally:
            unbind()
    if scope.cancelled_caught or cancel.cancelled:
        raise SummaryFailed("cancelled while the summary was written", code="cancelled")
    text = "".join(pieces).strip()
    if not text:
        raise SummaryFailed("the model returned an empty summary")
    return text
