"""Run every check over one view; findings anchored on what the projection renders."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from typing import Final

from hookspecs.values import SessionEvent

from .citations import uncited_reference
from .claims import done_after_error, unbacked_change, unverified_success
from .destructive import unrequested_destructive
from .files import edit_without_read, touched_protected
from .finding import CheckFinding, normalized_refs
from .view import SessionView, view_of

Check = Callable[[SessionView], list[CheckFinding]]

#: in priority order: when two rest on the same event, the earlier one reports it
CHECKS: Final[tuple[Check, ...]] = (
    touched_protected,
    unrequested_destructive,
    unverified_success,
    unbacked_change,
    done_after_error,
    edit_without_read,
    uncited_reference,
)


def run_checks(view: SessionView, rendered: AbstractSet[int] | None = None) -> list[CheckFinding]:
    """Every finding, each event reported once. With ``rendered`` (the
    projection's seqs, the refs allowlist) refs outside it are dropped, and so is
    a finding whose evidence is outside it."""
    reported: set[int] = set()
    out: list[CheckFinding] = []
    for check in CHECKS:
        for finding in check(view):
            if finding.evidence in reported or (rendered is not None and finding.evidence not in rendered):
                continue
            reported.add(finding.evidence)
            refs = tuple(seq for seq in finding.refs if rendered is None or seq in rendered)
            out.append(finding.with_refs(normalized_refs(refs)))
    return out


def check_session(
    events: Sequence[SessionEvent], watermark: int, rendered: AbstractSet[int] | None = None
) -> list[CheckFinding]:
    """Build the view from scratch and run every check."""
    return run_checks(view_of(events, watermark), rendered)


def most_severe(findings: Sequence[CheckFinding]) -> CheckFinding | None:
    """The highest severity; the earlier finding on a tie."""
    best: CheckFinding | None = None
    for finding in findings:
        if best is None or finding.severity > best.severity:
            best = finding
    return best
