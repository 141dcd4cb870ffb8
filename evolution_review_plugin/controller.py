"""The delivery contract: when a review is delivered, and how.

Per root session, in ``turn/end`` order (one lock per session):

1. The turn is counted (:func:`signals.advance`). A turn this plugin woke with
   a ``followup`` counts, but cannot fire cadence or completion.
2. Not ``completed``: a fired kind only latches (last wins, one warning).
3. ``completed``: the flush runs first with ``pending = latch ?? kind``; it
   delivers (inject: the prompt; subagent: a plan, else the prompt), zeroes and
   persists both windows, clears the latch, and returns — so one boundary
   serves one review. A refused delivery keeps latch and windows for the next
   completed boundary.
4. Otherwise the completion channel (``skillReviewTrigger`` completion|both,
   once per session, after ``skillReviewCompletionMinToolCalls`` tool calls).

The live knobs (intervals, mode, trigger, wake) are read once per turn end
(:class:`~.live.Knobs`), so a change a person makes applies at the next
boundary.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import attrs
import trio

from hookspecs.errors import DshError
from hookspecs.values import EventTypes, SessionEvent, TurnEndKinds

from .delivery import Delivered, deliver_message, notice_message
from .plan import applied_payload
from .prompts import COMPLETION_SKILL_REVIEW_PROMPT, report_notice, review_prompt
from .reviewer import COALESCED
from .signals import Counters, ReviewKind, Thresholds, TurnSignals, advance, event_message, fold_turn
from .sweep import sweep
from .vocabulary import PLAN_APPLIED, REVIEW_SCHEDULED

if TYPE_CHECKING:
    from hookspecs.protocols import Agent, Session

    from .config import Effective
    from .live import Knobs
    from .reviewer import Reviewer
    from .state_store import ReviewStateStore


@attrs.define(eq=False)
class SessionReview:
    """One root session's review state."""

    counters: Counters
    lock: trio.Lock = attrs.field(factory=trio.Lock)
    turn_starts: dict[int, int] = attrs.field(factory=dict)
    latched: ReviewKind | None = None
    latch_warned: bool = False
    reset_warned: bool = False
    save_warned: bool = False
    completion_injected: bool = False
    #: ids of messages delivered with followup: the turns they start were woken by us
    woke: set[str] = attrs.field(factory=set)


