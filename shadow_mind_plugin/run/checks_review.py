"""A checks-only review (``reviewer: checks``): no child, no model, no prompt.

The deterministic evidence checks run over the root session through the
watermark; their most severe finding becomes the run's structured output, a
report in the same contract a model child returns, so it travels the same
output stage (validation, holdout, batching, relay, cards, journals). No
finding is ``silent``. The same checks answer the trigger stage's
``review_on_check`` question (:func:`evidence_check`).
"""

from __future__ import annotations

from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING, TypeVar

from hookspecs.values import SessionEvent, SubagentResult

from ..checks import CheckFinding, as_structured_output, most_severe, run_checks
from ..core.ports import ShownSeqs
from ..vocabulary import OutputStatus

if TYPE_CHECKING:
    from ..projection import Capture, Disclosure
    from ..rendered import Projection
    from .run_state import RunState

E = TypeVar("E")


def fired(
    state: RunState[E], events: Sequence[SessionEvent], watermark: int, seqs: AbstractSet[int]
) -> list[CheckFinding]:
    """Every check finding through ``watermark`` that cites only ``seqs`` (the
    projection's): the leads of a model review, the trigger's evidence."""
    builder = state.checks
    builder.extend(events, watermark)
    return run_checks(builder.view(), seqs)


def check_review(
    state: RunState[E], events: Sequence[SessionEvent], watermark: int, projection: Projection
) -> tuple[SubagentResult, CheckFinding | None, ShownSeqs]:
    """``state`` is the root's ``RunState`` (its view builder is reused so the
    checks cost the events appended since the previous review). The checks read
    the whole projection, so its seqs are what this review was shown."""
    finding = most_severe(fired(state, events, watermark, projection.seqs))
    structured = (
        as_structured_output(finding) if finding is not None else {"status": OutputStatus.SILENT.value, "content": ""}
    )
    return SubagentResult(stop_reason="completed", structured=structured), finding, ShownSeqs(projection.seqs)


def evidence_check(
    state: RunState[E], events: Sequence[SessionEvent], seq: int, disclosure: Disclosure, capture: Capture
) -> str | None:
    """The kind of the most severe finding through ``seq`` over the window the
    reviewer would be shown (the projection with the definition's capture),
    citing only what it renders, as a checks-only review and a model's leads
    do; None when no check fires. The projector and view builder are the root's
    incremental ones, so the question costs the events appended since the
    previous one."""
    projection = state.projector.project(events, seq, disclosure=disclosure, capture=capture)
    finding = most_severe(fired(state, events, seq, projection.seqs))
    return str(finding.kind) if finding is not None else None
