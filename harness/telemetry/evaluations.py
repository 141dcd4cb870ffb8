"""``gen_ai.evaluation.result`` events from settled reviews.

The host does not import review plugins (tests/test_layering.py), so it reads
what they publish:

* **Shadow Mind** pushes a process-local card (kind ``shadow-mind-review``)
  for every cycle through ``host.client``; its ``data.runs`` are the runs'
  views (docs/web.md). A run has settled when its ``phase`` is quiet
  (``silent``, ``not_relevant``), ``aborted`` or ``failed``, or ``report``
  once relayed (an accepted report shows ``report`` while it waits, and may
  still end ``aborted``): one event per run id, on the reviewed turn (the root turn whose
  ``turn/end`` seq is the card's ``captured_through_seq``).
* **evolution-review** emits the process events ``evolution/plan-applied``
  and ``evolution/review-error`` (docs/evolution-review.md): one event each,
  on the session's latest turn.

Attributes follow the GenAI conventions (``gen_ai.evaluation.name``,
``.score.label``, ``.score.value``, ``.explanation``) plus the reviewer's own
under ``shadow_mind.*`` / ``evolution_review.*``. Texts pass the scrubber.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

import attrs

from hookspecs.scrub import scrub_text

from .content import label

EVENT_NAME = "gen_ai.evaluation.result"
SHADOW_CARD_KIND = "shadow-mind-review"
PLAN_APPLIED = "evolution/plan-applied"
REVIEW_ERROR = "evolution/review-error"
#: characters kept of an explanation (a finding, a reason)
EXPLANATION_CHARS = 2000
#: run ids remembered so a card refreshed after settlement emits nothing twice
SEEN_KEPT = 4096


@attrs.frozen
class Evaluation:
    """One event: the session and turn it is about, and its attributes."""

    session_id: str
    #: the ``turn/end`` seq of the evaluated turn (``None``: the latest turn)
    seq: int | None
    attributes: dict[str, Any]


class SettledRuns:
    """Shadow cards in, one :class:`Evaluation` per newly settled run out."""

    def __init__(self) -> None:
        self._seen: OrderedDict[str, None] = OrderedDict()

    def from_card(self, session_id: str, data: Mapping[str, Any]) -> list[Evaluation]:
        found = []
        watermark = data.get("captured_through_seq")
        for run in data.get("runs") or ():
            if not isinstance(run, Mapping):
                continue
            run_id, phase = run.get("run_id"), run.get("phase")
            if not isinstance(run_id, str) or run_id in self._seen or not _settled(phase, run.get("relayed")):
                continue
            self._seen[run_id] = None
            while len(self._seen) > SEEN_KEPT:
                self._seen.popitem(last=False)
            seq = run.get("captured_through_seq", watermark)
            found.append(Evaluation(session_id, seq if isinstance(seq, int) else None, shadow_attributes(session_id, run)))
        return found


def _settled(phase: object, relayed: object) -> bool:
    if phase == "report":
        return relayed is True
    return isinstance(phase, str) and phase not in ("", "running")


def shadow_attributes(session_id: str, run: Mapping[str, Any]) -> dict[str, Any]:
    """A settled Shadow run: label = verdict (the outcome when quiet), value = severity."""
    outcome = label(run.get("phase"))
    attributes: dict[str, Any] = {
        "gen_ai.evaluation.name": f"shadow-mind:{label(run.get('shadow_id')) or 'default'}",
        "gen_ai.evaluation.score.label": label(run.get("verdict")) or outcome,
        "gen_ai.conversation.id": session_id,
        "shadow_mind.run_id": label(run.get("run_id")),
        "shadow_mind.outcome": outcome,
    }
    severity = run.get("severity")
    if isinstance(severity, int | float) and not isinstance(severity, bool):
        attributes["gen_ai.evaluation.score.value"] = float(severity)
    content = run.get("content")
    if isinstance(content, str) and content:
        attributes["gen_ai.evaluation.explanation"] = scrub_text(content, limit=EXPLANATION_CHARS)
    elif run.get("cause"):
        attributes["gen_ai.evaluation.explanation"] = scrub_text(str(run["cause"]), limit=EXPLANATION_CHARS)
    refs = run.get("refs")
    if isinstance(refs, list) and all(isinstance(r, int) and not isinstance(r, bool) for r in refs):
        attributes["shadow_mind.refs"] = refs[:64]
    for key in ("reason_code", "child_session_id", "check", "route"):
        if run.get(key):
            attributes[f"shadow_mind.{key}"] = label(run[key])
    if isinstance(run.get("relayed"), bool):
        attributes["shadow_mind.relayed"] = run["relayed"]
    if isinstance(run.get("captured_through_seq"), int):
        attributes["shadow_mind.captured_through_seq"] = run["captured_through_seq"]
    return attributes


def evolution_evaluation(name: str, payload: Mapping[str, Any]) -> Evaluation | None:
    """An ``evolution/plan-applied`` or ``evolution/review-error`` process event, else ``None``."""
    session_id = payload.get("sessionId")
    if name not in (PLAN_APPLIED, REVIEW_ERROR) or not isinstance(session_id, str):
        return None
    kind = label(payload.get("kind")) or "review"
    attributes: dict[str, Any] = {
        "gen_ai.evaluation.name": f"evolution-review:{kind}",
        "gen_ai.conversation.id": label(session_id),
    }
    if name == REVIEW_ERROR:
        attributes["gen_ai.evaluation.score.label"] = "error"
        attributes["gen_ai.evaluation.explanation"] = scrub_text(str(payload.get("reason", "")), limit=EXPLANATION_CHARS)
        return Evaluation(session_id, None, attributes)
    skills = [label(s) for s in payload.get("skillApplied") or () if s] + [
        label(s) for s in payload.get("skillStaged") or () if s
    ]
    changes = len(skills) + bool(payload.get("memoryApplied")) + bool(payload.get("memoryStaged"))
    failed = bool(payload.get("executionError")) or bool(payload.get("executionFailures"))
    attributes["gen_ai.evaluation.score.label"] = "failed" if failed else "changed" if changes else "unchanged"
    attributes["gen_ai.evaluation.score.value"] = float(changes)
    summary = [f"{changes} change(s)"]
    if skills:
        summary.append("skills: " + ", ".join(skills[:20]))
    if payload.get("rejectedOps"):
        summary.append(f"{len(payload['rejectedOps'])} op(s) rejected")
    if payload.get("executionError"):
        summary.append(f"error: {payload['executionError']}")
    attributes["gen_ai.evaluation.explanation"] = scrub_text("; ".join(summary), limit=EXPLANATION_CHARS)
    if payload.get("planId"):
        attributes["evolution_review.plan_id"] = label(payload["planId"])
    attributes["evolution_review.kind"] = kind
    return Evaluation(session_id, None, attributes)
