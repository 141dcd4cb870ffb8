"""The governance stage: settlement, cards, journals, the value loop and
settings notes.

Every admitted run settles here exactly once (:meth:`GovernanceStage.finish_run`)
with a phase, a stage and a reason code; the card anchored at the reviewed
watermark is refreshed on every change; lifecycle and quality records go to
the definition's debug journal when ``debug: true``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from hookspecs.values import Card, SessionEvent, SubagentResult

from ..vocabulary import (
    CARD_KIND,
    QUALITY_METADATA_EVENT,
    SETTINGS_NAMESPACE,
    CancellationSource,
    Phase,
    ReasonCode,
    Stage,
)
from . import value
from .holdout import redact_value
from .journal import LIFECYCLE_EVENTS, Journal, lifecycle_record
from .safe_errors import one_line_cause, safe_error
from .telemetry import deliberation_chars, tool_telemetry

if TYPE_CHECKING:
    from ..core.context import RuntimeContext
    from ..core.owner import OwnerState, RunEntry
    from ..core.ports import RunFailure
    from ..core.records import Cycle


class GovernanceStage:
    def __init__(self, ctx: RuntimeContext) -> None:
        self._ctx = ctx
        self.journal = Journal(ctx.registry, ctx.logger, spawn=ctx.host.spawn)
        #: observers of admissions and settlements (tests, diagnostics): ``fn(entry)``
        self.admit_listeners: list[Callable[[RunEntry], None]] = []
        self.settle_listeners: list[Callable[[RunEntry], None]] = []

    # --- settlement -------------------------------------------------------------------------

    def admitted(self, entry: RunEntry) -> None:
        """A run was admitted (its lifecycle journals ``run-admitted`` when it starts)."""
        self._notify(self.admit_listeners, entry)

    def finish_run(
        self,
        entry: RunEntry,
        phase: Phase,
        *,
        stage: Stage | None = None,
        reason: ReasonCode | None = None,
        source: CancellationSource | None = None,
        error: dict[str, Any] | None = None,
        **fields: object,
    ) -> bool:
        """Record the run's one outcome; later calls are ignored."""
        if entry.settled:
            return False
        entry.settled = True
        view = entry.view
        view.phase = phase
        if stage is not None:
            view.stage = stage
        view.reason_code = reason
        view.cancellation_source = source
        if error is not None:
            view.error = redact_value(error, entry.holdout_keys)
            if phase == Phase.FAILED:
                view.cause = one_line_cause(view.error, holdout_keys=entry.holdout_keys)
        for key, field_value in fields.items():
            setattr(view, key, field_value)
        view.finished_at = self._ctx.iso_now()
        entry.owner.governance.last_run = view
        self.debug(entry, "run-finished")
        self.update_card(entry.owner, entry.cycle)
        self._notify(self.settle_listeners, entry)
        return True

    def _notify(self, listeners: list[Callable[[RunEntry], None]], entry: RunEntry) -> None:
        for listener in list(listeners):
            try:
                listener(entry)
            except Exception:
                self._ctx.logger.exception("run listener failed")

    # --- cards ------------------------------------------------------------------------------

    def cycle_for(self, state: OwnerState, seq: int) -> Cycle:
        return state.governance.cycle_for(seq)

    def set_stage(self, entry: RunEntry, stage: Stage) -> None:
        entry.view.stage = stage
        self.update_card(entry.owner, entry.cycle)

    def update_card(self, state: OwnerState, cycle: Cycle) -> None:
        """Refresh the process-local card anchored at the cycle's watermark. A
        cycle with nothing to show (no longer scheduling, no run, failure or
        shown skip: a roll that said no, an exhausted budget) keeps its card,
        hidden, with why in ``declined``: a card left as it was would read
        "deciding whether to review…" for good."""
        if not cycle.scheduling and not cycle.runs and not cycle.failure and not cycle.skipped and not cycle.declined:
            return
        shown = cycle.scheduling or bool(cycle.runs or cycle.failure or cycle.skipped)
        try:
            self._ctx.host.client.upsert_card(
                Card(
                    session_id=state.root_id,
                    anchor_seq=cycle.captured_through_seq,
                    key=f"shadow-mind:{cycle.captured_through_seq}",
                    kind=CARD_KIND,
                    data={**cycle.to_json(), "paused": state.paused},
                    visibility="visible" if shown else "hidden",
                )
            )
        except Exception:
            self._ctx.logger.exception("updating the Shadow card failed")

    # --- journals and telemetry ---------------------------------------------------------------

    def debug(self, entry: RunEntry, event: str, **extra: object) -> None:
        if not entry.definition.debug:
            return
        time = self._ctx.iso_now()
        if event in LIFECYCLE_EVENTS:
            record = lifecycle_record(entry, event, time)
        else:
            record = {
                "event": event,
                "time": time,
                "run_id": entry.view.run_id,
                "root_session_id": entry.owner.root_id,
                "child_session_id": entry.view.child_session_id,
                "captured_through_seq": entry.view.captured_through_seq,
                **extra,
            }
        self._journal(entry, redact_value(record, entry.holdout_keys))

    def debug_quality(self, entry: RunEntry, **fields: object) -> None:
        if entry.definition.debug:
            self._journal(
                entry, {"event": QUALITY_METADATA_EVENT, "time": self._ctx.iso_now(), "run_id": entry.view.run_id, **fields}
            )

    def quality_metadata(self, entry: RunEntry, result: SubagentResult | None, failure: RunFailure | None) -> None:
        definition = entry.definition
        if not definition.debug:
            return
        view = entry.view
        record = {
            "event": QUALITY_METADATA_EVENT,
            "time": self._ctx.iso_now(),
            "run_id": view.run_id,
            "root_session_id": entry.owner.root_id,
            "child_session_id": view.child_session_id,
            "captured_through_seq": view.captured_through_seq,
            "prompt_chars": entry.prompt_chars,
            "timeout_seconds": definition.timeout_seconds or self._ctx.settings().default_shadow_timeout_seconds,
            "capture": definition.capture,
            "context": definition.context,
            "think_first": definition.think_first,
            "tool_names": list(definition.reviewer_tools),
            "stop_reason": result.stop_reason if result is not None else None,
            "error": safe_error(failure[2])["message"] if failure else None,
            "deliberation_chars": view.deliberation_chars or 0,
            "tools": view.tools,
            "independence": view.independence,
            "route": view.route,
            "budget_tier": str(entry.budget_tier),
            "reasoning_effort": entry.escalated_effort or definition.reasoning_effort,
        }
        self._journal(entry, redact_value(record, entry.holdout_keys))

    def _journal(self, entry: RunEntry, record: dict[str, Any]) -> None:
        try:
            self.journal.write(entry.definition.id, record)
        except Exception as exc:  # diagnostics never break a run
            self._ctx.logger.warning(
                "dsh-shadow-mind: failed to write debug log for %s: %s", entry.definition.id, type(exc).__name__
            )

    def record_child_telemetry(self, entry: RunEntry, child_events: Sequence[SessionEvent]) -> None:
        entry.view.deliberation_chars = deliberation_chars(child_events)
        telemetry = tool_telemetry(child_events)
        entry.view.tools = {
            "calls": telemetry.calls,
            "by_name": dict(telemetry.by_name),
            "invalid_args": telemetry.invalid_args,
            "invalid_args_by_tool": dict(telemetry.invalid_args_by_tool),
        }

    # --- value loop -----------------------------------------------------------------------------

    def capture_challenges(self, state: OwnerState, event: SessionEvent) -> None:
        try:
            value.capture(self._value_context(), state, event)
        except Exception:
            self._ctx.logger.exception("value-loop capture failed")

    def evaluate_challenges(self, state: OwnerState, event: SessionEvent) -> None:
        try:
            value.evaluate(self._value_context(), state, event)
        except Exception:
            self._ctx.logger.exception("value-loop evaluation failed")

    def _value_context(self) -> value.ValueContext:
        return value.ValueContext(settings=self._ctx.settings(), now=self._ctx.now, journal=self._value_journal)

    def _value_journal(self, record: dict[str, Any]) -> None:
        try:
            self.journal.value_loop(record)
        except Exception as exc:
            self._ctx.logger.warning("dsh-shadow-mind: failed to write value-loop log: %s", type(exc).__name__)

    def reset(self, state: OwnerState) -> None:
        """Real user input arrived: open challenges are no longer followed."""
        state.governance.pending_challenges.clear()

    def value_loop_disabled(self, owners: list[OwnerState]) -> None:
        """Open challenges are dropped when the value loop is switched off."""
        for state in owners:
            state.governance.pending_challenges.clear()

    def settings_notes(self) -> list[str]:
        """Heals applied to the settings document (never silent)."""
        for descriptor in self._ctx.host.settings.describe():
            if descriptor.namespace == SETTINGS_NAMESPACE:
                return [*descriptor.notes, *descriptor.problems]
        return []
