"""``/evolution`` verbs for staged skill writes: a person's answer to them.

``/evolution staged`` lists the staged plans, ``show PLAN`` prints
what a plan would write, ``approve PLAN`` applies it, ``reject PLAN`` discards
it. A command is the user's own act (its output never enters model history),
so the agent cannot approve its own review's writes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Final

from hookspecs.errors import DshError
from hookspecs.scrub import scrub_text
from hookspecs.values import CommandResult

from .vocabulary import COMMAND

if TYPE_CHECKING:
    from hookspecs.stores import SkillLibrary

    from .staging import SkillStaging, StagedPlan

#: the verbs this module answers (``/evolution`` dispatches on the first word)
VERBS: Final = ("staged", "show", "approve", "reject")
USAGE: Final = """\
/evolution staged              the skill changes reviews staged for your approval
/evolution show PLAN           what a staged plan would write
/evolution approve PLAN        apply a staged plan
/evolution reject PLAN         discard a staged plan"""
#: bound on what ``show`` prints of one op's text
SHOW_CHARS: Final = 4000


def _ops(plan: StagedPlan) -> str:
    return ", ".join(f"skill {s.op.name} ({s.op.action})" for s in plan.ops)


def _listing(plans: list[StagedPlan]) -> str:
    if not plans:
        return "No staged skill changes."
    lines = [f"Staged skill changes ({COMMAND} approve PLAN applies, reject PLAN discards):"]
    for plan in plans:
        summary = f" — {scrub_text(plan.summary, limit=200)}" if plan.summary else ""
        lines.append(f"- {plan.plan_id}: {_ops(plan)}{summary}")
    return "\n".join(lines)


def _shown(plan: StagedPlan) -> str:
    parts = [f"Plan {plan.plan_id} (session {plan.session_id}): {_ops(plan)}"]
    for staged in plan.ops:
        op = staged.op
        if op.action == "write":
            body = scrub_text(op.content, limit=SHOW_CHARS)
        else:
            body = f"replace:\n{scrub_text(op.old, limit=SHOW_CHARS)}\nwith:\n{scrub_text(op.new, limit=SHOW_CHARS)}"
        parts.append(f"--- skill {op.name} ({op.action}) ---\n{body}")
    return "\n\n".join(parts)


async def staged_verb(
    words: list[str], staging: Callable[[], SkillStaging | None], library: Callable[[], SkillLibrary]
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
        outcome = store.approve(plan_id, library())
    except DshError as exc:
        return CommandResult.error(exc.message)
    text = f"Plan {plan_id} approved: " + (
        ", ".join(f"skill {name} saved" for name in outcome.applied) if outcome.applied else "nothing applied"
    )
    if outcome.refused:
        text += "; not applied: " + "; ".join(scrub_text(r, limit=200) for r in outcome.refused)
    return CommandResult.ok(text + ".")
