"""Approval-staged skill writes: a plan's skill ops waiting for a person.

In an interactive host a review plan's skill writes are not applied: they are
staged, one plan per directory, ``<skills root>/.staged/<planId>/plan.json``
(0700/0600, written atomically), and applied only when the user approves the
plan (``/evolution approve <planId>``) or discarded on ``reject``. Each staged
op records a digest of the skill as the reviewer saw it; an approval refuses an
op whose skill changed since, so nothing written in between is overwritten.
Approved writes carry origin ``background_review``, like direct plan writes.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import attrs

from hookspecs.errors import DshError
from hookspecs.fsutil import write_atomic
from hookspecs.values import loads_strict

from .pinned import is_pinned, pinned_refusal
from .plan import SkillOp, apply_skill_op

if TYPE_CHECKING:
    from hookspecs.stores import SkillLibrary

#: the staging area's directory under the skill root (not a valid skill name, so never listed as one)
STAGED_DIR: Final = ".staged"
PLAN_FILE: Final = "plan.json"
PLAN_ID: Final = re.compile(r"^[0-9a-f]{12}$")


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


@attrs.frozen(kw_only=True)
class Approval:
    applied: tuple[str, ...] = ()
    refused: tuple[str, ...] = ()


def check_plan_id(plan_id: str) -> str:
    if not PLAN_ID.match(plan_id):
        raise DshError(
            f"planId {plan_id!r} is not a plan id (12 hex digits, as the review notice shows)", code="BAD_PLAN_ID"
        )
    return plan_id


def _digest(library: SkillLibrary, name: str) -> str | None:
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
        return self.root / check_plan_id(plan_id) / PLAN_FILE

    def stage(
        self, plan_id: str, ops: Sequence[SkillOp], *, session_id: str, summary: str, library: SkillLibrary
    ) -> StagedPlan:
        staged = StagedPlan(
            plan_id=plan_id,
            session_id=session_id,
            summary=summary,
            ops=tuple(StagedOp(op=op, base=_digest(library, op.name)) for op in ops),
        )
        path = self._file(plan_id)
        if path.exists():  # a new plan never replaces one waiting for an answer
            raise DshError(f"{path}: a staged plan with this id already exists", code="STAGE_WRITE")
        document = {
            "planId": plan_id,
            "sessionId": session_id,
            "summary": summary,
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
                dated.append(((self.root / name / PLAN_FILE).stat().st_mtime_ns, name))
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
        path = self._file(plan_id)
        try:
            raw = loads_strict(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise DshError(
                f"there is no staged plan {plan_id!r}; `/evolution staged` lists them", code="NO_STAGED_PLAN"
            ) from None
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            raise DshError(f"{path}: unreadable staged plan: {exc}", code="STAGE_UNREADABLE") from exc
        try:
            return _parse(raw, plan_id)
        except (KeyError, TypeError) as exc:
            raise DshError(f"{path}: malformed staged plan (field {exc})", code="STAGE_UNREADABLE") from exc

    def approve(self, plan_id: str, library: SkillLibrary) -> Approval:
        """Apply the plan's ops (each alone; a skill changed since staging is
        refused), then drop the plan."""
        plan = self.get(plan_id)
        applied: list[str] = []
        refused: list[str] = []
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
        return Approval(applied=tuple(applied), refused=tuple(refused))

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
        plan_id=plan_id, session_id=str(raw.get("sessionId", "")), summary=str(raw.get("summary", "")), ops=tuple(ops)
    )
