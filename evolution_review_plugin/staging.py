"""Approval-staged plans: a review plan's memory notes and skill writes waiting for a person.

In an interactive host a review plan is not applied: its memory ops and skill
ops are staged together, one plan per directory,
``<skills root>/.staged/<planId>/plan.json`` (0700/0600, written atomically),
and applied only when the user approves the plan (``/evolution approve
<planId>``) or discarded on ``reject``, so no note reaches a later prompt
before the person has seen it. Each staged skill op records a digest of the
skill as the reviewer saw it; an approval refuses an op whose skill changed
since (nothing written in between is overwritten) or that is pinned now.
Approved skill writes carry origin ``background_review``, like direct plan
writes. The staging area's entries are read without following symlinks.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import attrs

from hookspecs.errors import DshError
from hookspecs.fsutil import write_atomic
from hookspecs.stores import MemoryOp
from hookspecs.values import loads_strict

from .memory_store import FILES
from .nofollow import read_unfollowed, refuse_link
from .pinned import is_pinned, pinned_refusal
from .plan import SkillOp, apply_skill_op

if TYPE_CHECKING:
    from hookspecs.stores import MemoryStore, SkillLibrary

#: the staging area's directory under the skill root (not a valid skill name, so never listed as one)
STAGED_DIR: Final = ".staged"
PLAN_FILE: Final = "plan.json"
PLAN_ID: Final = re.compile(r"^[0-9a-f]{12}$")
#: bound on reading one plan file (``maxOpsPerPlan`` skills of ``skillContentChars`` fit many times)
PLAN_FILE_BYTES: Final = 64 << 20


@attrs.frozen(kw_only=True)
class StagedOp:
    op: SkillOp
    #: sha256 of the skill's text when the plan was staged; None: it did not exist
    base: str | None


@attrs.frozen(kw_only=True)
class StagedPlan:
    plan_id: str
    session_id: str
    summary: str
    ops: tuple[StagedOp, ...]
    memory_ops: tuple[MemoryOp, ...] = ()


@attrs.frozen(kw_only=True)
class Approval:
    memory_applied: int = 0
    applied: tuple[str, ...] = ()
    refused: tuple[str, ...] = ()


def check_plan_id(plan_id: str) -> str:
    if not PLAN_ID.match(plan_id):
        raise DshError(
            f"planId {plan_id!r} is not a plan id (12 hex digits, as the review notice shows)", code="BAD_PLAN_ID"
        )
    return plan_id


def _digest(library: SkillLibrary | None, name: str) -> str | None:
    if library is None:
        return None
    try:
        if not library.exists(name):
            return None
        return hashlib.sha256(library.read(name).encode("utf-8")).hexdigest()
    except DshError:
        return None


def _pinned(library: SkillLibrary, name: str) -> bool:
    try:
        return is_pinned(library, name)
    except DshError:
        return False  # an invalid name: the write refuses it with its own reason


class SkillStaging:
    def __init__(self, root: Path) -> None:
        #: ``<skills root>/.staged``
        self.root = Path(root)

    def _file(self, plan_id: str) -> Path:
        """The plan's file, after refusing a symlinked staging area or plan directory."""
        check_plan_id(plan_id)
        refuse_link(self.root, what="staging area", directory=True)
        refuse_link(self.root / plan_id, what="staged plan", directory=True)
        return self.root / plan_id / PLAN_FILE

    def stage(
        self,
        plan_id: str,
        ops: Sequence[SkillOp],
        *,
        session_id: str,
        summary: str,
        library: SkillLibrary | None,
        memory_ops: Sequence[MemoryOp] = (),
    ) -> StagedPlan:
        staged = StagedPlan(
            plan_id=plan_id,
            session_id=session_id,
            summary=summary,
            ops=tuple(StagedOp(op=op, base=_digest(library, op.name)) for op in ops),
            memory_ops=tuple(memory_ops),
        )
        path = self._file(plan_id)
        if os.path.lexists(path):  # a new plan never replaces one waiting for an answer
            raise DshError(f"{path}: a staged plan with this id already exists", code="STAGE_WRITE")
        document = {
            "planId": plan_id,
            "sessionId": session_id,
            "summary": summary,
            "memoryOps": [attrs.asdict(op) for op in staged.memory_ops],
            "ops": [{**attrs.asdict(s.op), "base": s.base} for s in staged.ops],
        }
        try:
            write_atomic(path, json.dumps(document, indent=1, ensure_ascii=False) + "\n")
        except OSError as exc:
            raise DshError(f"{path}: cannot stage the plan: {exc}", code="STAGE_WRITE") from exc
        return staged

    def pending(self) -> list[StagedPlan]:
        """Every staged plan, oldest first; an unreadable one is skipped."""
        try:
            names = [entry.name for entry in self.root.iterdir() if PLAN_ID.match(entry.name)]
        except OSError:  # no staging area yet
            return []
        dated: list[tuple[int, str]] = []
        for name in names:
            try:
                dated.append(((self.root / name / PLAN_FILE).lstat().st_mtime_ns, name))
            except OSError:  # a directory without its plan file
                continue
        plans = []
        for _, plan_id in sorted(dated):
            try:
                plans.append(self.get(plan_id))
            except DshError:
                continue
        return plans

    def get(self, plan_id: str) -> StagedPlan:
        try:
            path = self._file(plan_id)
            text = read_unfollowed(path, limit=PLAN_FILE_BYTES, what="staged plan")
        except DshError as exc:
            if exc.code == "BAD_PLAN_ID":
                raise
            raise DshError(f"unreadable staged plan: {exc.message}", code="STAGE_UNREADABLE") from None
        if text is None:
            raise DshError(f"there is no staged plan {plan_id!r}; `/evolution staged` lists them", code="NO_STAGED_PLAN")
        try:
            raw = loads_strict(text)
        except (ValueError, RecursionError) as exc:
            reason = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)[:200]
            raise DshError(f"{path}: unreadable staged plan: {reason}", code="STAGE_UNREADABLE") from None
        try:
            return _parse(raw, plan_id)
        except (KeyError, TypeError, AttributeError) as exc:
            raise DshError(f"{path}: malformed staged plan (field {exc})", code="STAGE_UNREADABLE") from None

    def approve(self, plan_id: str, library: SkillLibrary, memory: MemoryStore | None = None) -> Approval:
        """Apply the plan: its memory notes in one batch (each op refused alone),
        then its skill ops (each alone; a skill pinned or changed since staging
        is refused), then drop the plan."""
        plan = self.get(plan_id)
        memory_applied, refused = _approve_memory(plan.memory_ops, memory)
        applied: list[str] = []
        for staged in plan.ops:
            name = staged.op.name
            if _pinned(library, name):
                # a pin is the person's word over every review write, also one they approve in bulk later
                refused.append(pinned_refusal(name))
                continue
            if _digest(library, name) != staged.base:
                refused.append(f"skill {name!r} changed since the review; not overwritten")
                continue
            try:
                apply_skill_op(library, staged.op)
            except DshError as exc:
                refused.append(f"skill {name!r}: {exc.message}")
                continue
            applied.append(name)
        self._drop(plan_id)
        return Approval(memory_applied=memory_applied, applied=tuple(applied), refused=tuple(refused))

    def reject(self, plan_id: str) -> StagedPlan:
        plan = self.get(plan_id)
        self._drop(plan_id)
        return plan

    def _drop(self, plan_id: str) -> None:
        path = self._file(plan_id)
        try:
            path.unlink(missing_ok=True)
            path.parent.rmdir()
        except OSError as exc:
            raise DshError(f"{path.parent}: cannot remove the staged plan: {exc}", code="STAGE_WRITE") from exc


