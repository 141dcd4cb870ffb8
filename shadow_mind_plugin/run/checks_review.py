"""A checks-only review (``reviewer: checks``): no child, no model, no prompt.

The deterministic evidence checks run over the root session through the
watermark; their most severe finding becomes the run's structured output, a
report in the same contract a model child returns, so it travels the same
output stage (validation, holdout, batching, relay, cards, journals). No
finding is ``silent``.
"""

from __future__ import annotations

from typing import Any

from hookspecs.values import SubagentResult

from ..checks import CheckFinding, as_structured_output, most_severe, run_checks
from ..vocabulary import OutputStatus


def fired(state: Any, events: Any, watermark: int, seqs: Any) -> list[CheckFinding]:
    """Every check finding through ``watermark`` that cites only ``seqs`` (the
    projection's): the leads of a model review, the trigger's evidence."""
    builder = state.checks
    builder.extend(events, watermark)
    return run_checks(builder.view(), seqs)


def check_review(state: Any, events: Any, watermark: int, projection: Any) -> tuple[SubagentResult, CheckFinding | None]:
    """``state`` is the root's ``RunState`` (its view builder is reused so the
    checks cost the events appended since the previous review)."""
    finding = most_severe(fired(state, events, watermark, projection.seqs))
    structured = (
        as_structured_output(finding) if finding is not None else {"status": OutputStatus.SILENT.value, "content": ""}
    )
    return SubagentResult(stop_reason="completed", structured=structured), finding
