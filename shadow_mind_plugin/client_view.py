"""Shadow Mind's review cards for rich clients: the view model of a cycle's
card, and report cards rebuilt from the durable relay messages after a restart.

Cards are process-local; only relayed reports are durable (``user/message``
events with ``shadow-report`` provenance), so only Report cards come back
after a restart. Card data is read defensively: fields may be missing or
added by newer runtimes.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from typing import Any

from hookspecs.values import Card, CardAction, CardSection, CardView, EventTypes

from .vocabulary import CARD_KIND, REPORT_SOURCE_KIND

PHASE_LABELS = {
    "running": "Reviewing",
    "report": "Report",
    "superseded": "Finished — not delivered",
    # quiet outcomes: people ask to see that a review ran, in one line
    "silent": "Reviewed — nothing to add",
    "not_relevant": "Reviewed — not relevant",
    "aborted": "Aborted",
    "failed": "Failed",
}
PHASE_TEXT = {
    "aborted": "The review was cancelled before it finished.",
    "failed": "The review did not produce a valid report.",
}
#: why a finished report never reached the agent, by the cancellation's reason code
UNDELIVERED = {
    "USER_MESSAGE_RECEIVED": "a new message arrived before it reached the agent",
    "STALE_EPOCH": "a new message arrived before it reached the agent",
    "RELAY_DISCARDED": "the turn was stopped before it reached the agent",
    "USER_TURN_ABORTED": "the turn was stopped before it reached the agent",
    "SHADOW_PAUSED": "review was paused before it reached the agent",
}
RUNNING_BANNER = "Shadow is reviewing. Sending a new message now cancels this review."
PAUSED_BANNER = "Shadow review is paused; new messages will not trigger a review. Click Resume review to re-enable."
SCHEDULING_BANNER = "Shadow scheduling: loading the reviewer definition and deciding whether this turn runs a reviewer."
@functools.cache
def _heading() -> re.Pattern[str]:
    """A report's section heading (compiled when a report card is restored, not at every start)."""
    return re.compile(r"^### (.+) \(([^()\n]+)\)$", re.MULTILINE)


def card_view(card: Card, collapsed_by_default: Callable[[], bool]) -> CardView:
    data = card.data if isinstance(card.data, dict) else {}
    runs = [r for r in data.get("runs") or [] if isinstance(r, dict)]
    running = any(r.get("phase") == "running" for r in runs)
    banner = ""
    if data.get("paused"):
        banner = PAUSED_BANNER
    elif running:
        banner = RUNNING_BANNER
    elif isinstance(data.get("failure"), dict):
        failure = data["failure"]
        banner = f"Scheduling failed [{failure.get('reason_code')}] at {failure.get('stage', 'prepare')}: {failure.get('message', '')}".rstrip(": ")
    elif data.get("scheduling") and not runs:
        banner = SCHEDULING_BANNER
    elif isinstance(data.get("skipped"), dict) and not runs:
        banner = f"No review for this turn [{data['skipped'].get('reason_code')}]"
    # restored cards keep the control: the session's agent resumes when the command runs
    paused = bool(data.get("paused"))
    actions = (CardAction(label="Resume review" if paused else "Pause review", command="/shadow resume" if paused else "/shadow pause"),)
    count = len(runs)
    return CardView(
        title="Shadow Mind review" + (f" · {count} run{'s' if count != 1 else ''}" if count else ""),
        banner=banner,
        sections=tuple(_section(r, retry_enabled=not running) for r in runs),
        actions=actions,
        collapsible=any(r.get("phase") == "report" for r in runs),
        collapsed_by_default=collapsed_by_default(),
    )


def _phase(run: dict[str, Any]) -> str:
    phase = str(run.get("phase", ""))
    # a verdict means the review finished: an abort after it is a report overtaken
    # (a new message during the relay window), not a review cancelled midway
    return "superseded" if phase == "aborted" and run.get("verdict") else phase


def _severity(value: float) -> str:
    return f"{value:.2f} ({'high' if value >= 0.7 else 'medium' if value >= 0.4 else 'low'})"