def _approve_memory(ops: Sequence[MemoryOp], memory: MemoryStore | None) -> tuple[int, list[str]]:
    """How many of ``ops`` the store applied, and why each other one was not."""
    if not ops:
        return 0, []
    if memory is None:
        return 0, [f"memory note {i + 1}: no memory store" for i in range(len(ops))]
    try:
        outcomes = memory.apply_batch(ops)
    except DshError as exc:
        return 0, [f"memory notes: {exc.message}"]
    return (
        sum(1 for o in outcomes if o.applied),
        [f"memory note {o.index + 1}: {o.reason}" for o in outcomes if not o.applied],
    )


def _memory_op(item: dict[str, Any]) -> MemoryOp:
    if item["action"] not in ("add", "replace", "remove") or item["target"] not in FILES:
        raise TypeError("action")
    return MemoryOp(
        action=item["action"],
        target=item["target"],
        text=str(item.get("text", "")),
        old_text=str(item.get("old_text", "")),
    )


def _parse(raw: Any, plan_id: str) -> StagedPlan:
    ops = []
    for item in raw["ops"]:
        if item["action"] not in ("write", "patch"):
            raise TypeError("action")
        fields = {k: str(item.get(k, "")) for k in ("content", "old", "new")}
        op = SkillOp(action=item["action"], name=str(item["name"]), **fields)
        base = item.get("base")
        ops.append(StagedOp(op=op, base=base if isinstance(base, str) else None))
    return StagedPlan(
        plan_id=plan_id,
        session_id=str(raw.get("sessionId", "")),
        summary=str(raw.get("summary", "")),
        ops=tuple(ops),
        # a plan staged before memory notes were staged has none
        memory_ops=tuple(_memory_op(item) for item in raw.get("memoryOps", [])),
    )
