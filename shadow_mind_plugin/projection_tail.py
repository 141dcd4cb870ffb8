"""Projecting a long root session from its end.

A reviewer's prompt shows the newest entries that fit its bound behind one
marker line that counts the rest (:mod:`.prompt`). So the first review of a
long (resumed) session needs the older part of the log only for two facts:
how many entries it renders, and the first one. :class:`TailProjector` counts
them in one pass that renders nothing, and renders events backwards from the
watermark only as far as the prompt builder reads. A tool result is named by
the newest earlier call of its id: a backward scan finds it and stops there.
Entries, seqs and text equal those of :func:`.projection.project`; the tests
compare both on generated logs.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from itertools import compress
from operator import attrgetter
from typing import Any, Final, overload

import attrs

from hookspecs.values import EventTypes, SessionEvent

from .capture_window import is_compaction_boundary, kept_summary_index
from .event_render import (
    RENDERED_KINDS,
    UNKNOWN_TOOL,
    Capture,
    Disclosure,
    call_key,
    render_event,
    render_tool_result,
    renders,
    tool_name,
)
from .rendered import ENTRY_SEPARATOR, Entry, EntrySequence, Projection, entry_position

_SEQ: Final = attrgetter("seq")
_TYPE: Final = attrgetter("type")
#: events rendered (or scanned for calls) per step backwards
CHUNK: Final = 256


def stop_index(events: Sequence[SessionEvent], watermark: int, lo: int = 0) -> int:
    """``bisect_right`` by seq over ``events[lo:]``, searched from the end: the
    watermark is near it, and an index far back may not be loaded."""
    hi = len(events)
    if hi <= lo or events[hi - 1].seq <= watermark:
        return hi
    hi -= 1  # events[hi].seq > watermark
    step = 1
    while hi - step > lo:
        probe = hi - step
        if events[probe].seq <= watermark:
            return bisect_right(events, watermark, lo=probe + 1, hi=hi, key=_SEQ)
        hi, step = probe, step * 2
    return bisect_right(events, watermark, lo=lo, hi=hi, key=_SEQ)


def count_entries(events: Sequence[SessionEvent]) -> int:
    """How many entries ``events`` render (nothing is rendered)."""
    # the type filter at C speed (most events are streamed chunks); only those left are looked at
    rendered = compress(events, map(RENDERED_KINDS.__contains__, map(_TYPE, events)))
    return sum(map(renders, rendered))


def first_entry(events: Sequence[SessionEvent], lo: int, hi: int, disclosure: Disclosure) -> Entry | None:
    """The first entry ``events[lo:hi]`` render: a result there has no call before it."""
    step = CHUNK
    while lo < hi:
        for event in events[lo : min(hi, lo + step)]:
            text = render_event(event, {}, disclosure) if event.type in RENDERED_KINDS else None
            if text is not None:
                return Entry(event.seq, text, event.type)
        lo, step = lo + step, step * 2
    return None


@attrs.frozen(kw_only=True)
class WindowStart:
    """What a review needs from the part of the window no prompt may show:
    where it starts (``floor``: 0 or the newest compaction boundary's index),
    the summary kept before it, its first entry and how many entries it has."""

    floor: int
    kept: Entry | None
    first: Entry | None
    count: int


def kept_entry(events: Sequence[SessionEvent], boundary: int, disclosure: Disclosure) -> Entry | None:
    """The entry of the summary kept before the boundary at ``events[boundary]``."""
    kept = kept_summary_index(events, boundary)
    text = render_event(events[kept], {}, disclosure) if kept is not None else None
    return Entry(events[kept].seq, text, events[kept].type) if kept is not None and text else None


#: the window start of no events
NO_EVENTS: Final = WindowStart(floor=0, kept=None, first=None, count=0)


def grown(
    start: WindowStart,
    events: Sequence[SessionEvent],
    low: int,
    stop: int,
    capture: Capture,
    disclosure: Disclosure,
) -> WindowStart:
    """``start`` (the window start of ``events[:low]``) grown to ``events[:stop]``:
    only the events from ``low`` on are read, but for a new compaction's kept summary."""
    floor, kept, first, count = start.floor, start.kept, start.first, start.count
    if capture == "since-compaction":
        boundary = newest_boundary(events, stop, low)
        if boundary is not None:  # a new window opens there
            floor, kept, first, count, low = boundary, kept_entry(events, boundary, disclosure), None, 0, boundary
    added = count_entries(events[low:stop])
    if first is None and added:
        first = first_entry(events, low, stop, disclosure)
    return WindowStart(floor=floor, kept=kept, first=first, count=count + added)


def window_start(events: Sequence[SessionEvent], stop: int, capture: Capture, disclosure: Disclosure) -> WindowStart:
    """The :class:`WindowStart` of ``events[:stop]``, counted over the whole window."""
    return grown(NO_EVENTS, events, 0, stop, capture, disclosure)


def newest_index(
    events: Sequence[SessionEvent], stop: int, match: Callable[[SessionEvent], bool], *, lo: int = 0, chunk: int = 0
) -> int | None:
    """The index of the newest event in ``events[lo:stop]`` that ``match`` accepts,
    scanned backwards a slice of ``chunk`` (default :data:`CHUNK`) at a time: one
    slice, not an index per event (a session's events are a view whose item lookup
    is Python code, and an index far back may not be loaded)."""
    step = chunk or CHUNK
    high = stop
    while high > lo:
        low = max(lo, high - step)
        part = events[low:high]
        for offset in range(len(part) - 1, -1, -1):
            if match(part[offset]):
                return low + offset
        high = low
    return None


def newest_boundary(events: Sequence[SessionEvent], stop: int, lo: int = 0) -> int | None:
    """The index of the newest successful compaction end in ``events[lo:stop]``."""
    return newest_index(events, stop, is_compaction_boundary, lo=lo, chunk=CHUNK * 16)


class _Calls:
    """``call id -> [(seq, name)]`` (ascending) of the calls in ``events[low:top]``,
    the scanned part growing downwards (to ``floor``) only until a lookup is met."""

    def __init__(self, events: Sequence[SessionEvent], floor: int, top: int) -> None:
        self._events = events
        self._floor = floor
        self._low = top
        self._by_id: dict[str, list[tuple[int, str]]] = {}

    def add(self, event: SessionEvent) -> None:
        """A call after every one seen so far."""
        found = self._call(event)
        if found is not None:
            self._by_id.setdefault(found[0], []).append((event.seq, found[1]))

    @staticmethod
    def _call(event: SessionEvent) -> tuple[str, str] | None:
        data = event.data if isinstance(event.data, Mapping) else {}
        key = call_key(data.get("call_id"))
        return None if key is None else (key, tool_name(data.get("name")) or UNKNOWN_TOOL)

    def before(self, key: str, seq: int) -> tuple[str, int] | None:
        """``(name, seq)`` of the newest call of ``key`` before ``seq``."""
        while True:
            for call_seq, name in reversed(self._by_id.get(key, ())):
                if call_seq < seq:
                    return name, call_seq
            if self._low <= self._floor:
                return None
            low = max(self._floor, self._low - CHUNK)
            found: dict[str, list[tuple[int, str]]] = {}
            for event in self._events[low : self._low]:
                if event.type == EventTypes.TOOL_CALL:
                    call = self._call(event)
                    if call is not None:
                        found.setdefault(call[0], []).append((event.seq, call[1]))
            for found_key, calls in found.items():
                self._by_id[found_key] = calls + self._by_id.get(found_key, [])
            self._low = low


class _Paired(Mapping[str, tuple[str, int]]):
    """The ``calls`` a result at ``seq`` is rendered with: looked up on demand."""

    __slots__ = ("_calls", "_seq")

    def __init__(self, calls: _Calls, seq: int) -> None:
        self._calls, self._seq = calls, seq

    def __getitem__(self, key: str) -> tuple[str, int]:
        found = self._calls.before(key, self._seq)
        if found is None:
            raise KeyError(key)
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0


class TailProjector:
    """The entries of ``events[floor:]`` (and a kept summary before ``floor``),
    rendered backwards from the first watermark on demand and forwards as the
    log grows (:meth:`advance`). ``rendered`` counts events rendered."""

    def __init__(
        self,
        events: Sequence[SessionEvent],
        stop: int,
        capture: Capture,
        disclosure: Disclosure,
        start: WindowStart | None = None,
    ) -> None:
        # ``start``: the window's start as remembered (:mod:`.window_tally`), else counted here
        start = start or window_start(events, stop, capture, disclosure)
        floor = start.floor
        self._events = events
        self._disclosure = disclosure
        self._floor = floor
        self._calls = _Calls(events, floor, stop)
        self.kept = start.kept
        #: entries of events[floor:lo] not rendered yet; events[lo:stop] are, newest first in ``_below``
        self._unrendered = start.count
        self.base = self._unrendered  # = unrendered + len(below), whatever was rendered since
        self._lo = self._hi = stop
        self._below: list[Entry] = []
        self._above: list[Entry] = []
        self.seqs: set[int] = set()
        self._first = start.first
        self.rendered = 0

    def _render(self, event: SessionEvent) -> str | None:
        self.rendered += 1
        if event.type == EventTypes.TOOL_RESULT:
            return render_tool_result(event.seq, event.data, _Paired(self._calls, event.seq))
        return render_event(event, {}, self._disclosure)  # calls are the call index's

    def advance(self, events: Sequence[SessionEvent], stop: int) -> int:
        """Render ``events[hi:stop]`` (the log grew); returns how many events."""
        start, self._events = self._hi, events
        for event in events[start:stop]:
            if event.type == EventTypes.TOOL_CALL:
                self._calls.add(event)
            text = self._render(event) if event.type in RENDERED_KINDS else None
            if text is not None:
                self._above.append(Entry(event.seq, text, event.type))
                self.seqs.add(event.seq)
        self._hi = stop
        return stop - start

    def first(self) -> Entry:
        """The oldest entry of the window: a result there has no call before it."""
        if self._first is None:
            raise IndexError("no unrendered entry")
        return self._first

    def older(self, index: int) -> Entry:
        """Entry ``index`` (0: the window's oldest, ``base - 1`` the newest before the first watermark)."""
        if index == 0 and self._unrendered:
            return self.first()
        while index < self._unrendered:
            low = max(self._floor, self._lo - CHUNK)
            entries = []
            for event in self._events[low : self._lo]:
                text = self._render(event) if event.type in RENDERED_KINDS else None
                if text is not None:
                    entries.append(Entry(event.seq, text, event.type))
            self._below.extend(reversed(entries))
            self.seqs.update(entry.seq for entry in entries)
            self._unrendered -= len(entries)
            self._lo = low
            if low == self._floor and self._unrendered:  # renders() and render_event disagree
                raise RuntimeError(f"projection count is off by {self._unrendered}")
        return self._below[self.base - 1 - index]

    def newer(self, index: int) -> Entry:
        return self._above[index]

    def contains(self, seq: int) -> bool:
        """Whether the event of ``seq`` (in the window) renders; looked up, not rendered, when older."""
        if seq in self.seqs or (self.kept is not None and seq == self.kept.seq):
            return True
        if self._lo <= self._floor:
            return False
        index = bisect_left(self._events, seq, lo=self._floor, hi=self._lo, key=_SEQ)
        return index < self._lo and self._events[index].seq == seq and renders(self._events[index])

    def snapshot(self) -> TailProjection:
        return TailProjection(self, len(self._above))


class TailEntries(EntrySequence):
    """A :class:`TailProjection`'s entries: older ones rendered when read."""

    __slots__ = ("_tail", "_kept", "_newer", "_count")

    def __init__(self, tail: TailProjector, newer: int) -> None:
        self._tail, self._newer = tail, newer
        self._kept = 1 if tail.kept is not None else 0
        self._count = self._kept + tail.base + newer

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, index: int) -> Entry: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[Entry, ...]: ...

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return tuple(self[i] for i in range(*index.indices(self._count)))
        index = entry_position(index, self._count)
        tail = self._tail
        if index < self._kept:
            assert tail.kept is not None
            return tail.kept
        index -= self._kept
        return tail.older(index) if index < tail.base else tail.newer(index - tail.base)

    def __iter__(self) -> Iterator[Entry]:
        return (self[i] for i in range(self._count))


