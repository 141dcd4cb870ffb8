"""Scripted-model helpers shared by the host benchmarks in ``bench/``.

:class:`RoutedAdapter` answers every request in O(1): it picks its reply from
the request's shape instead of scanning a script of one-shot responses (what
``ScriptedAdapter`` does, at O(script length) per request), and it does not
keep every request (``ScriptedAdapter.requests`` would hold each request's
whole history: quadratic memory over thousands of turns). The replies are
ordinary scripted :class:`~harness.llm.script.Response` objects played by the
stock playback code, so the loop sees exactly what the scripted adapter
streams.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from harness.llm.placeholders import resolve as resolve_placeholders
from harness.llm.playback import play
from harness.llm.script import Response
from harness.llm.scripted import ScriptedAdapter
from hookspecs.values.cancel import CancelToken
from hookspecs.values.llm import LlmRequest, StreamChunk


class RoutedAdapter(ScriptedAdapter):
    """A scripted adapter whose script has exactly three responses, in order:

    0. the root's first step (usually a tool call),
    1. the root's answer once the last message is a tool result,
    2. a plain one-reply answer: any child request (``delegation_depth >= 1``),
       and any request for the model :attr:`REPLY_MODEL` (so a root can be given
       the same one-reply turn a child gets).
    """

    REPLY_MODEL = "reply-only"

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        if len(self.script.responses) != 3:
            raise ValueError("RoutedAdapter needs exactly three responses: root call, root answer, child reply")
        self.count = 0
        self.by_route = [0, 0, 0]

    def route(self, request: LlmRequest) -> int:
        depth = request.metadata.get("delegation_depth", 0)
        if (isinstance(depth, int) and depth >= 1) or request.model == self.REPLY_MODEL:
            return 2
        if request.messages and request.messages[-1].role == "tool":
            return 1
        return 0

    def _take(self, request: LlmRequest, number: int) -> Response:
        index = self.route(request)
        self.by_route[index] += 1
        return self.script.responses[index]

    async def stream(self, request: LlmRequest, cancel: CancelToken) -> AsyncIterator[StreamChunk]:
        # as ScriptedAdapter.stream, minus ``self.requests.append(request)``
        self.count += 1
        number = self.count
        response = self._take(request, number)
        call_ids = [call.id or f"call-{number}-{i}" for i, call in enumerate(response.reply.tool_calls)]
        reply = resolve_placeholders(response.reply, request)
        async for chunk in play(reply, cancel, chunk_size=self._chunk_size, call_ids=call_ids):
            yield chunk
