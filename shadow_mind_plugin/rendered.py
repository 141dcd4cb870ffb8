"""The result of a projection: rendered entries, their seqs and their text.

A growing root session is projected again and again. So that a later
projection costs what the new events cost, the entries live in one
append-only :class:`RenderedLog` and a :class:`Projection` is a snapshot of
its first ``count`` entries: taking one copies nothing, and a snapshot never
changes when the log grows (entries are appended in seq order, so "the seqs
of the first ``count`` entries" is a set lookup plus one comparison). The
text is joined when first read, extending the previous join.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from collections.abc import Set as AbstractSet
from itertools import islice
from operator import attrgetter
from typing import Any, Final, overload

import attrs

from .utf16 import note_extension

ENTRY_SEPARATOR: Final = "\n\n"
_SEQ: Final = attrgetter("seq")


@attrs.frozen(slots=True)
class Entry:
    """One rendered event: its seq, its text block and its event type."""

    seq: int
    text: str
    kind: str = ""


class RenderedLog:
    """Append-only entries in ascending seq order, with the set of their seqs."""

    __slots__ = ("entries", "seqs", "_joined", "_joined_count")

    def __init__(self, entries: Iterable[Entry] = ()) -> None:
        self.entries: list[Entry] = []
        self.seqs: set[int] = set()
        self._joined = ""
        self._joined_count = 0
        for entry in entries:
            self.append(entry)

    def append(self, entry: Entry) -> None:
        if self.entries and entry.seq <= self.entries[-1].seq:
            raise ValueError(f"entry seq {entry.seq} does not follow {self.entries[-1].seq}")
        self.entries.append(entry)
        self.seqs.add(entry.seq)

    def text(self, count: int) -> str:
        """The first ``count`` entries' texts, joined; extends the longest join so far."""
        if count == self._joined_count:
            return self._joined
        if count < self._joined_count:
            return ENTRY_SEPARATOR.join(entry.text for entry in islice(self.entries, count))
        tail = ENTRY_SEPARATOR.join(entry.text for entry in islice(self.entries, self._joined_count, count))
        previous = self._joined
        self._joined = f"{previous}{ENTRY_SEPARATOR}{tail}" if self._joined_count else tail
        if previous:
            note_extension(previous, self._joined)  # measuring the new text then costs its tail
        self._joined_count = count
        return self._joined

    def snapshot(self) -> Projection:
        return Projection.of_log(self, len(self.entries))


def entry_position(index: int, count: int) -> int:
    """``index`` (negative counts from the end) as a position in ``0..count-1``."""
    if index < 0:
        index += count
    if not 0 <= index < count:
        raise IndexError("entry index out of range")
    return index


class EntrySequence(Sequence[Entry]):
    """Entries, read-only; compares and hashes like the tuple it stands for."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, EntrySequence | tuple | list):
            return len(other) == len(self) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({tuple(self)!r})"


class EntriesView(EntrySequence):
    """The first ``count`` entries of a log; slices like a tuple."""

    __slots__ = ("_items", "_count")

    def __init__(self, items: list[Entry], count: int) -> None:
        self._items = items
        self._count = count

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, index: int) -> Entry: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[Entry, ...]: ...

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return tuple(self._items[: self._count][index])
        return self._items[entry_position(index, self._count)]

    def __iter__(self) -> Iterator[Entry]:
        return islice(self._items, self._count)

    def __reversed__(self) -> Iterator[Entry]:
        return (self._items[i] for i in range(self._count - 1, -1, -1))


class SeqsView(AbstractSet[int]):
    """The seqs of the first ``count`` entries of a log (the refs allowlist)."""

    __slots__ = ("_log", "_count", "_last")

    def __init__(self, log: RenderedLog, count: int) -> None:
        self._log = log
        self._count = count
        self._last = log.entries[count - 1].seq if count else -1

    def __contains__(self, seq: object) -> bool:
        return seq in self._log.seqs and isinstance(seq, int) and seq <= self._last

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[int]:
        return map(_SEQ, islice(self._log.entries, self._count))  # C-speed: anchor lists sort it per review

    @classmethod
    def _from_iterable(cls, it: Iterable[Any]) -> frozenset[Any]:
        return frozenset(it)  # set operators return plain frozensets

    __hash__ = AbstractSet._hash

    def __repr__(self) -> str:
        return f"SeqsView({set(self)!r})"


class Projection:
    """The trajectory text, the rendered seqs (the refs allowlist) and the entries.

    ``entries`` is a tuple-like sequence, ``seqs`` a frozenset-like set; both
    are snapshots (they do not change when the projected session grows)."""

    __slots__ = ("_log", "_count", "_text")

    def __init__(self, *, text: str | None = None, seqs: AbstractSet[int] | None = None, entries: Iterable[Entry] = ()) -> None:
        log = RenderedLog(entries)
        if seqs is not None and set(seqs) != log.seqs:
            raise ValueError("a projection's seqs are those of its entries")
        self._log = log
        self._count = len(log.entries)
        self._text = text

    @classmethod
    def of(cls, entries: Iterable[Entry]) -> Projection:
        return cls(entries=entries)

    @classmethod
    def of_log(cls, log: RenderedLog, count: int) -> Projection:
        self = cls.__new__(cls)
        self._log, self._count, self._text = log, count, None
        return self

    @property
    def entries(self) -> EntrySequence:
        return EntriesView(self._log.entries, self._count)

    @property
    def seqs(self) -> AbstractSet[int]:
        return SeqsView(self._log, self._count)

    @property
    def text(self) -> str:
        if self._text is None:
            self._text = self._log.text(self._count)
        return self._text

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Projection):
            return NotImplemented
        return self.entries == other.entries and self.text == other.text

    def __hash__(self) -> int:
        return hash((self._count, self.text))

    def __repr__(self) -> str:
        return f"Projection(entries={self._count}, chars={len(self.text)})"


EMPTY_PROJECTION: Final = Projection()
