"""The run stage: admission, the run lifecycle, deadlines and cancellation.

:meth:`RunStage.launch` admits one run (budget tier, frugal route, reserved
escalation, holdout literals) and starts its lifecycle; the lifecycle runs the
pipeline under the run's cancel scope and a deadline, and settles a run the
pipeline could not settle itself (stopped from outside).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING

import trio

from ..core.owner import RunEntry
from ..core.records import Cancellation, RunView
from ..governance.holdout import redact
from ..governance.safe_errors import safe_error
from ..routes import root_route
from ..vendor import independence
from ..vocabulary import BudgetTier, CancellationSource, Phase, ReasonCode, Stage

if TYPE_CHECKING:
    from ..core.context import RuntimeContext
    from ..core.owner import OwnerState
    from ..core.ports import Budget, Governance, Outcomes, Throttles
    from ..core.records import Cycle
    from ..definitions.model import ShadowDefinition
    from .pipeline import ReviewPipeline

#: After a cancellation is requested, how long a provider may take to stop
#: before the run stops waiting for it.
CANCEL_GRACE_SECONDS = 30.0


class RunStage:
    def __init__(
        self,
        ctx: RuntimeContext,
        *,
        governance: Governance,
        budget: Budget,
        outcomes: Outcomes,
        throttles: Throttles,
        on_run_ended: Callable[[OwnerState], None],
    ) -> None:
        self._ctx = ctx
        self._governance = governance
        self._budget = budget
        self._throttles = throttles
        self._on_run_ended = on_run_ended
        self._outcomes = outcomes
        self._made_pipeline: ReviewPipeline | None = None

    @property
    def _pipeline(self) -> ReviewPipeline:
        """The review pipeline, made for the first review: its modules (the
        prompt, the evidence checks, the token counts) are not the plugin's start-up."""
        if self._made_pipeline is None:
            from .pipeline import ReviewPipeline

            self._made_pipeline = ReviewPipeline(
                self._ctx, governance=self._governance, budget=self._budget, outcomes=self._outcomes
            )
        return self._made_pipeline

    # --- admission ----------------------------------------------------------------------------

    def launch(
        self,
        state: OwnerState,
        cycle: Cycle,
        epoch: int,
        seq: int,
        definition: ShadowDefinition,
        *,
        manual: bool = False,
        trigger_check: str | None = None,
    ) -> RunEntry | None:
        ctx = self._ctx
        if ctx.stopped or state.epoch != epoch or not ctx.is_current(state):
            return None
        if definition.id in state.run.active:
            return None
        tier = self._budget.tier(state)
        if not manual and (state.paused or tier == BudgetTier.EXHAUSTED):
            return None
        frugal = ctx.settings().frugal_shadow_model if tier == BudgetTier.FRUGAL else None
        escalated = self._throttles.take_escalation(state, definition.id)
        root = root_route(state.root)
        route = frugal or definition.run_with_model or root
        keys = self._holdout_keys(definition)
        view = RunView(
            run_id=uuid.uuid4().hex,
            shadow_id=definition.id,
            shadow_name=redact(definition.name, keys) if keys else definition.name,
            captured_through_seq=seq,
            phase=Phase.RUNNING,
            stage=Stage.PREPARE,
            started_at=ctx.iso_now(),
            independence=str(independence(root, route)),
            route=route,
            trigger_check=trigger_check,
        )
        entry = RunEntry(
            view=view,
            owner=state,
            definition=definition,
            cycle=cycle,
            epoch=epoch,
            manual=manual,
            frugal_route=frugal,
            escalated_effort=escalated,
            budget_tier=BudgetTier.FRUGAL if frugal else BudgetTier.STANDARD,
            holdout_keys=keys,
        )
        state.run.active[definition.id] = entry
        cycle.runs.append(view)
        cycle.scheduling = False
        state.run.total_runs += 1
        state.work.enter()
        ctx.host.spawn(self._lifecycle, entry, name=f"shadow-mind:run:{view.run_id[:8]}")
        self._governance.admitted(entry)
        self._governance.update_card(state, cycle)
        return entry

    def running(self, state: OwnerState) -> bool:
        return bool(state.run.active)

    def check_fired(self, state: OwnerState, definition: ShadowDefinition, seq: int) -> str | None:
        """``review_on_check``: the trigger stage asks over the root's incremental
        projector and check view, which this stage owns."""
        from .checks_review import evidence_check  # the checks load with the first question, not the plugin

        disclosure = self._ctx.settings().argument_disclosure
        return evidence_check(state.run, state.root.session.events, seq, disclosure, definition.capture)

    def _holdout_keys(self, definition: ShadowDefinition) -> tuple[str, ...]:
        """The literals to hide for a holdout definition; a broken sidecar is
        reported by the run itself (prepare fails), so here it yields none."""
        if not definition.holdout:
            return ()
        try:
            return tuple(self._ctx.registry.holdout_keys(definition.id))
        except Exception:
            return ()

    # --- lifecycle ------------------------------------------------------------------------------

    async def _lifecycle(self, entry: RunEntry) -> None:
        state = entry.owner
        governance = self._governance
        try:
            governance.debug(entry, "run-admitted")
            timeout = entry.definition.timeout_seconds or self._ctx.settings().default_shadow_timeout_seconds
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._deadline, entry, timeout)
                with entry.scope:
                    await self._pipeline.run(entry)
                nursery.cancel_scope.cancel()
        except Exception as exc:
            error = safe_error(exc)
            self._ctx.logger.warning("dsh-shadow-mind: shadow %s failed: %s", entry.definition.id, error["message"])
            governance.finish_run(entry, Phase.FAILED, reason=ReasonCode.UNKNOWN_FAILURE, error=error)
        finally:
            if not entry.settled and entry.view.phase == Phase.RUNNING:
                # the pipeline was stopped from outside (grace expired, host teardown)
                self._settle_stopped(entry)
            if state.run.active.get(entry.definition.id) is entry:
                del state.run.active[entry.definition.id]
            entry.done.set()
            governance.update_card(state, entry.cycle)
            self._on_run_ended(state)
            state.work.exit()

    def _settle_stopped(self, entry: RunEntry) -> None:
        cancellation = entry.cancellation
        if cancellation is not None:
            self._governance.finish_run(
                entry,
                Phase.ABORTED,
                stage=entry.cancellation_stage or entry.view.stage,
                reason=cancellation.reason,
                source=cancellation.source,
            )
        else:
            self._governance.finish_run(
                entry,
                Phase.FAILED,
                reason=ReasonCode.UNKNOWN_FAILURE,
                error={"name": "Error", "message": "Shadow run settled without a result"},
            )

    async def _deadline(self, entry: RunEntry, seconds: float) -> None:
        with trio.move_on_after(seconds):
            await entry.cancel_requested.wait()
        if not entry.cancel_requested.is_set():
            self.request_cancellation(entry, ReasonCode.SHADOW_TIMEOUT, CancellationSource.TIMEOUT)
        await trio.sleep(CANCEL_GRACE_SECONDS)
        entry.scope.cancel()

    # --- cancellation ---------------------------------------------------------------------------

    def cancel_active(self, state: OwnerState, reason: ReasonCode, source: CancellationSource) -> None:
        for entry in list(state.run.active.values()):
            self.request_cancellation(entry, reason, source)

    def request_cancellation(self, entry: RunEntry, reason: ReasonCode, source: CancellationSource) -> None:
        if entry.settled or entry.cancellation is not None:
            return
        entry.cancellation = Cancellation(reason=reason, source=source)
        entry.cancellation_stage = entry.view.stage
        entry.view.reason_code = reason
        entry.view.cancellation_source = source
        self._governance.debug(entry, "run-cancellation-requested")
        entry.cancel_requested.set()
        entry.token.cancel(reason)
