"""``subagent`` mode: one one-shot review child, its plan, and its disposal.

:meth:`Reviewer.review` returns the executed plan's report; :data:`COALESCED`
when a review of the same (session, kind) is already in flight (the trigger
waits for the next completed boundary: no second child, no prompt); or None
when the caller must fall back to delivering the review prompt: no subagent
service, a review of another session or kind in flight (one child per
process), the run failed, timed out or never settled, or no structured plan
came back. ``reviewTimeoutMs`` is a cancel scope around the run, and a handle
that has not settled ``SETTLE_GRACE_SECONDS`` after it is abandoned
(:mod:`.watchdog`); the child is disposed on every exit path (shielded,
bounded). In an interactive host the plan's skill writes are staged for
approval (:mod:`.staging`) with its memory notes, instead of applied.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final, Literal

import attrs
import trio

from hookspecs.scrub import scrub_text
from hookspecs.stores import MemoryOp, MemoryStore, SkillLibrary
from hookspecs.values import (
    AgentOptions,
    CancelToken,
    EventTypes,
    SubagentRequest,
    TextBlock,
    ToolFilter,
    loads_strict,
)

from .plan import OUTPUT_SCHEMA, PlanReport, SkillOp, Stage, execute_plan, policy_fingerprint, validate_plan
from .prompts import plan_persona, review_request
from .signals import ReviewKind, TurnSignals
from .vocabulary import CHILD_LABEL, REVIEW_ERROR, SKILL_TOOL
from .watchdog import SETTLE_GRACE_SECONDS, settle

if TYPE_CHECKING:
    import logging
    from collections.abc import Sequence

    from hookspecs.protocols import Agent, Host, SubagentRun
    from hookspecs.values import SubagentResult

    from .config import Effective
    from .staging import SkillStaging

#: the stock provider of one-shot children
PROVIDER: Final = "spawn"
#: bound on disposing a child (shielded)
DISPOSE_SECONDS: Final = 10.0
#: a trigger served by the review already in flight for its (session, kind)
COALESCED: Final = "coalesced"
Review = PlanReport | Literal["coalesced"] | None


def new_plan_id() -> str:
    return uuid.uuid4().hex[:12]


class Reviewer:
    def __init__(
        self,
        host: Host,
        settings: Effective,
        *,
        memory: Callable[[], MemoryStore | None],
        skills: Callable[[], SkillLibrary | None],
        emit: Callable[[str, Mapping[str, Any]], None],
        logger: logging.Logger,
        staging: SkillStaging | None = None,
    ) -> None:
        self.host = host
        self.settings = settings
        self.memory = memory
        self.skills = skills
        self.emit = emit
        self.logger = logger
        #: where skill writes wait for approval; used only when the host can ask a person
        self.staging = staging
        #: the (session id, kind) of the review in flight: one child per process
        self.in_flight: tuple[str, ReviewKind] | None = None

    def _model(self, kind: ReviewKind) -> str | None:
        config = self.settings.config
        return config.memory_review_model if kind == "memory" else config.skill_review_model

    def _request(self, agent: Agent, kind: ReviewKind, text: str, token: CancelToken) -> SubagentRequest:
        config = self.settings.config
        return SubagentRequest(
            label=CHILD_LABEL,
            prompt=(TextBlock(text=text),),
            parent=agent,
            cancel=token,
            # provider omitted: the child inherits the deployment's (the parent's) route
            agent_options=AgentOptions(provider=config.review_provider, model=self._model(kind)),
            output_schema=OUTPUT_SCHEMA,
            max_depth=self.settings.review_max_depth,
            tool_filter=ToolFilter.of(allow=config.review_tool_allow),
            persona=plan_persona(kind),
        )

    async def review(self, agent: Agent, kind: ReviewKind, signals: TurnSignals | None) -> Review:
        subagents = getattr(self.host, "subagents", None)
        if subagents is None:
            return None
        if self.in_flight is not None:
            if self.in_flight == (agent.id, kind):
                self.logger.info("evolution-review: a %s review of %s is in flight; this trigger waits", kind, agent.id)
                return COALESCED
            return None
        self.in_flight = (agent.id, kind)
        token = CancelToken()
        run: SubagentRun | None = None
        try:
            deadline_at = trio.current_time() + self.settings.review_timeout_s
            text = review_request(
                kind,
                signals,
                agent.session.events,
                context_messages=self.settings.review_context_messages,
                message_chars=self.settings.review_message_chars,
            )
            # the start is not cut short: a start cancelled half-way would leave a
            # child nobody disposes; the deadline still counts from before it
            run = await subagents.start(PROVIDER, self._request(agent, kind, text, token))
            result = await self._result(agent, run, deadline_at, token)
            if result is None:
                return None
            return self._execute(agent, run, result, plan_id=new_plan_id(), input_chars=len(text))
        except Exception as exc:  # any failure falls back to the prompt
            why = f"{type(exc).__name__}: {exc}"
            self.logger.warning("evolution-review: review of %s failed: %s", agent.id, scrub_text(why, limit=500))
            self._error(agent, why)
            return None
        finally:
            self.in_flight = None  # freed before the disposal: a hung dispose holds no slot
            if run is not None:
                with trio.CancelScope(shield=True), trio.move_on_after(DISPOSE_SECONDS):
                    await run.dispose()

    async def _result(
        self, agent: Agent, run: SubagentRun, deadline_at: float, token: CancelToken
    ) -> SubagentResult | None:
        """The run's result; None (after one ``review-error``) when there is no usable one."""
        timeout_ms = f"{self.settings.config.review_timeout_ms:g} ms"
        waited = await settle(
            self.host.spawn,
            run.result,
            deadline=deadline_at,
            grace=SETTLE_GRACE_SECONDS,
            on_deadline=lambda: token.cancel("timeout"),
            name="evolution-review:result",
        )
        if waited.ending == "unsettled":
            self._error(
                agent,
                f"the review handle did not settle within reviewTimeoutMs ({timeout_ms}) + "
                f"{SETTLE_GRACE_SECONDS:g} s; abandoned",
            )
            return None
        if waited.ending == "timeout":
            token.cancel("timeout")
            self._error(agent, f"the review run exceeded reviewTimeoutMs ({timeout_ms})")
            return None
        if waited.error is not None:
            raise waited.error
        result = waited.value
        assert result is not None
        if result.structured is None:
            self._error(agent, f"the review returned no plan (stop reason {result.stop_reason})")
            return None
        return result

    def _execute(self, agent: Agent, run: SubagentRun, result: SubagentResult, *, plan_id: str, input_chars: int) -> PlanReport:
        reads = skills_read_by(run.local_agent)  # before dispose: the child's log
        library = self.skills()
        settings = self.settings
        plan = validate_plan(result.structured, max_ops=settings.max_ops_per_plan, library=library, read_by_child=reads)
        if isinstance(plan, str):
            report = PlanReport(rejected=(plan,))
        else:
            stage = self._stager(agent, plan_id, plan.summary, library)
            report = execute_plan(plan, memory=self.memory(), library=library, stage=stage)
        return attrs.evolve(
            report,
            plan_id=plan_id,
            policy_fingerprint=policy_fingerprint(settings),
            estimated_input_chars=input_chars,
        )

    def _stager(self, agent: Agent, plan_id: str, summary: str, library: SkillLibrary | None) -> Stage | None:
        """Stage the plan's memory notes and skill writes when a person can
        approve them (an interactive host: ``host.headless`` is false, the same
        test that makes the ``skill`` tool ask); a headless host applies them."""
        staging = self.staging
        if staging is None or getattr(self.host, "headless", True):
            return None

        def stage(memory_ops: Sequence[MemoryOp], skill_ops: Sequence[SkillOp]) -> None:
            staging.stage(
                plan_id, skill_ops, memory_ops=memory_ops, session_id=agent.id, summary=summary, library=library
            )

        return stage

    def _error(self, agent: Agent, why: str) -> None:
        # an exception's text may echo a provider's key or carry control sequences
        reason = scrub_text(why, limit=500)
        self.logger.info("evolution-review: %s: %s", agent.id, reason)
        self.emit(REVIEW_ERROR, {"sessionId": agent.id, "reason": reason})


def skills_read_by(child: Agent | None) -> frozenset[str]:
    """Names of the skills the child read successfully (``skill`` ``read`` calls
    whose result was not an error)."""
    if child is None:
        return frozenset()
    events = child.session.events
    wanted: dict[str, str] = {}
    read: set[str] = set()
    for event in events:
        data = event.data if isinstance(event.data, dict) else {}
        if event.type == EventTypes.TOOL_CALL and data.get("name") == SKILL_TOOL:
            try:
                args = loads_strict(data.get("arguments") or "")
            except ValueError:
                continue
            if isinstance(args, dict) and args.get("action") == "read" and isinstance(args.get("name"), str):
                wanted[str(data.get("call_id"))] = args["name"]
        elif event.type == EventTypes.TOOL_RESULT and not data.get("error"):
            name = wanted.get(str(data.get("call_id")))
            if name is not None:
                read.add(name)
    return frozenset(read)
