"""The review texts: prompts delivered to the root, the child's persona and
request, and the notices that report a plan's outcome. Our own wording."""

from __future__ import annotations

from collections.abc import Sequence

from hookspecs.scrub import scrub_text
from hookspecs.values import EventTypes, SessionEvent

from .plan import PlanReport, why_nothing
from .signals import ReviewKind, TurnSignals, event_message, text_of

#: bound on a notice (the reference's zero-landing explanation is at most 500 characters)
NOTICE_CHARS = 500

_FOCUS = {
    "memory": (
        "what you learned about this person and how they like to work (corrections, preferences, "
        "facts about their setup) that would help in a later conversation"
    ),
    "skill": (
        "a procedure you worked out here (a fix, a workaround, a sequence of steps that finally worked) "
        "that is worth keeping as a reusable skill"
    ),
    "combined": (
        "both what you learned about this person and their preferences, and any procedure you worked "
        "out that is worth keeping as a reusable skill"
    ),
}

_HOW_INJECT = {
    "memory": (
        "Save what matters as short notes with the `memory` tool. If nothing is worth keeping, say so in one "
        "line and stop."
    ),
    "skill": (
        "Use the `skill` tool: `list` what exists, `read` a skill before changing it, then `write` a new one or "
        "`patch` an existing one. If nothing is worth keeping, say so in one line and stop."
    ),
    "combined": (
        "Save facts as short notes with the `memory` tool; for procedures use the `skill` tool (`list`, `read` before you "
        "change a skill, then `write` or `patch`). If nothing is worth keeping, say so in one line and stop."
    ),
}

COMPLETION_SKILL_REVIEW_PROMPT = (
    "[self-improvement review] This task took many tool calls. Before you finish: is there a procedure here "
    "that should become a skill so the next run is shorter? Use the `skill` tool (`list`, `read` before "
    "changing, then `write` or `patch`). If not, answer in one line and stop."
)


def review_prompt(kind: ReviewKind) -> str:
    """The prompt delivered to the root (inject mode, and every fallback)."""
    return f"[self-improvement review] Look back over this conversation for {_FOCUS[kind]}. {_HOW_INJECT[kind]}"


def plan_persona(kind: ReviewKind) -> str:
    """The review child's persona: it returns a plan, it changes nothing itself."""
    return (
        "You review a finished conversation of another agent and decide what it should keep. "
        f"Look for {_FOCUS[kind]}. You may `list` and `read` skills with the `skill` tool; you do not "
        "write anything yourself. Answer by calling `structured_output` once with: `memoryOps` — a list of "
        '{"action": "add"|"replace"|"remove", "target": "memory"|"user", "text": ..., "old_text": ...}; '
        '`skillOps` — a list of {"action": "write", "name": ..., "content": ...} or {"action": "patch", '
        '"name": ..., "old": ..., "new": ...} (read a skill before you change it); `summary` — one sentence. '
        "Empty lists are a fine answer when nothing is worth keeping."
    )


def review_request(
    kind: ReviewKind,
    signals: TurnSignals | None,
    events: Sequence[SessionEvent],
    *,
    context_messages: int,
    message_chars: int,
) -> str:
    """What the child is asked: the kind, the last turn's signals, recent tool
    lines and the last user/assistant texts, scrubbed and bounded."""
    lines = [f"Review kind: {kind}."]
    if signals is not None:
        lines.append(
            f"Last turn: {signals.tool_calls} tool calls, {signals.user_chars} user characters, "
            f"{signals.assistant_chars} assistant characters."
        )
    # gathered raw over the whole log; only the kept tail is scrubbed
    tools: list[tuple[str, str]] = []
    texts: list[tuple[str, str]] = []
    for event in events:
        if event.type in (EventTypes.TOOL_CALL, EventTypes.TOOL_RESULT) and isinstance(event.data, dict):
            detail = event.data.get("arguments") if event.type == EventTypes.TOOL_CALL else _result_text(event)
            tools.append((f"{event.type} {event.data.get('name')}", str(detail or "")))
        elif event.type in (EventTypes.USER_MESSAGE, EventTypes.ASSISTANT_MESSAGE):
            message = event_message(event)
            text = text_of(message) if message is not None else ""
            if message is not None and text.strip():
                who = "assistant" if message.role == "assistant" else message.source.get("kind", "user")
                texts.append((who, text))
    if tools:
        lines += ["", "Recent tool activity:", *(f"{head}: {scrub_text(detail, limit=500)}" for head, detail in tools[-12:])]
    lines += ["", "Conversation (most recent last):"]
    lines += [f"[{who}] {scrub_text(text, limit=message_chars)}" for who, text in texts[-context_messages:]]
    return "\n".join(lines)


def _result_text(event: SessionEvent) -> str:
    message = event_message(event)
    return text_of(message) if message is not None else ""


def _skills(names: Sequence[str]) -> str:
    return ("skills " if len(names) > 1 else "skill ") + ", ".join(names)


def _staged(report: PlanReport) -> str:
    """What waits for approval, and how to see it before it can reach a prompt."""
    notes = report.memory_staged
    what = [f"{notes} memory note{'s' if notes != 1 else ''}"] if notes else []
    if report.skills_staged:
        what.append(_skills(report.skills_staged))
    plan = report.plan_id
    return (
        f"{' and '.join(what)} staged for your approval — `/evolution show {plan}` shows the full text, "
        f"`/evolution approve {plan}` applies, `/evolution reject {plan}` discards"
    )


def applied_notice(report: PlanReport) -> str:
    parts = []
    memory = report.memory_applied
    if memory:
        parts.append(f"{memory} memory note{'s' if memory != 1 else ''} saved")
    if report.skills_applied:
        parts.append(_skills(report.skills_applied) + " saved")
    if report.memory_staged or report.skills_staged:
        parts.append(_staged(report))
    text = f"💾 Self-improvement review: {'; '.join(parts)}."
    if report.execution_error is not None:
        text += f" (stopped: {report.execution_error})"
    return scrub_text(f"{text} {report.summary}".strip(), limit=NOTICE_CHARS)


def nothing_landed_notice(reason: str) -> str:
    return scrub_text(f"Self-improvement review: nothing was saved ({reason}).", limit=NOTICE_CHARS)


def report_notice(report: PlanReport) -> str:
    """The one notice of an executed plan: what landed, or why nothing did."""
    return applied_notice(report) if report.landed else nothing_landed_notice(why_nothing(report))
