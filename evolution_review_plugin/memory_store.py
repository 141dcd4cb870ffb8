"""Memory notes on disk: ``<dir>/MEMORY.md`` (the work) and ``<dir>/USER.md``
(the person), plain Markdown, one note per paragraph, each file size-capped.

Implements :class:`hookspecs.stores.MemoryStore`. Files are 0600 in a 0700
directory and rewritten atomically, once per batch and file.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Final

import attrs

from hookspecs.errors import DshError
from hookspecs.fsutil import write_atomic
from hookspecs.scrub import scrub_secrets
from hookspecs.stores import MemoryOp, MemorySnapshot, MemoryTarget, OpOutcome

from .nofollow import read_unfollowed, refuse_link

FILES: Final[Mapping[MemoryTarget, str]] = {"memory": "MEMORY.md", "user": "USER.md"}
#: notes are paragraphs: a blank line ends one
SEPARATOR: Final = "\n\n"
#: bound on reading one notes file (the caps are characters, checked on writes; a hand-edited
#: file may be longer, but not this long: a larger one is refused, not read into memory)
NOTES_FILE_BYTES: Final = 1 << 20


class FileMemoryStore:
    def __init__(
        self, directory: Path, *, caps: Mapping[MemoryTarget, int], warn: Callable[[str], None] = lambda line: None
    ) -> None:
        self.directory = Path(directory)
        self.caps = dict(caps)
        #: ``warn(line)`` when a notes file is refused (a planted symlink, a FIFO): it is skipped, not fatal
        self.warn = warn

    def path(self, target: MemoryTarget) -> Path:
        return self.directory / FILES[target]

    def _read(self, target: MemoryTarget) -> str:
        """The notes of ``target``; a planted symlink, a FIFO or a device is
        refused (``InputFileError``, one line), never followed or waited on."""
        text = read_unfollowed(self.path(target), limit=NOTES_FILE_BYTES, what="memory notes")
        return (text or "").strip()

    def _texts(self) -> tuple[dict[MemoryTarget, str], dict[MemoryTarget, str]]:
        """Each file's notes, and why a refused one was skipped: one bad file
        must not cost its neighbour."""
        texts: dict[MemoryTarget, str] = {}
        refused: dict[MemoryTarget, str] = {}
        for target in FILES:
            try:
                texts[target] = self._read(target)
            except DshError as exc:
                texts[target], refused[target] = "", exc.message
        return texts, refused

    def snapshot(self) -> MemorySnapshot:
        texts, refused = self._texts()
        for reason in refused.values():
            self.warn(f"{reason}; its notes are not loaded")
        return MemorySnapshot(memory=texts["memory"], user=texts["user"])

    def apply_batch(self, ops: Sequence[MemoryOp]) -> list[OpOutcome]:
        texts, refused = self._texts()
        changed: set[MemoryTarget] = set()
        outcomes: list[OpOutcome] = []
        for index, op in enumerate(ops):
            if op.target in refused:
                outcomes.append(OpOutcome(index=index, applied=False, reason=refused[op.target]))
                continue
            # notes are stored and later sent to models: no credential is kept in them
            op = attrs.evolve(op, text=scrub_secrets(op.text), old_text=scrub_secrets(op.old_text))
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
                # replaced, never written through: a symlink planted since the read is refused too
                refuse_link(self.path(target), what="memory notes")
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
