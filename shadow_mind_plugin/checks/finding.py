"""What a deterministic evidence check produces, and its report-contract shape.

A check finding is worded and anchored like a model reviewer's report, so it
passes the same contract (:func:`shadow_mind_plugin.contract.narrow_output`)
against the same refs allowlist and can travel the same output stage.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from enum import StrEnum
from typing import Any

import attrs

from ..contract import MAX_REFS, NarrowResult, narrow_output
from ..vocabulary import OutputStatus, Verdict


class CheckKind(StrEnum):
    """The check that fired; a contract string (records and cards show it)."""

    UNVERIFIED_SUCCESS = "unverified-success"
    UNBACKED_CHANGE = "unbacked-change"
    EDIT_WITHOUT_READ = "edit-without-read"
    DONE_AFTER_ERROR = "done-after-error"
    UNREQUESTED_DESTRUCTIVE = "unrequested-destructive"
    TOUCHED_PROTECTED = "touched-protected"
    UNCITED_REFERENCE = "uncited-reference"


@attrs.frozen(kw_only=True)
class CheckFinding:
    """One finding: ``text`` names the evidence (seqs, commands, paths).

    ``evidence`` is the seq of the one event the finding rests on (a failed
    result, an edit, a command, the answer): two checks that rest on the same
    event report it once, and a finding whose evidence the projection does not
    render is dropped rather than cited out of sight.
    """

    kind: CheckKind
    verdict: Verdict
    severity: float
    refs: tuple[int, ...]
    text: str
    evidence: int

    def with_refs(self, refs: tuple[int, ...]) -> CheckFinding:
        return attrs.evolve(self, refs=refs)


def normalized_refs(seqs: tuple[int, ...]) -> tuple[int, ...]:
    """Ascending, without repeats, at most the contract's bound (newest kept:
    the claim a finding challenges comes last)."""
    ordered = sorted({seq for seq in seqs if seq > 0})
    return tuple(ordered[-MAX_REFS:])


def as_structured_output(finding: CheckFinding) -> dict[str, Any]:
    """The finding in the reviewer's ``structured_output`` shape (a report)."""
    return {
        "status": OutputStatus.REPORT.value,
        "content": finding.text,
        "verdict": finding.verdict.value,
        "severity": finding.severity,
        "refs": list(finding.refs),
    }


def validate(finding: CheckFinding, rendered: AbstractSet[int]) -> NarrowResult:
    """The same contract check a model's report passes."""
    return narrow_output(as_structured_output(finding), rendered)
