"""Turning a scripted reply into stream chunks, and playing them over trio."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence

import trio

from hookspecs.errors import LlmError
from hookspecs.values.cancel import CancelToken
from hookspecs.values.llm import FinishChunk, ReasoningDelta, StreamChunk, TextDelta, ToolCallDelta

from .script import Reply


def split_text(text: str, size: int) -> list[str]:
    """``text`` in pieces of at most ``size`` characters (none for "")."""
    return [text[i : i + size] for i in range(0, len(text), size)]


def split_arguments(text: str, size: int) -> list[str]:
    """Argument JSON in fragments: at least two whenever it has two characters,
    so every scripted tool call exercises the host's delta assembly."""
    if len(text) < 2:
        return [text]
    return split_text(text, min(size, (len(text) + 1) // 2))


def content_chunks(reply: Reply, *, chunk_size: int, call_ids: Sequence[str]) -> list[StreamChunk]:
    """Every chunk of ``reply`` except the finish, in streaming order."""
    chunks: list[StreamChunk] = [ReasoningDelta(text=part) for part in split_text(reply.reasoning, chunk_size)]
    chunks.extend(TextDelta(text=part) for part in split_text(reply.text, chunk_size))
    for index, call in enumerate(reply.tool_calls):
        first, *rest = split_arguments(call.arguments, chunk_size)
        chunks.append(ToolCallDelta(index=index, id=call_ids[index], name=call.name, arguments=first))
        chunks.extend(ToolCallDelta(index=index, arguments=part) for part in rest)
    if reply.usage is not None:
        chunks.append(reply.usage)
    return chunks


async def play(
    reply: Reply,
    cancel: CancelToken,
    *,
    chunk_size: int,
    call_ids: Sequence[str],
) -> AsyncIterator[StreamChunk]:
    """Stream ``reply``: optional delay, content chunks, then finish, error or hang.

    Each chunk follows a checkpoint so trio cancellation can land between them;
    a cancelled ``cancel`` token raises :class:`hookspecs.values.cancel.Cancelled`.
    """
    if reply.delay_seconds > 0:
        with trio.move_on_after(reply.delay_seconds):
            await cancel.wait()
    chunks = content_chunks(reply, chunk_size=chunk_size, call_ids=call_ids)
    if reply.error is not None:
        chunks = chunks[: reply.error.after_chunks]
    for chunk in chunks:
        await trio.lowlevel.checkpoint()
        cancel.raise_if_cancelled()
        yield chunk
    await trio.lowlevel.checkpoint()
    cancel.raise_if_cancelled()
    if reply.error is not None:
        spec = reply.error
        raise LlmError(
            spec.message,
            code=spec.code,
            status=spec.status,
            retryable=spec.retryable,
            retry_after=spec.retry_after,
        )
    if reply.hang:
        # Only a trio cancel scope or the token ends this wait.
        await cancel.wait()
        cancel.raise_if_cancelled()
    yield FinishChunk(reason=reply.finish_reason)
