"""The host's compaction seam (``host.compaction``): the active engine — a
plugin's from ``dsh_register_compaction_engine``, else the built-in one — run
from the right place, then the agent's history rebuilt from the log and the
``dsh_compaction_ended`` observers told.

Engines only append events; the compacted view is always derived from the log
(:class:`~harness.sessions.history.SurfaceFold`, the fold
:func:`~harness.sessions.history.derive_messages` uses on resume), so the live
history and a resumed one agree by construction.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from hookspecs.errors import AgentError, DshError, ManualCompactionError
from hookspecs.protocols import Agent, CompactionEngine
from hookspecs.values import CancelToken, EventTypes, LlmRequest
from hookspecs.values.compaction import CompactionResult, CompactionTrigger

from ..sessions.history import LiveSurfaces

if TYPE_CHECKING:
    from ..hook_facade import HostHooks

#: the failure code of a provider's context-length complaint (openai-compatible adapter)
OVERFLOW_CODE = "CONTEXT_OVERFLOW"


class CompactionService:
    """Implements :class:`hookspecs.protocols.CompactionEngine` for plugins and
    the loop, around the active engine."""

    def __init__(self, *, builtin: CompactionEngine, hooks: HostHooks, surfaces: LiveSurfaces) -> None:
        self.builtin = builtin
        self._surfaces = surfaces
        self._hooks = hooks
        self._registered: CompactionEngine | None = None

    def register(self, engine: object) -> Callable[[], None]:
        if not callable(getattr(engine, "compact_if_needed", None)) or not callable(getattr(engine, "compact_now", None)):
            raise DshError("a compaction engine needs compact_if_needed and compact_now", code="INVALID_ENGINE")
        if self._registered is not None:
            raise DshError("a compaction engine is already registered by another plugin", code="DUPLICATE_ENGINE")
        self._registered = engine  # type: ignore[assignment]

        def dispose() -> None:
            if self._registered is engine:
                self._registered = None

        return dispose

    def forget(self, session_id: str) -> None:
        """An agent of ``session_id`` was disposed: the built-in engine drops what it
        kept for it (a registered engine has the host's hooks for that)."""
        forget = getattr(self.builtin, "forget", None)
        if callable(forget):
            forget(session_id)

    @property
    def engine(self) -> CompactionEngine:
        return self._registered or self.builtin

    # --- CompactionEngine ----------------------------------------------------------------

    async def compact_if_needed(
        self, agent: Agent, trigger: CompactionTrigger, cancel: CancelToken, *, request: LlmRequest | None = None
    ) -> CompactionResult:
        start = agent.session.seq
        result: CompactionResult | None = None
        try:
            result = await self.engine.compact_if_needed(agent, trigger, cancel, request=request)
            return result
        finally:
            self._settle(agent, start, result, None)

    async def compact_now(
        self, agent: Agent, cancel: CancelToken, *, source_command_id: str | None = None
    ) -> CompactionResult:
        start = agent.session.seq
        result: CompactionResult | None = None
        error: ManualCompactionError | None = None

        async def task(token: CancelToken) -> CompactionResult:
            return await self.engine.compact_now(agent, token, source_command_id=source_command_id)

        try:
            result = await agent.run_maintenance(task, cancel)
            assert result is not None
            return result
        except AgentError as exc:
            raise ManualCompactionError(
                f"the agent is busy ({exc.message}); /compact runs when it is idle", code="busy"
            ) from None
        except ManualCompactionError as exc:
            error = exc
            raise
        finally:
            self._settle(agent, start, result, error)

    # --- for the loop ----------------------------------------------------------------------

    async def before_request(self, agent: Agent, request: LlmRequest, cancel: CancelToken) -> bool:
        """Compact when ``request`` would exceed the threshold; True when the
        history changed (rebuild the request)."""
        result = await self.compact_if_needed(agent, "pressure", cancel, request=request)
        return result.compacted

    async def after_overflow(self, agent: Agent, request: LlmRequest, cancel: CancelToken) -> bool:
        """Compact after the provider rejected ``request`` as too long; True
        when the history changed (retry once)."""
        result = await self.compact_if_needed(agent, "context-overflow", cancel, request=request)
        return result.compacted

    # --- internals ----------------------------------------------------------------------------

    def _settle(
        self, agent: Agent, start: int, result: CompactionResult | None, error: ManualCompactionError | None
    ) -> None:
        """After an engine call: rebuild the history when it wrote anything and
        report every ``compaction/end`` it wrote."""
        events = agent.session.events_since(start)
        if not events:
            return
        history = getattr(agent, "history", None)
        if isinstance(history, list):
            history[:] = self._surfaces.of(agent.session).messages
        for event in events:
            if event.type == EventTypes.COMPACTION_END and isinstance(event.data, dict):
                self._hooks.compaction_ended(agent, _result_for(event.data, events, result, error))


def _result_for(
    end: dict[str, Any], events: Any, result: CompactionResult | None, error: ManualCompactionError | None
) -> CompactionResult:
    compaction_id = end.get("compaction_id")
    if result is not None and result.compaction_id == compaction_id:
        return result
    failure = end.get("error")
    trigger: Any = "manual" if error is not None else "pressure"
    for event in events:
        if event.type == EventTypes.COMPACTION_START and event.data.get("compaction_id") == compaction_id:
            trigger = event.data.get("trigger", trigger)
    shadowed: tuple[int, ...] = ()
    for event in events:
        if event.type == EventTypes.COMPACTION_SUMMARY and event.data.get("compaction_id") == compaction_id:
            shadowed = tuple(event.data.get("shadowed_seqs", ()))
    return CompactionResult(
        compacted=failure is None,
        trigger=trigger,
        compaction_id=compaction_id if isinstance(compaction_id, str) else None,
        shadowed_seqs=shadowed if failure is None else (),
        reason=str(failure.get("message", "")) if isinstance(failure, dict) else "",
        error=failure if isinstance(failure, dict) else None,
    )
