"""A review child's plan: the output schema, validation, and execution.

Validation checks each op's shape, the plan's size (``maxOpsPerPlan``),
protected skills, and read-before-write: an op changing an existing skill the
child never read is dropped. Execution applies what is left to the stores (or
stages the skill writes for approval) and reports every op's fate, so one
notice and one ``evolution/plan-applied`` ledger entry say what landed or why
nothing did.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Collection, Sequence
from typing import TYPE_CHECKING, Any, Final, TypeVar

import attrs

from hookspecs.errors import DshError, ToolArgsError
from hookspecs.scrub import scrub_secrets, scrub_text
from hookspecs.stores import MemoryOp

from .vocabulary import REVIEW_ORIGIN

if TYPE_CHECKING:
    from hookspecs.stores import MemoryStore, SkillLibrary

    from .config import Effective

#: a parsed plan op (memory or skill)
_Op = TypeVar("_Op")

#: bound on one reason string in a notice or the ledger (names come from the child)
REASON_CHARS: Final = 200

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
    #: evidence entries the accepted ops carried (the reference counts them the same way)
    evidence_quotes: int = 0


@attrs.frozen(kw_only=True)
class PlanReport:
    memory_applied: int = 0
    #: memory notes written to the staging area, waiting for ``/evolution approve`` with the skills
    memory_staged: int = 0
    skills_applied: tuple[str, ...] = ()
    #: skill ops written to the staging area, waiting for ``/evolution approve``
    skills_staged: tuple[str, ...] = ()
    rejected: tuple[str, ...] = ()
    failures: tuple[str, ...] = ()
    #: why execution stopped part-way (an unexpected error); what landed before it counts
    execution_error: str | None = None
    summary: str = ""
    plan_id: str = ""
    policy_fingerprint: str = ""
    evidence_quotes: int = 0
    estimated_input_chars: int = 0

    @property
    def landed(self) -> bool:
        return bool(self.memory_applied or self.memory_staged or self.skills_applied or self.skills_staged)


def policy_fingerprint(settings: Effective) -> str:
    """A stable digest of the effective settings a plan is validated and applied
    against: equal settings give equal digests in any process."""
    canonical = json.dumps(attrs.asdict(settings), sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:12]


def applied_payload(report: PlanReport, *, session_id: str, kind: str) -> dict[str, Any]:
    """The ``evolution/plan-applied`` payload."""
    payload: dict[str, Any] = {
        "sessionId": session_id,
        "kind": kind,
        "planId": report.plan_id,
        "policyFingerprint": report.policy_fingerprint,
        "memoryApplied": report.memory_applied,
        "memoryStaged": report.memory_staged,
        "skillApplied": list(report.skills_applied),
        "skillStaged": list(report.skills_staged),
        "rejectedOps": list(report.rejected),
        "executionFailures": list(report.failures),
        "evidenceQuotes": report.evidence_quotes,
        "estimatedInputChars": report.estimated_input_chars,
    }
    if report.execution_error is not None:
        payload["executionError"] = report.execution_error
    return payload


def _reason(text: str) -> str:
    return scrub_text(text, limit=REASON_CHARS)


def _evidence(raw: dict[str, Any]) -> int | str:
    """How many evidence entries an op carries (``evidence``: a list, optional)."""
    evidence = raw.get("evidence", [])
    if not isinstance(evidence, list):
        return "an op's evidence must be a list of quotes"
    return len(evidence)


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
    # notes are stored (or staged) and later sent to models: no credential is kept in them
    return MemoryOp(action=action, target=target, text=scrub_secrets(text), old_text=scrub_secrets(old))


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
    # skill bodies are stored (or staged) and later sent to models: no credential is kept in them
    return SkillOp(action=str(action), name=name, **{f: scrub_secrets(v) for f, v in values.items()})


def validate_plan(
    structured: Any, *, max_ops: int, library: SkillLibrary | None, read_by_child: Collection[str]
) -> ValidPlan | str:
    """The ops worth executing, or why the whole plan is refused."""
    if not isinstance(structured, dict):
        return "the review returned no plan"
    rejected: list[str] = []
    # each list stands alone: a malformed skillOps must not cost the memory ops (and back)
    memory_raw = _op_list(structured, "memoryOps", rejected)
    skill_raw = _op_list(structured, "skillOps", rejected)
    total = len(memory_raw) + len(skill_raw)
    if total > max_ops:
        return f"the plan has {total} operations, over maxOpsPerPlan = {max_ops}"
    memory, memory_quotes = _accepted(memory_raw, _memory_op, lambda op, raw: _evidence(raw), rejected)
    skills, skill_quotes = _accepted(
        skill_raw, _skill_op, lambda op, raw: _skill_refusal(op, raw, library, read_by_child), rejected
    )
    summary = structured.get("summary")
    return ValidPlan(
        memory_ops=tuple(memory),
        skill_ops=tuple(skills),
        summary=summary.strip() if isinstance(summary, str) else "",
        rejected=tuple(rejected),
        evidence_quotes=memory_quotes + skill_quotes,
    )


def _op_list(structured: dict[str, Any], key: str, rejected: list[str]) -> list[Any]:
    """``structured[key]`` as a list of raw ops; anything else is one refusal and no ops."""
    raw = structured.get(key) or []
    if isinstance(raw, list):
        return raw
    rejected.append(f"{key} must be a list of ops")
    return []


def _accepted(
    raws: list[Any],
    parse: Callable[[Any], _Op | str],
    check: Callable[[_Op, dict[str, Any]], int | str],
    rejected: list[str],
) -> tuple[list[_Op], int]:
    """The ops of ``raws`` that parse and pass ``check`` (which returns an op's
    evidence count, or why it is refused), with their evidence in all; each
    refusal is appended to ``rejected``."""
    accepted: list[_Op] = []
    evidence = 0
    for raw in raws:
        op = parse(raw)
        if isinstance(op, str):
            rejected.append(_reason(op))
            continue
        quotes = check(op, raw)
        if isinstance(quotes, str):
            rejected.append(_reason(quotes))
            continue
        accepted.append(op)
        evidence += quotes
    return accepted, evidence


def _skill_refusal(
    op: SkillOp, raw: dict[str, Any], library: SkillLibrary | None, read_by_child: Collection[str]
) -> str | int:
    """Why a well-formed skill op is refused, else its evidence count. The
    library judges the name (an invalid one raises): that refuses this op only."""
    if library is None:
        return f"skill {op.name!r}: no skill library"
    try:
        exists = library.exists(op.name)
        protected = library.is_protected(op.name)
    except DshError as exc:
        return f"skill op {op.name!r}: {_problem(exc)}"
    if protected:
        return f"skill {op.name!r} is protected"
    if op.name not in read_by_child and exists:
        return f"skill {op.name!r} was not read before the change (dropped)"
    return _evidence(raw)


def _problem(exc: DshError) -> str:
    """An error's text without the tool-argument prefix (the op is not a tool call)."""
    return "; ".join(exc.violations) if isinstance(exc, ToolArgsError) else exc.message


