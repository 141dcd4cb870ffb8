"""Which imported session mirrors a transcript, and how far it got.

One transcript (per agent session for the hook, per path for ``harness
shadow review``) keeps one imported session, so budgets, journals and traces
are per imported session. The record says which session that is and what it
already holds: the transcript's path, its last imported line, and the size and
sha256 of the bytes imported. A later import appends only the lines after
that point, and only while the transcript still starts with exactly those
bytes; a transcript that shrank or whose imported part changed starts a new
imported session (:func:`mismatch` says why).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

if TYPE_CHECKING:
    from .reader import TranscriptSource  # annotations only: the hook reads a record before it imports



@attrs.frozen(kw_only=True)
class ImportRecord:
    session_id: str
    #: the transcript's absolute path
    path: str
    #: the last transcript line the session holds
    lines: int
    #: how many bytes of the transcript were imported
    size: int
    #: sha256 of the first and of the last ``WINDOW`` bytes imported: the
    #: next import reads those and what was appended, nothing between
    head_sha256: str | None = None
    tail_sha256: str | None = None
    #: what the importer needs to go on after ``lines`` (:meth:`ImportedTranscript.state`)
    importer: dict[str, Any] | None = None
    #: sha256 of every imported byte (records of earlier versions; their
    #: next import reads the whole transcript once)
    sha256: str | None = None

    @classmethod
    def of(
        cls, session_id: str, source: TranscriptSource, *, through: int | None = None, importer: Any = None
    ) -> ImportRecord:
        """The record of a session holding ``source`` up to line ``through`` (default: all of it)."""
        if through is None or through >= source.lines:
            size, lines = source.size, source.lines
        else:
            size, lines = source.size_through(through), through
        head, tail = source.windows(size)
        return cls(
            session_id=session_id,
            path=transcript_key(source.path),
            lines=lines,
            size=size,
            head_sha256=head,
            tail_sha256=tail,
            importer=importer if isinstance(importer, dict) else None,
        )

    @property
    def appendable(self) -> bool:
        """Whether the next import may read only what was appended."""
        return self.head_sha256 is not None and self.tail_sha256 is not None and self.importer is not None

    def to_json(self) -> dict[str, Any]:
        return attrs.asdict(self)

    @classmethod
    def from_json(cls, value: Any) -> ImportRecord | None:
        """The record in a state file, or None for none or a damaged one (the
        transcript is then imported into a new session)."""
        if not isinstance(value, dict):
            return None
        try:
            given: dict[str, Any] = {f.name: value.get(f.name) for f in attrs.fields(cls)}
            record = cls(**given)
        except TypeError:
            return None
        if not all(isinstance(v, str) and v for v in (record.session_id, record.path)):
            return None
        digests = (record.head_sha256, record.tail_sha256, record.sha256)
        if not all(v is None or (isinstance(v, str) and v) for v in digests):
            return None
        if record.sha256 is None and (record.head_sha256 is None or record.tail_sha256 is None):
            return None
        if record.importer is not None and not isinstance(record.importer, dict):
            return None
        counts = (record.lines, record.size)
        return record if all(type(v) is int and v >= 0 for v in counts) else None


def transcript_key(path: Path) -> str:
    """The path a record is kept under (absolute, not resolving links: the agent names it so)."""
    return os.path.abspath(path)


def mismatch(record: ImportRecord, source: TranscriptSource) -> str | None:
    """Why ``source`` can no longer continue ``record``'s session, or None."""
    if record.path != transcript_key(source.path):
        return "the transcript path changed"
    if source.offset:
        return None  # an appended read is only made of a prefix that matched (:func:`.reader.read_appended`)
    if source.size < record.size:
        return f"the transcript shrank ({source.size} bytes, {record.size} were imported)"
    if record.sha256 is not None:
        same = source.digest(record.size) == record.sha256
    else:
        same = source.windows(record.size) == (record.head_sha256, record.tail_sha256)
    if not same:
        return f"the transcript was rewritten (its first {record.lines} lines changed since they were imported)"
    return None