def _section(run: dict[str, Any], *, retry_enabled: bool) -> CardSection:
    phase = _phase(run)
    meta: list[tuple[str, str]] = []  # what a person reads first
    details: list[tuple[str, str]] = []  # internals, behind a disclosure
    if run.get("verdict"):
        meta.append(("Verdict", str(run["verdict"])))
    if isinstance(run.get("severity"), (int, float)):
        meta.append(("Severity", _severity(float(run["severity"]))))
    if isinstance(run.get("check"), str):  # a checks-only review: no model wrote this
        meta.append(("Evidence check", run["check"]))
    if isinstance(run.get("trigger_check"), str):  # review_on_check: the evidence, not the roll, started it
        meta.append(("Started by evidence check", run["trigger_check"]))
    leads = [lead.get("kind") for lead in run.get("leads") or () if isinstance(lead, dict)]
    if leads:  # what the checks handed the model, apart from its own finding
        meta.append(("Evidence-check leads", ", ".join(str(kind) for kind in leads)))
    if phase == "report":
        meta.append(("Relay", "sent to the agent" if run.get("relayed") else "waiting to be sent to the agent"))
    quiet = phase in ("silent", "not_relevant")
    why = details if quiet or phase == "superseded" else meta  # a failure's reason is its headline
    if run.get("reason_code"):
        why.append(("Reason", str(run["reason_code"])))
    for key in ("failure_cause", "cause"):  # added by newer runtimes; shown when present
        if isinstance(run.get(key), str) and run[key]:
            why.append(("Cause", run[key]))
    error = run.get("error")
    if isinstance(error, dict) and (error.get("message") or error.get("name")):
        why.append(("Error", f"{error.get('name', 'Error')}: {error.get('message', '')}"))
    details.append(("Reviewed through entry", str(run.get("captured_through_seq", "?"))))
    if run.get("stage"):
        details.append(("Stage", str(run["stage"])))
    if run.get("provider_stop_reason"):
        details.append(("Provider stop", str(run["provider_stop_reason"])))
    if run.get("run_id"):
        details.append(("Run", str(run["run_id"])))
    actions: tuple[CardAction, ...] = ()
    if phase in ("failed", "aborted", "superseded") and run.get("run_id"):
        actions = (CardAction(label="Retry", command=f"/shadow retry {run['run_id']}", enabled=retry_enabled),)
    if phase == "report":
        body = str(run.get("content") or "")
    elif phase == "superseded":
        reason = UNDELIVERED.get(str(run.get("reason_code")), "it could not be delivered")
        body = f"The review finished, but {reason}, so the agent never saw this report. Retry runs the review again."
    else:
        body = PHASE_TEXT.get(phase, "")
    refs = tuple(r for r in run.get("refs") or () if isinstance(r, int) and not isinstance(r, bool))
    return CardSection(
        heading=f"{run.get('shadow_name', 'Shadow')} ({run.get('shadow_id', '?')})",
        phase=phase,
        phase_label=PHASE_LABELS.get(phase, phase),
        body=body,
        busy=phase == "running",
        started_at=str(run["started_at"]) if run.get("started_at") else None,
        refs=refs,
        meta=tuple(meta),
        details=tuple(details),
        child_session=str(run["child_session_id"]) if run.get("child_session_id") else None,
        actions=actions,
    )


def restore_cards(session_id: str, events: Sequence[Any]) -> list[Card]:
    """Report cards for every relayed report in the session's durable log."""
    from .projection import visible_text  # loads when a client restores, not at every start

    cycles: dict[int, list[dict[str, Any]]] = {}
    for event in events:
        if getattr(event, "type", None) != EventTypes.USER_MESSAGE or not isinstance(event.data, dict):
            continue
        message = event.data.get("message")
        source = message.get("source") if isinstance(message, dict) else None
        if not isinstance(message, dict) or not isinstance(source, dict) or source.get("kind") != REPORT_SOURCE_KIND:
            continue
        reports = [r for r in source.get("reports") or [] if isinstance(r, dict)]
        bodies = _bodies(visible_text(message.get("content")))
        for index, report in enumerate(reports):
            seq = report.get("captured_through_seq")
            if not isinstance(seq, int):
                continue
            name, body = bodies[index] if index < len(bodies) else (str(report.get("shadow_id", "Shadow")), "")
            cycles.setdefault(seq, []).append(
                {
                    **{
                        k: report[k]
                        for k in ("run_id", "shadow_id", "child_session_id", "verdict", "severity", "refs", "check")
                        if k in report
                    },
                    "shadow_name": name,
                    "captured_through_seq": seq,
                    "phase": "report",
                    "stage": "relay",
                    "relayed": True,
                    "content": body,
                    "relay_seq": event.seq,
                }
            )
    return [
        Card(
            session_id=session_id,
            anchor_seq=seq,
            key=f"shadow-mind:{seq}",
            kind=CARD_KIND,
            data={"captured_through_seq": seq, "scheduling": False, "runs": runs, "restored": True},
        )
        for seq, runs in sorted(cycles.items())
    ]


def _bodies(text: str) -> list[tuple[str, str]]:
    """``(shadow name, report body)`` per ``### name (id)`` section of a relay, in order."""
    heads = list(_heading().finditer(text))
    out = []
    for i, head in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(text)
        out.append((head.group(1), text[head.end() : end].strip()))
    return out
