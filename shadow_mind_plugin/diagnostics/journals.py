"""The Shadow journals under ``shadow-minds/``: the per-definition debug
journals (``logs/<id>.jsonl``, lifecycle and quality records, written when a
definition has ``debug: true``) and the value-loop journal.

The layout comes from :mod:`..definitions.registry` and the lifecycle vocabulary
from :mod:`..governance.journal`, the modules that write them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

import attrs

from ..definitions.registry import DEBUG_LOG_SUFFIX, LOG_DIR, ROOT_DIR, VALUE_LOOP_FILE
from ..governance.journal import LIFECYCLE_EVENTS, SCHEMA_VERSION
from .jsonl import read_objects

__all__ = [
    "JOURNALS_TEXT",
    "LIFECYCLE_EVENTS",
    "RUN_FINISHED",
    "SCHEMA_VERSION",
    "JournalRecord",
    "Journals",
    "debug_journal_paths",
    "value_loop_path",
]

#: The lifecycle event that closes a run (one of :data:`LIFECYCLE_EVENTS`).
RUN_FINISHED: Final = "run-finished"
#: Where the journals are, as a reader is told it.
JOURNALS_TEXT: Final = f"{ROOT_DIR}/{LOG_DIR}/*{DEBUG_LOG_SUFFIX} or {ROOT_DIR}/{VALUE_LOOP_FILE}"


def debug_journal_paths(home: Path) -> list[Path]:
    """Every debug journal in the home, by file name."""
    return sorted((home / ROOT_DIR / LOG_DIR).glob(f"*{DEBUG_LOG_SUFFIX}"))


def value_loop_path(home: Path) -> Path:
    return home / ROOT_DIR / VALUE_LOOP_FILE


@attrs.frozen(kw_only=True)
class JournalRecord:
    """One parsed journal line."""

    #: the journal, relative to the home
    file: str
    line: int
    record: dict[str, Any]


@attrs.define(eq=False)
class Journals:
    """Every record of every journal in one home; damaged lines are skipped and counted."""

    debug: list[JournalRecord] = attrs.field(factory=list)
    value_loop: list[JournalRecord] = attrs.field(factory=list)
    #: damaged lines per journal (relative name)
    skipped: dict[str, int] = attrs.field(factory=dict)

    @classmethod
    def load(cls, home: Path) -> Journals:
        journals = cls()
        for path in debug_journal_paths(home):
            journals._read(home, path, journals.debug)
        journals._read(home, value_loop_path(home), journals.value_loop)
        return journals

    def _read(self, home: Path, path: Path, into: list[JournalRecord]) -> None:
        name = path.relative_to(home).as_posix()
        records, skipped = read_objects(path)
        into.extend(JournalRecord(file=name, line=line, record=record) for line, record in records)
        if skipped:
            self.skipped[name] = skipped

    def run_ids(self) -> list[str]:
        seen: dict[str, None] = {}
        for entry in [*self.debug, *self.value_loop]:
            run_id = entry.record.get("run_id")
            if isinstance(run_id, str):
                seen[run_id] = None
        return list(seen)

    def for_run(self, run_id: str) -> list[JournalRecord]:
        return [entry for entry in self.debug if entry.record.get("run_id") == run_id]

    def run_for_child(self, child_id: str) -> str | None:
        for entry in self.debug:
            run_id = entry.record.get("run_id")
            if entry.record.get("child_session_id") == child_id and isinstance(run_id, str):
                return run_id
        return None

    def runs_for_root(self, root_id: str) -> list[str]:
        seen: dict[str, None] = {}
        for entry in [*self.debug, *self.value_loop]:
            run_id = entry.record.get("run_id")
            if entry.record.get("root_session_id") == root_id and isinstance(run_id, str):
                seen[run_id] = None
        return list(seen)
