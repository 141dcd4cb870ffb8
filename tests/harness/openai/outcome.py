"""One model call through an adapter, as the tests of its HTTP client read it."""

from __future__ import annotations

from contextlib import aclosing

from harness.llm.openai_compat import OpenAICompatibleAdapter
from hookspecs.errors import LlmError
from hookspecs.values.cancel import CancelToken
from hookspecs.values.llm import LlmRequest, StreamChunk
from hookspecs.values.messages import create_user_message


def request() -> LlmRequest:
    return LlmRequest(provider="p", model="m", system="", messages=(create_user_message("hi"),))


async def outcome(a: OpenAICompatibleAdapter, *, close: bool = False) -> tuple[list[StreamChunk], LlmError | None]:
    """The chunks of one call of ``a`` and the error that ended it (None: it
    ended well); ``close`` closes the adapter's connections after."""
    chunks: list[StreamChunk] = []
    try:
        async with aclosing(a.stream(request(), CancelToken())) as stream:  # type: ignore[type-var]
            async for chunk in stream:
                chunks.append(chunk)
    except LlmError as error:
        return chunks, error
    finally:
        if close:
            await a.aclose()
    return chunks, None
