"""One in-process child run: drive, read the result, dispose."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs

from hookspecs import hookimpl
from hookspecs.protocols import FinishRun
from hookspecs.values import (
    CancelCause,
    EventTypes,
    Message,
    StopReasons,
    SubagentRequest,
    SubagentResult,
    TextBlock,
    create_user_message,
    message_from_json,
)

from ..cleanup import shielded_cleanup
from .structured import StructuredCaptureImpl

if TYPE_CHECKING:
    from ..agents.agent import LoopAgent
    from ..agents.registry import AgentHandleImpl

DIAGNOSTIC_LIMIT = 4096
MISSING_OUTPUT_DIAGNOSTIC = (
    "The subagent completed its turn without calling the mandatory structured_output tool; "
    "no structured result was captured."
)

_STOP_FOR_TURN_END = {
    "completed": StopReasons.COMPLETED,
    "max-tokens": StopReasons.MAX_TOKENS,
    "aborted": StopReasons.ABORTED,
    "blocked": StopReasons.REFUSAL,
}


class InProcessRun:
    """Implements :class:`hookspecs.protocols.SubagentRun` for a local child.

    The request's cancel token is the only cancel channel: cancelling it aborts
    the child's turn (or drops the not-yet-started prompt). ``result()`` never
    raises for a child failure; ``dispose()`` is idempotent and always safe.
    """

    def __init__(
        self,
        *,
        handle: AgentHandleImpl,
        request: SubagentRequest,
        capture: StructuredCaptureImpl | None,
        finish: FinishRun | None,
    ) -> None:
        self._handle = handle
        self._agent: LoopAgent = handle.agent
        self._request = request
        self._capture = capture
        self._finish = finish
        self._boundary = self._agent.session.seq
        self._cancelled = False
        self._remove_listener: Any = None
        self._result: SubagentResult | None = None
        self._disposed = False

    @property
    def id(self) -> str:
        return self._agent.id

    @property
    def local_agent(self) -> LoopAgent:
        return self._agent

    @property
    def capture(self) -> StructuredCaptureImpl | None:
        return self._capture

    def start(self) -> None:
        self._remove_listener = self._request.cancel.add_listener(self._on_cancel)
        if not self._cancelled:
            prompt = create_user_message(self._request.prompt, source={"kind": "user"})
            stored = self._request.stored_prompt
            if stored is not None:
                # the log keeps the stored form; the first request swaps the full text back in
                record = attrs.evolve(
                    prompt, content=tuple(stored.content), source={"kind": "user", "stored_prompt": dict(stored.reference)}
                )
                self._agent.scope.add_plugin(_FullPrompt(prompt), name="stored-prompt")
                prompt = record
            self._agent.followup(prompt)

    def _on_cancel(self, reason: Any) -> None:
        self._cancelled = True
        if self._agent.disposed:
            return
        if not self._agent.cancel(CancelCause(by="parent", reason=_reason_text(reason))):
            # not running yet: drop the prompt so the turn never starts
            self._agent.discard_pending()

    async def result(self) -> SubagentResult:
        if self._result is None:
            await self._agent.when_idle()
            if self._result is None:
                self._result = self._read_result()
        return self._result

    async def dispose(self) -> None:
        if self._disposed:
            await self._handle.dispose()  # waits if another disposal is in flight
            return
        self._disposed = True
        self._cancelled = True
        if self._remove_listener is not None:
            self._remove_listener()
        try:
            with shielded_cleanup():
                await self._handle.dispose()
        finally:
            if self._result is None:
                self._result = self._read_result()

    def _read_result(self) -> SubagentResult:
        events = self._agent.session.events_since(self._boundary)
        kind: str | None = None
        reason: dict[str, Any] = {}
        output: tuple[Any, ...] = ()
        for event in events:
            if event.type == EventTypes.TURN_END:
                reason = event.data.get("reason", {}) or {}
                kind = reason.get("kind")
            elif event.type == EventTypes.ASSISTANT_MESSAGE:
                message = message_from_json(event.data["message"])
                texts = tuple(b for b in message.content if isinstance(b, TextBlock) and b.text.strip())
                if texts:
                    output = texts
        recorded = _STOP_FOR_TURN_END.get(kind or "", StopReasons.ERROR)
        stop = StopReasons.ABORTED if self._cancelled and recorded != StopReasons.COMPLETED else recorded
        diagnostic: str | None = None
        if stop == StopReasons.ERROR:
            error = reason.get("error") or {}
            diagnostic = str(error.get("message") or f"the child's turn ended {kind or 'without a turn end'}")
        elif stop == StopReasons.REFUSAL:
            diagnostic = str(reason.get("reason") or "the child's step was blocked")
        structured: Any = None
        if self._capture is not None:
            if self._capture.captured:
                structured = self._capture.value
            elif stop == StopReasons.COMPLETED:
                stop = StopReasons.NO_STRUCTURED_OUTPUT
                diagnostic = MISSING_OUTPUT_DIAGNOSTIC
        result = SubagentResult(
            stop_reason=stop,
            output=output,
            structured=structured,
            diagnostic=diagnostic[:DIAGNOSTIC_LIMIT] if diagnostic else None,
        )
        if self._finish is not None:
            result = self._finish(result, self._agent)
        return result


class _FullPrompt:
    """Puts the full prompt into the child's in-memory history in place of the
    stored form its log holds (same message id), before any request is built.
    ``dsh_agent_request`` runs after the step's messages entered the history
    and before the request is assembled from it."""

    def __init__(self, full: Message) -> None:
        self._full = full
        self._done = False

    @hookimpl(tryfirst=True)
    async def dsh_agent_request(self, agent: Any, call_next: Any) -> Any:
        if not self._done:
            history = agent.history
            for index, message in enumerate(history):
                if message.id == self._full.id:
                    history[index] = self._full
                    self._done = True
        return await call_next()


def _reason_text(reason: Any) -> str | None:
    if reason is None:
        return None
    text = str(getattr(reason, "value", reason))
    return text[:200]
