"""The imported session's own model: it records a relayed finding and answers nothing.

An imported session mirrors an agent that runs in another host, so when a
Shadow report is relayed into it, its root must not ask a real model to act
on it. This plugin routes that root's requests (and only that root's; the
reviewer child keeps its own route) to a provider that ends the step at once
with a fixed note, so the relay enters the history, the run settles as a
report, and no request leaves the machine for the mirror.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any

import attrs

from hookspecs import hookimpl
from hookspecs.protocols import LlmAdapter
from hookspecs.values import LlmCallConfig
from hookspecs.values.llm import FinishChunk, LlmRequest, ModelInfo, StreamChunk, TextDelta

PROVIDER = "transcript-mirror"
MODEL = "recorded"
NOTE = "(Recorded for the reviewed agent, which runs in its own host; this imported session does not act on it.)"


class MirrorAdapter:
    """Implements :class:`hookspecs.protocols.LlmAdapter`: one fixed note, no I/O."""

    @property
    def provider(self) -> str:
        return PROVIDER

    def models(self) -> Sequence[ModelInfo]:
        return (ModelInfo(id=MODEL),)

    async def stream(self, request: LlmRequest, cancel: Any) -> AsyncIterator[StreamChunk]:
        yield TextDelta(text=NOTE)
        yield FinishChunk(reason="stop")


class MirrorPlugin:
    """Registers the adapter and routes the imported root's requests to it."""

    def __init__(self, session_id: str) -> None:
        self.session_id = session_id

    @hookimpl
    def dsh_register_llm_adapters(self, register: Callable[[LlmAdapter], None]) -> None:
        register(MirrorAdapter())

    @hookimpl
    async def dsh_agent_request(
        self,
        agent: Any,
        turn: int,
        step: int,
        config: LlmCallConfig,
        call_next: Callable[..., Awaitable[LlmCallConfig]],
    ) -> LlmCallConfig:
        chosen = await call_next(config=config)
        if agent.id != self.session_id:
            return chosen
        return attrs.evolve(chosen, provider=PROVIDER, model=MODEL, reasoning_effort=None)
