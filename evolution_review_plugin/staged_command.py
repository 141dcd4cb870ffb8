"""``/evolution`` verbs for staged plans: a person's answer to a review's
memory notes and skill writes.

``/evolution staged`` lists the staged plans, ``show PLAN`` prints the full
text of every note and skill a plan would write, ``approve PLAN`` applies it,
``reject PLAN`` discards it. A command is the user's own act (its output never
enters model history), so the agent cannot approve its own review's writes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Final

from hookspecs.errors import DshError
from hookspecs.scrub import scrub_text
from hookspecs.values import CommandResult

from .memory_store import FILES
from .vocabulary import COMMAND

if TYPE_CHECKING:
    from hookspecs.stores import MemoryOp, MemoryStore, SkillLibrary

    from .staging import Approval, SkillStaging, StagedPlan

#: the verbs this module answers (``/evolution`` dispatches on the first word)
VERBS: Final = ("staged", "show", "approve", "reject")
USAGE: Final = """\
/evolution staged              the memory notes and skill changes reviews staged for your approval
/evolution show PLAN           the full text a staged plan would write
/evolution approve PLAN        apply a staged plan
/evolution reject PLAN         discard a staged plan"""


def _note(op: MemoryOp) -> str:
    return f"memory note ({op.action}, {FILES[op.target]})"


def _ops(plan: StagedPlan) -> str:
    return ", ".join([*map(_note, plan.memory_ops), *(f"skill {s.op.name} ({s.op.action})" for s in plan.ops)])


def _listing(plans: list[StagedPlan]) -> str:
    if not plans:
        return "No staged changes."
    lines = [f"Staged changes (/{COMMAND} show PLAN prints them, approve PLAN applies, reject PLAN discards):"]
    for plan in plans:
        summary = f" — {scrub_text(plan.summary, limit=200)}" if plan.summary else ""
        lines.append(f"- {plan.plan_id}: {_ops(plan)}{summary}")
    return "\n".join(lines)


def _replacement(old: str, new: str) -> str:
    return f"replace:\n{old}\nwith:\n{new}"


def _shown(plan: StagedPlan) -> str:
    """Every staged text in full: what the person approves is exactly what is
    written (credentials were scrubbed when it was staged; the terminal makes
    control characters visible)."""
    parts = [f"Plan {plan.plan_id} (session {plan.session_id}): {_ops(plan)}"]
    for index, note in enumerate(plan.memory_ops, 1):
        if note.action == "add":
            body = note.text
        elif note.action == "replace":
            body = _replacement(note.old_text, note.text)
        else:
            body = f"remove:\n{note.old_text}"
        parts.append(f"--- memory note {index}: {note.action} in {FILES[note.target]} ---\n{body}")
    for staged in plan.ops:
        op = staged.op
        body = op.content if op.action == "write" else _replacement(op.old, op.new)
        parts.append(f"--- skill {op.name} ({op.action}) ---\n{body}")
    return "\n\n".join(parts)


def _approved(plan_id: str, outcome: Approval) -> str:
    saved = [f"skill {name} saved" for name in outcome.applied]
    notes = outcome.memory_applied
    if notes:
        saved.insert(0, f"{notes} memory note{'s' if notes != 1 else ''} saved")
    text = f"Plan {plan_id} approved: " + (", ".join(saved) if saved else "nothing applied")
    if outcome.refused:
        text += "; not applied: " + "; ".join(scrub_text(r, limit=200) for r in outcome.refused)
    return text + "."


async def staged_verb(
    words: list[str],
    staging: Callable[[], SkillStaging | None],
    library: Callable[[], SkillLibrary],
    memory: Callable[[], MemoryStore | None] = lambda: None,
) -> CommandResult:
    """Answer ``words`` (a verb of :data:`VERBS` and its arguments)."""
    verb, args = words[0], words[1:]
    store = staging()
    if store is None:
        return CommandResult.error("evolution-review is not ready (the host has not started)")
    try:
        if verb == "staged" and not args:
            return CommandResult.ok(_listing(store.pending()))
        if verb == "staged" or len(args) != 1:
            return CommandResult.error(f"usage:\n{USAGE}")
        plan_id = args[0]
        if verb == "show":
            return CommandResult.ok(_shown(store.get(plan_id)))
        if verb == "reject":
            plan = store.reject(plan_id)
            return CommandResult.ok(f"Plan {plan_id} rejected: {_ops(plan)} discarded.")
        return CommandResult.ok(_approved(plan_id, store.approve(plan_id, library(), memory())))
    except DshError as exc:
        return CommandResult.error(exc.message)
