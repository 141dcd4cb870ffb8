"""Memory notes on disk: ``<dir>/MEMORY.md`` (the work) and ``<dir>/USER.md``
(the person), plain Markdown, one note per paragraph, each file size-capped.

Implements :class:`hookspecs.stores.MemoryStore`. Files are 0600 in a 0700
directory and rewritten atomically, once per batch and file.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Final

from hookspecs.errors import DshError
from hookspecs.fsutil import write_atomic
from hookspecs.stores import MemoryOp, MemorySnapshot, MemoryTarget, OpOutcome

FILES: Final[Mapping[MemoryTarget, str]] = {"memory": "MEMORY.md", "user": "USER.md"}
#: notes are paragraphs: a blank line ends one
SEPARATOR: Final = "\n\n"


class FileMemoryStore:
    def __init__(self, directory: Path, *, caps: Mapping[MemoryTarget, int]) -> None:
        self.directory = Path(directory)
        self.caps = dict(caps)

    def path(self, target: MemoryTarget) -> Path:
        return self.directory / FILES[target]

    def _read(self, target: MemoryTarget) -> str:
        try:
            return self.path(target).read_text(encoding="utf-8").strip()
        except FileNotFoundError:
            return ""
        except (OSError, UnicodeDecodeError) as exc:
            raise DshError(f"{self.path(target)}: cannot read memory notes: {exc}", code="MEMORY_UNREADABLE") from exc

    def snapshot(self) -> MemorySnapshot:
        return MemorySnapshot(memory=self._read("memory"), user=self._read("user"))

    def apply_batch(self, ops: Sequence[MemoryOp]) -> list[OpOutcome]:
        texts: dict[MemoryTarget, str] = {"memory": self._read("memory"), "user": self._read("user")}
        changed: set[MemoryTarget] = set()
        outcomes: list[OpOutcome] = []
        for index, op in enumerate(ops):
            result, reason = _apply(texts[op.target], op)
            if result is not None and len(result) > self.caps[op.target]:
                reason = (
                    f"{FILES[op.target]} would hold {len(result)} characters, over its cap of "
                    f"{self.caps[op.target]}; replace or remove older notes first"
                )
                result = None
            if result is None:
                outcomes.append(OpOutcome(index=index, applied=False, reason=reason))
                continue
            texts[op.target] = result
            changed.add(op.target)
            outcomes.append(OpOutcome(index=index, applied=True))
        for target in sorted(changed):
            try:
                write_atomic(self.path(target), texts[target] + "\n" if texts[target] else "")
            except OSError as exc:
                raise DshError(f"{self.path(target)}: cannot write memory notes: {exc}", code="MEMORY_WRITE") from exc
        return outcomes


def _apply(text: str, op: MemoryOp) -> tuple[str | None, str]:
    """The new text, or None and the reason the op cannot apply."""
    new = op.text.strip()
    if op.action == "add":
        if not new:
            return None, "add needs a non-empty text"
        if new in text:
            return None, "the note is already there"
        return (text + SEPARATOR + new if text else new), ""
    old = op.old_text.strip()
    if not old:
        return None, f"{op.action} needs old_text"
    count = text.count(old)
    if count != 1:
        where = "not found" if count == 0 else f"found {count} times"
        return None, f"old_text {where} in {FILES[op.target]}"
    if op.action == "replace":
        if not new:
            return None, "replace needs a non-empty text (use remove to delete)"
        return text.replace(old, new), ""
    rest = text.replace(old, "")
    # drop the empty paragraph the removal leaves behind
    return SEPARATOR.join(p.strip() for p in rest.split(SEPARATOR) if p.strip()), ""
