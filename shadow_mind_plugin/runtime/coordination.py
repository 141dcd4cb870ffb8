"""The coordination path: the review window, stale-report decay and stagnation
(cooldown, or one reserved step up the effort ladder for oscillation)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..governance.ladder import stagnation_action
from ..governance.review_window import ReviewEntry, ReviewWindowOptions
from ..vocabulary import StagnationPattern
from .clock import iso
from .state import Cooldown

if TYPE_CHECKING:
    from ..settings import ShadowMindSettings
    from .runtime import ShadowRuntime
    from .state import OwnerState, RunEntry


def options_of(settings: ShadowMindSettings) -> ReviewWindowOptions:
    return ReviewWindowOptions(
        spinning_repeat_count=settings.spinningRepeatCount,
        oscillation_periods=settings.oscillationPeriods,
        no_drift_repeat_count=settings.noDriftRepeatCount,
        diminishing_window_size=settings.diminishingWindowSize,
        diminishing_novelty_threshold=settings.diminishingNoveltyThreshold,
    )


def decay_factor(state: OwnerState, shadow_id: str) -> float:
    return state.review_window.decay_factor(shadow_id)


def record_review(rt: ShadowRuntime, entry: RunEntry, verdict: str, refs: tuple[int, ...]) -> None:
    """Called for every accepted report, before it is batched."""
    settings = rt.settings()
    state = entry.owner
    shadow_id = entry.definition.id
    window = state.review_window
    window.record(
        ReviewEntry(
            shadow_id=shadow_id,
            run_id=entry.view.run_id,
            verdict=verdict,
            refs=refs,
            captured_through_seq=entry.view.captured_through_seq,
            finished_at=iso(rt.now()),
        ),
        window_size=settings.reviewWindowSize,
        decay=settings.staleReportDecay,
    )
    detections = window.detect(shadow_id, options_of(settings))
    if not detections:
        return
    patterns = [str(d.pattern) for d in detections]
    action = stagnation_action(
        patterns,
        escalation_enabled=settings.stagnationEscalationEnabled,
        current_effort=entry.escalated_effort or entry.definition.reasoning_effort,
        ladder=settings.reasoningEffortLadder,
    )
    if action.kind == "escalate" and action.reasoning_effort:
        state.pending_escalations[shadow_id] = action.reasoning_effort
        rt.debug_quality(entry, status="stagnation", patterns=patterns, action="escalate", reasoning_effort=action.reasoning_effort)
        return
    install_cooldown(rt, entry, patterns)


def install_cooldown(rt: ShadowRuntime, entry: RunEntry, patterns: list[str], *, trigger: str | None = None) -> None:
    until = rt.now() + rt.settings().stagnationCooldownSeconds
    entry.owner.cooldowns[entry.definition.id] = Cooldown(until=until, patterns=tuple(patterns))
    extra: dict[str, Any] = {"trigger": trigger} if trigger else {}
    rt.debug_quality(entry, status="stagnation", patterns=patterns, action="cooldown", cooldown_until=iso(until), **extra)


def on_degenerate_output(rt: ShadowRuntime, entry: RunEntry) -> None:
    """A watchdog kill counts as spinning."""
    install_cooldown(rt, entry, [str(StagnationPattern.SPINNING)], trigger="degenerate-output")


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
        for e in state.review_window.entries()
    ]
