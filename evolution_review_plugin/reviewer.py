"""``subagent`` mode: one one-shot review child, its plan, and its disposal.

:meth:`Reviewer.review` returns the applied plan's report, or None when the
caller must fall back to delivering the review prompt: no subagent service,
a review already in flight (one per process), the run failed or timed out,
or no structured plan came back. ``reviewTimeoutMs`` is a cancel scope around
the run; the child is disposed on every exit path (shielded, bounded).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final

import trio

from hookspecs.stores import MemoryStore, SkillLibrary
from hookspecs.values import (
    AgentOptions,
    CancelToken,
    EventTypes,
    SubagentRequest,
    TextBlock,
    ToolFilter,
    loads_strict,
)

from .plan import OUTPUT_SCHEMA, PlanReport, execute_plan, validate_plan
from .prompts import plan_persona, review_request
from .signals import ReviewKind, TurnSignals
from .vocabulary import CHILD_LABEL, REVIEW_ERROR, SKILL_TOOL

if TYPE_CHECKING:
    import logging

    from hookspecs.protocols import Agent, Host, SubagentRun

    from .config import Effective

#: the stock provider of one-shot children
PROVIDER: Final = "spawn"
#: bound on disposing a child (shielded)
DISPOSE_SECONDS: Final = 10.0


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
    ) -> None:
        self.host = host
        self.settings = settings
        self.memory = memory
        self.skills = skills
        self.emit = emit
        self.logger = logger
        self.in_flight = False

    def _model(self, kind: ReviewKind) -> str | None:
        config = self.settings.config
        return config.memory_review_model if kind == "memory" else config.skill_review_model

    def _request(self, agent: Agent, kind: ReviewKind, signals: TurnSignals | None, token: CancelToken) -> SubagentRequest:
        config = self.settings.config
        text = review_request(
            kind,
            signals,
            agent.session.events,
            context_messages=self.settings.review_context_messages,
            message_chars=self.settings.review_message_chars,
        )
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

    async def review(self, agent: Agent, kind: ReviewKind, signals: TurnSignals | None) -> PlanReport | None:
        subagents = getattr(self.host, "subagents", None)
        if subagents is None or self.in_flight:
            return None
        self.in_flight = True
        token = CancelToken()
        run: SubagentRun | None = None
        try:
            deadline_at = trio.current_time() + self.settings.review_timeout_s
            # the start is not cut short: a start cancelled half-way would leave a
            # child nobody disposes; the deadline still counts from before it
            run = await subagents.start(PROVIDER, self._request(agent, kind, signals, token))
            with trio.move_on_at(deadline_at) as deadline:
                result = await run.result()
            if deadline.cancelled_caught:
                token.cancel("timeout")
                self._error(agent, f"the review run exceeded reviewTimeoutMs ({self.settings.config.review_timeout_ms:g} ms)")
                return None
            if result.structured is None:
                self._error(agent, f"the review returned no plan (stop reason {result.stop_reason})")
                return None
            reads = skills_read_by(run.local_agent)  # before dispose: the child's log
            library = self.skills()
            plan = validate_plan(
                result.structured, max_ops=self.settings.max_ops_per_plan, library=library, read_by_child=reads
            )
            if isinstance(plan, str):
                return PlanReport(rejected=(plan,))
            return execute_plan(plan, memory=self.memory(), library=library)
        except Exception as exc:  # any failure falls back to the prompt
            self.logger.warning("evolution-review: review of %s failed: %s: %s", agent.id, type(exc).__name__, exc)
            self._error(agent, f"{type(exc).__name__}: {exc}")
            return None
        finally:
            self.in_flight = False
            if run is not None:
                with trio.CancelScope(shield=True), trio.move_on_after(DISPOSE_SECONDS):
                    await run.dispose()

    def _error(self, agent: Agent, why: str) -> None:
        self.logger.info("evolution-review: %s: %s", agent.id, why)
        self.emit(REVIEW_ERROR, {"sessionId": agent.id, "reason": why[:500]})


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