#: stages a plan's memory and skill ops for approval, together (raises DshError when it cannot)
Stage = Callable[[Sequence[MemoryOp], Sequence[SkillOp]], None]


def apply_skill_op(library: SkillLibrary, op: SkillOp) -> None:
    """One skill op, with the origin every plan write records."""
    if op.action == "write":
        library.write(op.name, op.content, origin=REVIEW_ORIGIN)
    else:
        library.patch(op.name, op.old, op.new, origin=REVIEW_ORIGIN)


@attrs.define(eq=False)
class _Execution:
    """What one plan execution has done so far."""

    rejected: list[str]
    failures: list[str] = attrs.field(factory=list)
    applied: int = 0
    memory_staged: int = 0
    skills: list[str] = attrs.field(factory=list)
    staged: list[str] = attrs.field(factory=list)

    def memory(self, memory: MemoryStore | None, ops: Sequence[MemoryOp]) -> None:
        if not ops:
            return
        if memory is None:
            self.rejected.append("memory ops: no memory store")
            return
        try:
            outcomes = memory.apply_batch(ops)
        except DshError as exc:
            self.failures.append(_reason(exc.message))
            return
        self.applied = sum(1 for o in outcomes if o.applied)
        self.rejected += [_reason(f"memory op {o.index + 1}: {o.reason}") for o in outcomes if not o.applied]

    def skill_ops(self, library: SkillLibrary | None, ops: Sequence[SkillOp]) -> None:
        if not ops:
            return
        assert library is not None  # validate_plan rejects skill ops without a library
        for op in ops:
            try:
                apply_skill_op(library, op)
            except DshError as exc:
                self.failures.append(_reason(f"skill {op.name!r}: {exc.message}"))
                continue
            self.skills.append(op.name)

    def stage(
        self, stage: Stage, memory: MemoryStore | None, memory_ops: Sequence[MemoryOp], skill_ops: Sequence[SkillOp]
    ) -> None:
        if memory_ops and memory is None:
            self.rejected.append("memory ops: no memory store")
            memory_ops = ()
        if not memory_ops and not skill_ops:
            return
        try:
            stage(memory_ops, skill_ops)
        except DshError as exc:
            self.failures.append(_reason(f"staging the plan: {exc.message}"))
            return
        self.memory_staged = len(memory_ops)
        self.staged = [op.name for op in skill_ops]


def execute_plan(
    plan: ValidPlan,
    *,
    memory: MemoryStore | None,
    library: SkillLibrary | None,
    stage: Stage | None = None,
) -> PlanReport:
    """Apply ``plan``: memory ops in one batch, skill ops written with origin
    ``background_review`` — or, with ``stage`` (an interactive host), hand both
    to it to wait for a person's approval: nothing reaches a prompt unseen. A
    per-op refusal is reported and the rest goes on; an unexpected error stops
    the execution and is reported with what landed before it."""
    done = _Execution(rejected=list(plan.rejected))
    error: str | None = None
    try:
        if stage is not None:
            done.stage(stage, memory, plan.memory_ops, plan.skill_ops)
        else:
            done.memory(memory, plan.memory_ops)
            done.skill_ops(library, plan.skill_ops)
    except Exception as exc:  # reported in the ledger and the notice, never lost
        error = _reason(f"{type(exc).__name__}: {exc}")
    return PlanReport(
        memory_applied=done.applied,
        memory_staged=done.memory_staged,
        skills_applied=tuple(done.skills),
        skills_staged=tuple(done.staged),
        rejected=tuple(done.rejected),
        failures=tuple(done.failures),
        execution_error=error,
        summary=plan.summary,
        evidence_quotes=plan.evidence_quotes,
    )


def why_nothing(report: PlanReport) -> str:
    reasons: Sequence[str] = [*report.rejected, *report.failures]
    if report.execution_error is not None:
        reasons = [*reasons, f"stopped: {report.execution_error}"]
    if not reasons:
        return report.summary or "the review found nothing worth keeping"
    return "; ".join(reasons)