class ReviewController:
    def __init__(
        self,
        settings: Effective,
        *,
        store: ReviewStateStore,
        reviewer: Reviewer,
        agent_of: Callable[[str], Agent | None],
        knobs: Callable[[], Knobs],
        emit: Callable[[str, Mapping[str, Any]], None],
        logger: logging.Logger,
        on_prompt: Callable[[str, str], None] = lambda session_id, message_id: None,
    ) -> None:
        self.settings = settings
        self.store = store
        self.reviewer = reviewer
        self.agent_of = agent_of
        self.knobs = knobs
        self.emit = emit
        self.logger = logger
        #: ``on_prompt(session id, message id)`` after a review prompt (not a notice) went out
        self.on_prompt = on_prompt
        self.sessions: dict[str, SessionReview] = {}

    def thresholds(self, knobs: Knobs) -> Thresholds:
        settings = self.settings
        return Thresholds(
            memory_interval=knobs.review_memory_interval,
            skill_interval=knobs.review_skill_interval,
            min_tool_calls=settings.min_tool_calls,
            min_user_chars=settings.min_user_chars,
            min_agent_chars=settings.min_agent_chars,
        )

    def state(self, session_id: str) -> SessionReview:
        state = self.sessions.get(session_id)
        if state is None:
            sweep(self.sessions, lambda sid: self.agent_of(sid) is not None)
            state = self.sessions[session_id] = SessionReview(counters=self.store.load(session_id))
        return state

    def forget(self, session_id: str) -> None:
        self.sessions.pop(session_id, None)

    # --- observer side (synchronous, no appends) -----------------------------------------------

    def on_turn_start(self, session: Session, event: SessionEvent) -> None:
        turn = event.data.get("turn") if isinstance(event.data, dict) else None
        if isinstance(turn, int):
            self.state(session.id).turn_starts[turn] = event.seq

    # --- the turn end (a background task) ------------------------------------------------------

    async def on_turn_end(self, session: Session, event: SessionEvent) -> None:
        state = self.state(session.id)
        async with state.lock:
            await self._turn_end(session, event, state)

    async def _turn_end(self, session: Session, event: SessionEvent, state: SessionReview) -> None:
        data = event.data if isinstance(event.data, dict) else {}
        turn = data.get("turn")
        if not isinstance(turn, int):
            return
        start = state.turn_starts.pop(turn, event.seq)
        events = session.events[start : event.seq + 1]
        signals = fold_turn(turn, events)
        knobs = self.knobs()  # once per boundary: a live change applies from the next one
        before = state.counters
        state.counters, kind = advance(before, signals, self.thresholds(knobs))
        if state.counters != before:
            self._save(session.id, state, resetting=False)
        woken = self._woken_by_us(events, state)
        if woken:
            kind = None  # the delivery's own turn: counts, never re-fires
        reason = data.get("reason")
        completed = isinstance(reason, dict) and reason.get("kind") == TurnEndKinds.COMPLETED
        if not completed:
            if kind is not None:
                state.latched = kind  # last trigger wins
                if not state.latch_warned:
                    state.latch_warned = True
                    self.logger.warning(
                        "evolution-review: a %s review is due in %s; it waits for a completed turn", kind, session.id
                    )
            return
        agent = self.agent_of(session.id)
        if agent is None or agent.disposed:
            if kind is not None:
                state.latched = kind
            return
        pending = state.latched if state.latched is not None else kind
        if pending is not None:
            if await self._flush(agent, pending, signals, state, knobs):
                state.latched = None
                state.counters = attrs.evolve(state.counters, turns_since_memory=0, turns_since_skill=0)
                self._save(session.id, state, resetting=True)
            else:
                state.latched = pending  # retried at the next completed boundary
            return  # one boundary, one review: never also the completion channel
        if not woken:
            self._completion(agent, state, knobs)

    def _woken_by_us(self, events: Any, state: SessionReview) -> bool:
        for event in events:
            if event.type == EventTypes.USER_MESSAGE:
                message = event_message(event)
                if message is not None and message.id in state.woke:
                    state.woke.discard(message.id)
                    return True
        return False

    # --- the two channels -------------------------------------------------------------------------

    async def _flush(
        self, agent: Agent, kind: ReviewKind, signals: TurnSignals, state: SessionReview, knobs: Knobs
    ) -> bool:
        """Deliver the pending review; False when nothing could be delivered."""
        if knobs.review_mode == "subagent":
            report = await self.reviewer.review(agent, kind, signals)
            if report == COALESCED:
                return False  # the same (session, kind) is in flight: keep the latch, no prompt
            if report is not None:
                self.emit(REVIEW_SCHEDULED, self._scheduled(agent, kind, signals))
                notice = report_notice(report)
                self.emit(PLAN_APPLIED, applied_payload(report, session_id=agent.id, kind=kind))
                # the plan already landed: a refused notice must not re-run the review
                self._deliver(agent, notice, "review result", state, knobs, prompt=False)
                return True
        if self._deliver(agent, review_prompt(kind), f"{kind} review", state, knobs) == "refused":
            return False
        self.emit(REVIEW_SCHEDULED, self._scheduled(agent, kind, signals))
        return True

    def _completion(self, agent: Agent, state: SessionReview, knobs: Knobs) -> None:
        if knobs.skill_review_trigger not in ("completion", "both") or state.completion_injected:
            return
        if state.counters.tool_calls_total < knobs.skill_review_completion_min_tool_calls:
            return
        state.completion_injected = True
        if self._deliver(agent, COMPLETION_SKILL_REVIEW_PROMPT, "completion skill review", state, knobs) == "refused":
            state.completion_injected = False  # rolled back: the next completed boundary retries
            return
        self.emit(REVIEW_SCHEDULED, {"sessionId": agent.id, "kind": "skill", "toolCalls": state.counters.tool_calls_total})

    def _deliver(
        self, agent: Agent, text: str, summary: str, state: SessionReview, knobs: Knobs, *, prompt: bool = True
    ) -> Delivered:
        message = notice_message(text, summary)
        how = deliver_message(agent, message, wake=knobs.review_wake_inject, logger=self.logger)
        if how == "followup":
            state.woke.add(message.id)
        if prompt and how != "refused":
            self.on_prompt(agent.id, message.id)  # the review runs in this session now
        return how

    @staticmethod
    def _scheduled(agent: Agent, kind: ReviewKind, signals: TurnSignals) -> dict[str, Any]:
        return {
            "sessionId": agent.id,
            "kind": kind,
            "toolCalls": signals.tool_calls,
            "userChars": signals.user_chars,
            "assistantChars": signals.assistant_chars,
        }

    def _save(self, session_id: str, state: SessionReview, *, resetting: bool) -> None:
        try:
            # synchronous: a small file, and a thread would let MockClock jump past deadlines
            self.store.save(session_id, state.counters)
        except DshError as exc:
            # warned once per session: a stateful reload may deliver a review again
            flag = "reset_warned" if resetting else "save_warned"
            if not getattr(state, flag):
                setattr(state, flag, True)
                what = "the review-window reset" if resetting else "the review windows"
                self.logger.warning("evolution-review: cannot persist %s of %s: %s", what, session_id, exc)
