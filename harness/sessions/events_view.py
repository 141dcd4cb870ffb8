"""Read-only, constant-time snapshots of an append-only event list."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import islice
from typing import Any, Protocol, TypeVar, overload

T = TypeVar("T")


def _position(index: int, n: int) -> int:
    """``index`` (negative counts from the end) as a position in ``0..n-1``."""
    if index < 0:
        index += n
    if not 0 <= index < n:
        raise IndexError("event index out of range")
    return index


class EventsView(Sequence[T]):
    """``items[start:stop]`` frozen at creation. The list is append-only, so the
    view never changes even as the log grows, and making one copies nothing."""

    __slots__ = ("_items", "_start", "_stop")

    def __init__(self, items: list[T], start: int = 0, stop: int | None = None) -> None:
        self._items = items
        self._start = start
        self._stop = len(items) if stop is None else stop

    def __len__(self) -> int:
        return self._stop - self._start

    @overload
    def __getitem__(self, index: int) -> T: ...

    @overload
    def __getitem__(self, index: slice) -> list[T]: ...

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            return self._items[self._start + start : self._start + stop : step]
        return self._items[self._start + _position(index, len(self))]

    def __iter__(self) -> Iterator[T]:
        return islice(self._items, self._start, self._stop)

    def __reversed__(self) -> Iterator[T]:
        for i in range(self._stop - 1, self._start - 1, -1):
            yield self._items[i]

    def __repr__(self) -> str:
        return f"EventsView(len={len(self)})"


class Loader(Protocol[T]):
    """What :class:`LazyEvents` reads through (a :class:`~harness.sessions.log.SessionLog`)."""

    def loaded_from(self, seq: int) -> tuple[list[T], int]:
        """``(the events in memory, the seq of the first)``, loading the earlier
        part of the log first when ``seq`` is before it."""
        ...

    def in_memory(self) -> tuple[list[T], int]:
        """``(the events in memory, the seq of the first)``, loading nothing."""
        ...


class LazyEvents(Sequence[T]):
    """Events ``start..stop`` (seqs) of a log whose earlier part may not be
    loaded: the same snapshot as :class:`EventsView`, but reading an event
    before the loaded part loads the log's earlier part first (and may raise
    its :class:`~hookspecs.errors.SessionFormatError`). Walking it backwards
    reads the loaded part before it loads anything."""

    __slots__ = ("_log", "_start", "_stop")

    def __init__(self, log: Loader[T], start: int, stop: int) -> None:
        self._log = log
        self._start = start
        self._stop = stop

    def __len__(self) -> int:
        return self._stop - self._start

    @overload
    def __getitem__(self, index: int) -> T: ...

    @overload
    def __getitem__(self, index: slice) -> list[T]: ...

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            picked = range(self._start + start, self._start + stop, step)
            if not picked:
                return []
            items, first = self._log.loaded_from(min(picked[0], picked[-1]))
            if step == 1:
                return items[picked[0] - first : picked[-1] + 1 - first]
            return [items[seq - first] for seq in picked]
        seq = self._start + _position(index, len(self))
        items, first = self._log.loaded_from(seq)
        return items[seq - first]

    def __iter__(self) -> Iterator[T]:
        items, first = self._log.loaded_from(self._start)
        return islice(items, self._start - first, self._stop - first)

    def __reversed__(self) -> Iterator[T]:
        seq = self._stop - 1
        items, first = self._log.in_memory()
        while seq >= self._start:
            if seq < first:
                items, first = self._log.loaded_from(seq)
            yield items[seq - first]
            seq -= 1

    def __repr__(self) -> str:
        return f"LazyEvents(len={len(self)})"
