"""The coordination stage: every accepted report enters the review window;
a detected stagnation pattern reserves one higher reasoning effort or installs
a cooldown through the trigger stage's :class:`~..core.ports.Throttles`, and
the window's decay scales the trigger stage's roll (:meth:`CoordinationStage.decay`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..core.clock import iso
from ..vocabulary import STAGNATION_STATUS, StagnationPattern
from .ladder import stagnation_action
from .review_window import ReviewEntry, ReviewWindowOptions

if TYPE_CHECKING:
    from ..core.context import RuntimeContext
    from ..core.owner import OwnerState, RunEntry
    from ..core.ports import Governance, Throttles
    from ..settings import ShadowMindSettings


def options_of(settings: ShadowMindSettings) -> ReviewWindowOptions:
    return ReviewWindowOptions(
        spinning_repeat_count=settings.spinning_repeat_count,
        oscillation_periods=settings.oscillation_periods,
        no_drift_repeat_count=settings.no_drift_repeat_count,
        diminishing_window_size=settings.diminishing_window_size,
        diminishing_novelty_threshold=settings.diminishing_novelty_threshold,
    )


class CoordinationStage:
    def __init__(self, ctx: RuntimeContext, *, governance: Governance, throttles: Throttles) -> None:
        self._ctx = ctx
        self._governance = governance
        self._throttles = throttles

    def record_review(self, entry: RunEntry, verdict: str, refs: tuple[int, ...]) -> None:
        """Called for every accepted report, before it is batched."""
        settings = self._ctx.settings()
        state = entry.owner
        shadow_id = entry.definition.id
        window = state.coordination.review_window
        window.record(
            ReviewEntry(
                shadow_id=shadow_id,
                run_id=entry.view.run_id,
                verdict=verdict,
                refs=refs,
                captured_through_seq=entry.view.captured_through_seq,
                finished_at=self._ctx.iso_now(),
            ),
            window_size=settings.review_window_size,
            decay=settings.stale_report_decay,
        )
        detections = window.detect(shadow_id, options_of(settings))
        if not detections:
            return
        patterns = [str(d.pattern) for d in detections]
        action = stagnation_action(
            patterns,
            escalation_enabled=settings.stagnation_escalation_enabled,
            current_effort=entry.escalated_effort or entry.definition.reasoning_effort,
            ladder=settings.reasoning_effort_ladder,
        )
        if action.kind == "escalate" and action.reasoning_effort:
            self._throttles.reserve_escalation(state, shadow_id, action.reasoning_effort)
            self._governance.debug_quality(
                entry, status=STAGNATION_STATUS, patterns=patterns, action="escalate", reasoning_effort=action.reasoning_effort
            )
            return
        self._install_cooldown(entry, patterns)

    def on_degenerate_output(self, entry: RunEntry) -> None:
        """A watchdog kill counts as spinning."""
        self._install_cooldown(entry, [str(StagnationPattern.SPINNING)], trigger="degenerate-output")

    def _install_cooldown(self, entry: RunEntry, patterns: list[str], *, trigger: str | None = None) -> None:
        until = self._ctx.now() + self._ctx.settings().stagnation_cooldown_seconds
        self._throttles.install_cooldown(entry.owner, entry.definition.id, until, tuple(patterns))
        extra: dict[str, Any] = {"trigger": trigger} if trigger else {}
        self._governance.debug_quality(
            entry, status=STAGNATION_STATUS, patterns=patterns, action="cooldown", cooldown_until=iso(until), **extra
        )

    def decay(self, state: OwnerState, shadow_id: str) -> float:
        return state.coordination.decay_factor(shadow_id)

    def reset(self, state: OwnerState) -> None:
        """Real user input arrived: no stale review metadata."""
        state.coordination.review_window.clear()


def recent_reviews(state: OwnerState) -> list[dict[str, Any]]:
    return [
        {
            "shadow_id": e.shadow_id,
            "run_id": e.run_id,
            "verdict": e.verdict,
            "refs": list(e.refs),
            "captured_through_seq": e.captured_through_seq,
            "finished_at": e.finished_at,
        }
        for e in state.coordination.review_window.entries()
    ]
