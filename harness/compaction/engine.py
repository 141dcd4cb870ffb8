"""The host's own compaction engine: decides, summarises with the session's
model, and writes the trace (:mod:`.commit`)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

import trio

from hookspecs.errors import LlmError, ManualCompactionError, SessionError
from hookspecs.protocols import Agent, LlmService, Session
from hookspecs.scrub import scrub_text
from hookspecs.values import CancelToken, EventTypes, LlmRequest, Notice, SessionEvent
from hookspecs.values.compaction import CompactionResult, CompactionTrigger

from ..sessions.history import HISTORY_TYPES, LiveSurfaces
from .backoff import RetryBackoff
from .estimate import RequestEstimator, message_tokens, messages_tokens, request_tokens
from .policy import UNKNOWN_WINDOW_INPUT_TOKENS, CompactionSettings, choose_cut, under_pressure

if TYPE_CHECKING:
    from collections.abc import Sequence


class _Failed(Exception):
    def __init__(self, code: str, message: str, compaction_id: str | None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.compaction_id = compaction_id


class BuiltinCompactionEngine:
    """Implements :class:`hookspecs.protocols.CompactionEngine`.

    ``route(agent)`` is the (provider, model) the agent's next request uses; the
    summary is made by that model and bounded by its window. A failed automatic
    compaction pauses pressure compaction of its session (:mod:`.backoff`) and
    tells the person once, through ``notify``.
    """

    def __init__(
        self,
        *,
        llm: LlmService,
        settings: Callable[[], CompactionSettings],
        route: Callable[[Agent], tuple[str, str]],
        surfaces: LiveSurfaces,
        logger: logging.Logger,
        notify: Callable[[Notice], None] | None = None,
    ) -> None:
        self._surfaces = surfaces
        self._llm = llm
        self._settings = settings
        self._route = route
        self._logger = logger
        self._active: set[str] = set()  # session ids with an open compaction (the lock)
        self._estimator = RequestEstimator()
        self._backoff = RetryBackoff()
        self._notify = notify

    def window(self, provider: str, model: str) -> int | None:
        info = self._llm.model_info(provider, model)
        return info.context_window if info is not None else None

    async def compact_if_needed(
        self, agent: Agent, trigger: CompactionTrigger, cancel: CancelToken, *, request: LlmRequest | None = None
    ) -> CompactionResult:
        settings = self._settings()
        if not settings.enabled:
            return CompactionResult(compacted=False, trigger=trigger, reason="automatic compaction is disabled")
        if not agent.is_root:
            # a subagent's history is its delegated prompt and a short run: summarising it would
            # hide the task itself, so only root sessions compact automatically
            return CompactionResult(compacted=False, trigger=trigger, reason="only root sessions compact automatically")
        provider, model = (request.provider, request.model) if request is not None else self._route(agent)
        window = self.window(provider, model)
        if window is None:
            return CompactionResult(compacted=False, trigger=trigger, reason=f"no context window known for {provider}/{model}")
        tokens = self._estimator.tokens(agent.session.id, request) if request is not None else 0
        if trigger == "pressure":
            if request is None or not under_pressure(tokens, window, settings):
                return CompactionResult(compacted=False, trigger=trigger, reason="the request fits")
            skip = self._backoff.skip(agent.session.id, tokens, window)
            if skip is not None:
                return CompactionResult(compacted=False, trigger=trigger, reason=skip.reason)
        keep = int(settings.keep_recent * window)
        if trigger == "context-overflow":
            # the catalog overstated the window: keep nothing verbatim that a summary can
            # stand for, and size the summarising request well below the rejected one
            keep = 0
            if request is not None:
                window = min(window, max(request_tokens(request) // 2, 256))
        try:
            result = await self._run(
                agent, trigger, cancel, route=(provider, model), window=window, keep=keep, settings=settings,
                turn=_open_turn(agent), source_command_id=None,
            )
        except _Failed as exc:
            self._logger.warning("session %s: automatic compaction failed: %s", agent.id, exc.message)
            if self._backoff.failed(agent.session.id, exc.code, tokens):
                self._tell_paused(agent, exc)
            return CompactionResult(
                compacted=False, trigger=trigger, compaction_id=exc.compaction_id, reason=exc.message,
                error={"code": exc.code, "message": exc.message},
            )
        if result.compacted:
            self._backoff.succeeded(agent.session.id)
        return result

    def forget(self, session_id: str) -> None:
        """The session's agent was disposed: drop its request count and pause."""
        self._estimator.forget(session_id)
        self._backoff.succeeded(session_id)

    def remembered(self) -> int:
        """Sessions this engine holds state for (counted requests or a pause)."""
        return max(self._estimator.remembered(), self._backoff.paused())

    def _tell_paused(self, agent: Agent, exc: _Failed) -> None:
        if self._notify is None:
            return
        wait = self._backoff.wait_after(agent.session.id)
        text = (
            f"automatic compaction failed ({exc.code}): {scrub_text(exc.message, limit=300)}; "
            f"it is tried again after {wait} requests or once the history grew, /compact tries now"
        )
        self._notify(Notice(level="warning", text=text, session_id=agent.id))

    async def compact_now(
        self, agent: Agent, cancel: CancelToken, *, source_command_id: str | None = None
    ) -> CompactionResult:
        settings = self._settings()
        try:
            provider, model = self._route(agent)
        except LlmError as exc:
            raise ManualCompactionError(f"no model to write the summary: {exc.message}", code="summary") from None
        window = self.window(provider, model)
        # a manual run also shrinks a history that fits: at most half of it stays verbatim
        keep = int(settings.keep_recent * window) if window is not None else 0
        keep = min(keep, messages_tokens(self._surfaces.of(agent.session).messages) // 2)
        try:
            result = await self._run(
                agent, "manual", cancel, route=(provider, model), window=window, keep=keep, settings=settings,
                turn=None, source_command_id=source_command_id,
            )
        except _Failed as exc:
            raise ManualCompactionError(exc.message, code=exc.code) from None
        if result.compacted:
            self._backoff.succeeded(agent.session.id)
        return result

    async def _run(
        self,
        agent: Agent,
        trigger: CompactionTrigger,
        cancel: CancelToken,
        *,
        route: tuple[str, str],
        window: int | None,
        keep: int,
        settings: CompactionSettings,
        turn: int | None,
        source_command_id: str | None,
    ) -> CompactionResult:
        # what writes a compaction loads when one runs, not with every host (the
        # pressure check before each request needs only the estimate and the policy)
        from .commit import checkpoint_message, close_compaction, open_compaction, write_checkpoint, write_summary
        from .summarize import SummaryFailed, stream_summary, summary_request

        session = agent.session
        if session.id in self._active:
            raise _Failed("busy", "another compaction of this session is running", None)
        if cancel.cancelled:
            raise _Failed("cancelled", "cancelled before the compaction started", None)
        fold = self._surfaces.of(session)
        messages, seqs = list(fold.messages), list(fold.seqs)  # copies: the fold moves on
        tokens = [message_tokens(message) for message in messages]
        cut = choose_cut(messages, tokens, keep)
        if cut == 0:
            return CompactionResult(compacted=False, trigger=trigger, reason="nothing to compact")
        self._active.add(session.id)
        try:
            compaction_id = open_compaction(session, trigger=trigger, turn=turn, source_command_id=source_command_id)
        except SessionError as exc:
            self._active.discard(session.id)
            raise _Failed("persistence", f"the compaction could not be recorded: {exc.message}", None) from None
        shadowed = seqs[:cut]
        provider, model = route
        try:
            max_tokens = settings.summary_max_tokens if window is None else min(settings.summary_max_tokens, max(64, window // 4))
            request = summary_request(
                messages[:cut], provider=provider, model=model, window=window, max_tokens=max_tokens,
                input_tokens=UNKNOWN_WINDOW_INPUT_TOKENS,
                metadata={"session_id": session.id, "delegation_depth": session.header.delegation_depth},
            )
            watermark = session.seq
            summary = await stream_summary(self._llm.stream, request, cancel)
            if _surface_changed(session.events_since(watermark)):
                raise SummaryFailed("the history changed while the summary was written", code="changed")
            checkpoint = checkpoint_message(compaction_id, summary, source_command_id)
            write_summary(
                session, compaction_id=compaction_id, summary=summary, shadowed_seqs=shadowed,
                shadowed_tokens=sum(tokens[:cut]), provider=provider, model=model,
            )
            write_checkpoint(
                session, message=checkpoint, shadowed_seqs=shadowed, positions=(0, cut), turn=turn, step=None
            )
            close_compaction(session, compaction_id)
        except SummaryFailed as exc:
            _close_failed(session, compaction_id, exc.code, str(exc))
            raise _Failed(exc.code, str(exc), compaction_id) from None
        except SessionError as exc:
            code = "persistence" if getattr(session, "write_failure", None) is not None else "commit"
            _close_failed(session, compaction_id, code, f"the compaction could not be recorded: {exc.message}")
            raise _Failed(code, f"the compaction could not be recorded: {exc.message}", compaction_id) from None
        except BaseException as exc:  # a cancelled turn, or a bug: the trace still closes
            cancelled = isinstance(exc, trio.Cancelled)
            text = "cancelled" if cancelled else f"the compaction failed: {type(exc).__name__}"
            _close_failed(session, compaction_id, "cancelled" if cancelled else "commit", text)
            raise
        finally:
            self._active.discard(session.id)
        after = message_tokens(checkpoint) + sum(tokens[cut:])
        return CompactionResult(
            compacted=True, trigger=trigger, compaction_id=compaction_id, shadowed_seqs=tuple(shadowed),
            tokens_before=sum(tokens), tokens_after=after,
        )


def _close_failed(session: Session, compaction_id: str, code: str, message: str) -> None:
    """``compaction/end`` with ``error``, unless the log cannot take it (repair closes it on load)."""
    from .commit import close_compaction

    try:
        close_compaction(session, compaction_id, {"code": code, "message": message})
    except SessionError:
        pass


def _surface_changed(events: Sequence[SessionEvent]) -> bool:
    return any(event.type in HISTORY_TYPES for event in events)


def _open_turn(agent: Agent) -> int | None:
    """The number of the turn that is open in the agent's log (None between turns)."""
    events = agent.session.events
    for index in range(len(events) - 1, -1, -1):
        event = events[index]
        if event.type == EventTypes.TURN_END:
            return None
        if event.type == EventTypes.TURN_START:
            turn = event.data.get("turn") if isinstance(event.data, dict) else None
            return turn if type(turn) is int else None
    return None