class TailSeqs(AbstractSet[int]):
    """A :class:`TailProjection`'s seqs: an older one is looked up, not rendered."""

    __slots__ = ("_tail", "_entries", "_last")

    def __init__(self, tail: TailProjector, entries: TailEntries) -> None:
        self._tail, self._entries = tail, entries
        self._last = entries[-1].seq if len(entries) else -1

    def __contains__(self, seq: object) -> bool:
        return isinstance(seq, int) and seq <= self._last and self._tail.contains(seq)

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self) -> Iterator[int]:
        return (entry.seq for entry in self._entries)

    @classmethod
    def _from_iterable(cls, it: Any) -> frozenset[Any]:
        return frozenset(it)

    __hash__ = AbstractSet._hash


class TailProjection(Projection):
    """A snapshot of a :class:`TailProjector` (it never changes as the log grows)."""

    __slots__ = ("_tail", "_newer")

    def __init__(self, tail: TailProjector, newer: int) -> None:
        self._tail, self._newer = tail, newer
        self._count = len(self.entries)
        self._text = None

    @property
    def entries(self) -> TailEntries:
        return TailEntries(self._tail, self._newer)

    @property
    def seqs(self) -> TailSeqs:
        return TailSeqs(self._tail, self.entries)

    @property
    def text(self) -> str:
        if self._text is None:
            self._text = ENTRY_SEPARATOR.join(entry.text for entry in self.entries)  # reads them all
        return self._text
