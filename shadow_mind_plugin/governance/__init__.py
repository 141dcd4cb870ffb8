"""The governance stage: process-local status, anchored cards, diagnostic
journals and the value loop (:mod:`.governance_stage`, with its per-root state
in :mod:`.governance_state`; waiting for quiescence spans every stage and is the
wiring's, ``runtime/owners.py``), and the host-free mechanisms it and the
other stages use: holdout redaction, safe error summaries, the value-loop
classifier and child telemetry. This package's ``__init__`` re-exports only
the host-free mechanisms, so importing it never pulls in a stage.
"""

from __future__ import annotations

from .holdout import REDACTED_HOLDOUT, contains_literal, redact
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

__all__ = [
    "ADOPTION_ACTION",
    "REDACTED_HOLDOUT",
    "REJECTION",
    "REVIEW_MENTION",
    "ChallengeObserver",
    "Failure",
    "Observation",
    "PendingChallenge",
    "ToolTelemetry",
    "artifacts",
    "capture_challenges",
    "classify",
    "contains_literal",
    "deliberation_chars",
    "failure_at",
    "failure_code_for_stage",
    "observe",
    "redact",
    "safe_error",
    "sanitize",
    "tool_telemetry",
]
