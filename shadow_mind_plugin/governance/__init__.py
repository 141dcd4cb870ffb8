"""Governance: pure, host-free pieces of the Shadow Mind runtime.

Each module has one job: holdout redaction, the effort ladder, the review
window and stagnation detectors, the degenerate-output watchdog, safe error
summaries, the value loop classifier and child telemetry. None of them touch
the host; the runtime wires them to events.
"""

from __future__ import annotations

from .holdout import REDACTED_HOLDOUT, contains_literal, redact
from .ladder import StagnationAction, next_effort, stagnation_action
from .review_window import (
    Detection,
    ReviewEntry,
    ReviewWindow,
    ReviewWindowOptions,
    detect_patterns,
    envelope_key,
    refs_key,
)
from .safe_errors import Failure, failure_at, failure_code_for_stage, safe_error, sanitize
from .telemetry import ToolTelemetry, deliberation_chars, tool_telemetry
from .value_loop import (
    ADOPTION_ACTION,
    REJECTION,
    REVIEW_MENTION,
    ChallengeObserver,
    Observation,
    PendingChallenge,
    artifacts,
    capture_challenges,
    classify,
    observe,
)
from .watchdog import DegenerateOutputGuard, has_repeated_suffix, resolve_reasoning_budget

__all__ = [
    "ADOPTION_ACTION",
    "REDACTED_HOLDOUT",
    "REJECTION",
    "REVIEW_MENTION",
    "ChallengeObserver",
    "DegenerateOutputGuard",
    "Detection",
    "Failure",
    "Observation",
    "PendingChallenge",
    "ReviewEntry",
    "ReviewWindow",
    "ReviewWindowOptions",
    "StagnationAction",
    "ToolTelemetry",
    "artifacts",
    "capture_challenges",
    "classify",
    "contains_literal",
    "deliberation_chars",
    "detect_patterns",
    "envelope_key",
    "failure_at",
    "failure_code_for_stage",
    "has_repeated_suffix",
    "next_effort",
    "observe",
    "redact",
    "refs_key",
    "resolve_reasoning_budget",
    "safe_error",
    "sanitize",
    "stagnation_action",
    "tool_telemetry",
]
