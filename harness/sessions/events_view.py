"""A read-only, constant-time snapshot of an append-only list."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import islice
from typing import Any, TypeVar, overload

T = TypeVar("T")


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
        n = len(self)
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError("event index out of range")
        return self._items[self._start + index]

    def __iter__(self) -> Iterator[T]:
        return islice(self._items, self._start, self._stop)

    def __reversed__(self) -> Iterator[T]:
        for i in range(self._stop - 1, self._start - 1, -1):
            yield self._items[i]

    def __repr__(self) -> str:
        return f"EventsView(len={len(self)})"
