"""Deterministic evidence checks over the root session.

Pure functions ``(SessionView) -> list[CheckFinding]``, one per kind, over the
same events the projection renders; each finding fits the reviewer's report
contract (verdict, severity, refs to rendered seqs, text naming the evidence).
"""

from __future__ import annotations

from .finding import CheckFinding, CheckKind, as_structured_output, validate
from .runner import CHECKS, check_session, most_severe, run_checks
from .view import SessionView, ViewBuilder, view_of

__all__ = [
    "CHECKS",
    "CheckFinding",
    "CheckKind",
    "SessionView",
    "ViewBuilder",
    "as_structured_output",
    "check_session",
    "most_severe",
    "run_checks",
    "validate",
    "view_of",
]
