"""A review child's plan: the output schema, validation, and execution.

Validation checks each op's shape, the plan's size (``maxOpsPerPlan``),
protected skills, and read-before-write: an op changing an existing skill the
child never read is dropped. Execution applies what is left to the stores and
reports every op's fate, so one notice can say what landed or why nothing did.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING, Any, Final

import attrs

from hookspecs.errors import DshError
from hookspecs.stores import MemoryOp

from .vocabulary import REVIEW_ORIGIN

if TYPE_CHECKING:
    from hookspecs.stores import MemoryStore, SkillLibrary

OUTPUT_SCHEMA: Final = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "memoryOps": {"type": "array"},
        "skillOps": {"type": "array"},
        "summary": {"type": "string"},
    },
}


@attrs.frozen(kw_only=True)
class SkillOp:
    action: str
    name: str
    content: str = ""
    old: str = ""
    new: str = ""


@attrs.frozen(kw_only=True)
class ValidPlan:
    memory_ops: tuple[MemoryOp, ...] = ()
    skill_ops: tuple[SkillOp, ...] = ()
    summary: str = ""
    rejected: tuple[str, ...] = ()


@attrs.frozen(kw_only=True)
class PlanReport:
    memory_applied: int = 0
    skills_applied: tuple[str, ...] = ()
    rejected: tuple[str, ...] = ()
    failures: tuple[str, ...] = ()
    summary: str = ""

    @property
    def landed(self) -> bool:
        return bool(self.memory_applied or self.skills_applied)


def _memory_op(raw: Any) -> MemoryOp | str:
    if not isinstance(raw, dict):
        return "a memory op must be an object"
    action, target = raw.get("action"), raw.get("target")
    if action not in ("add", "replace", "remove"):
        return f"memory op action {action!r} is not add, replace or remove"
    if target not in ("memory", "user"):
        return f"memory op target {target!r} is not memory or user"
    text, old = raw.get("text", ""), raw.get("old_text", "")
    if not isinstance(text, str) or not isinstance(old, str):
        return "memory op text and old_text must be strings"
    return MemoryOp(action=action, target=target, text=text, old_text=old)


def _skill_op(raw: Any) -> SkillOp | str:
    if not isinstance(raw, dict):
        return "a skill op must be an object"
    action, name = raw.get("action"), raw.get("name")
    if not isinstance(name, str) or not name:
        return "a skill op needs a name"
    fields = ("content",) if action == "write" else ("old", "new") if action == "patch" else None
    if fields is None:
        return f"skill op action {action!r} is not write or patch"
    values = {f: raw.get(f, "") for f in fields}
    if not all(isinstance(value, str) for value in values.values()):
        return f"skill op {name!r}: {', '.join(fields)} must be strings"
    return SkillOp(action=str(action), name=name, **values)


def validate_plan(
    structured: Any, *, max_ops: int, library: SkillLibrary | None, read_by_child: Collection[str]
) -> ValidPlan | str:
    """The ops worth executing, or why the whole plan is refused."""
    if not isinstance(structured, dict):
        return "the review returned no plan"
    memory_raw = structured.get("memoryOps") or []
    skill_raw = structured.get("skillOps") or []
    if not isinstance(memory_raw, list) or not isinstance(skill_raw, list):
        return "memoryOps and skillOps must be lists"
    total = len(memory_raw) + len(skill_raw)
    if total > max_ops:
        return f"the plan has {total} operations, over maxOpsPerPlan = {max_ops}"
    rejected: list[str] = []
    memory: list[MemoryOp] = []
    for raw in memory_raw:
        op = _memory_op(raw)
        rejected.append(op) if isinstance(op, str) else memory.append(op)
    skills: list[SkillOp] = []
    for raw in skill_raw:
        sop = _skill_op(raw)
        if isinstance(sop, str):
            rejected.append(sop)
        elif library is None:
            rejected.append(f"skill {sop.name!r}: no skill library")
        elif library.is_protected(sop.name):
            rejected.append(f"skill {sop.name!r} is protected")
        elif sop.name not in read_by_child and _exists(library, sop.name):
            rejected.append(f"skill {sop.name!r} was not read before the change (dropped)")
        else:
            skills.append(sop)
    summary = structured.get("summary")
    return ValidPlan(
        memory_ops=tuple(memory),
        skill_ops=tuple(skills),
        summary=summary.strip() if isinstance(summary, str) else "",
        rejected=tuple(rejected),
    )


def _exists(library: SkillLibrary, name: str) -> bool:
    try:
        return library.exists(name)
    except DshError:
        return False  # an invalid name: the write itself reports it


def execute_plan(plan: ValidPlan, *, memory: MemoryStore | None, library: SkillLibrary | None) -> PlanReport:
    failures: list[str] = []
    rejected = list(plan.rejected)
    applied = 0
    if plan.memory_ops:
        if memory is None:
            rejected.append("memory ops: no memory store")
        else:
            try:
                outcomes = memory.apply_batch(plan.memory_ops)
            except DshError as exc:
                failures.append(exc.message)
                outcomes = []
            applied = sum(1 for o in outcomes if o.applied)
            rejected += [f"memory op {o.index + 1}: {o.reason}" for o in outcomes if not o.applied]
    skills: list[str] = []
    for op in plan.skill_ops:
        assert library is not None  # validate_plan rejects skill ops without a library
        try:
            if op.action == "write":
                library.write(op.name, op.content, origin=REVIEW_ORIGIN)
            else:
                library.patch(op.name, op.old, op.new, origin=REVIEW_ORIGIN)
        except DshError as exc:
            failures.append(f"skill {op.name!r}: {exc.message}")
            continue
        skills.append(op.name)
    return PlanReport(
        memory_applied=applied,
        skills_applied=tuple(skills),
        rejected=tuple(rejected),
        failures=tuple(failures),
        summary=plan.summary,
    )


def why_nothing(report: PlanReport) -> str:
    reasons: Sequence[str] = [*report.rejected, *report.failures]
    if not reasons:
        return report.summary or "the review found nothing worth keeping"
    return "; ".join(reasons)
