"""Project a root session into the plain-text trajectory a Shadow reviews.

The projection is privacy-preserving: it never contains reasoning, tool result
text or (unless ``disclosure="full"``) tool arguments. Each rendered event is
prefixed with ``[seq=N ...]`` (:mod:`.event_render`); the seqs that produced
text are the only valid ``refs`` a report may cite.

:func:`project` renders from scratch; :class:`IncrementalProjector` keeps the
rendered entries of one growing root session so a later review only renders
the events appended since the previous one, with an identical result. A long
log it first sees is projected from its end (:mod:`.projection_tail`): only as
far back as the reviewer's bounded prompt reads.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from operator import attrgetter
from typing import Final, TypeAlias

from hookspecs.values import SessionEvent

from .capture_window import is_compaction_boundary, kept_summary, skipped
from .event_render import (
    Capture,
    Disclosure,
    render_event,
    summarize_tool_result,
    visible_text,
)
from .projection_tail import TailProjector, WindowStart, newest_boundary, stop_index
from .rendered import EMPTY_PROJECTION, ENTRY_SEPARATOR, Entry, Projection, RenderedLog

__all__ = [
    "EMPTY_PROJECTION",
    "ENTRY_SEPARATOR",
    "Capture",
    "Disclosure",
    "Entry",
    "IncrementalProjector",
    "Projection",
    "project",
    "render_event",
    "summarize_tool_result",
    "visible_text",
]

_SEQ: Final = attrgetter("seq")
#: ``(events, stop, capture, disclosure) -> the window start of events[:stop]``
WindowSource: TypeAlias = Callable[[Sequence[SessionEvent], int, Capture, Disclosure], WindowStart]
#: a log at least this long, seen first, is projected from its end
TAIL_MIN_EVENTS: Final = 2_000

# --- full projection -----------------------------------------------------------------------


def project(
    events: Sequence[SessionEvent],
    watermark: int,
    *,
    disclosure: Disclosure = "redacted",
    capture: Capture = "full",
) -> Projection:
    """Render ``events`` up to and including seq ``watermark`` (from scratch)."""
    boundary: int | None = None
    kept: int | None = None
    if capture == "since-compaction":
        for index in range(len(events) - 1, -1, -1):
            event = events[index]
            if event.seq <= watermark and is_compaction_boundary(event):
                boundary, kept = event.seq, kept_summary(events, index)
                break
    calls: dict[str, tuple[str, int]] = {}
    rendered = RenderedLog()
    for event in events:
        if event.seq > watermark:
            break
        if skipped(event, boundary, kept):
            continue
        text = render_event(event, calls, disclosure)
        if text is not None:
            rendered.append(Entry(event.seq, text, event.type))
    return rendered.snapshot()


# --- incremental projection -----------------------------------------------------------------


class IncrementalProjector:
    """Projects one growing (append-only) root session, rendering each event once.

    Call :meth:`project` with the session's current events each time; when the
    events extend those of the previous call, the watermark did not go down and
    the disclosure/capture are unchanged, only the new events are rendered.
    Anything else (a different session, a lower watermark, other options)
    falls back to a full rebuild. The result always equals :func:`project`.

    ``rendered_events`` counts events handed to the renderer (cumulative),
    ``last_rendered`` those of the latest call and ``rebuilds`` the resets. A
    log of ``tail_from`` events or more seen first is projected from its end:
    older events are rendered when a reader (the prompt builder) reaches them,
    and counted at the next call.
    """

    def __init__(self, *, tail_from: int = TAIL_MIN_EVENTS, window: WindowSource | None = None) -> None:
        #: a first call seeing at least this many events projects from the end
        self.tail_from = tail_from
        #: where a long log's window starts, as remembered (:mod:`.window_tally`); else counted
        self.window = window
        self.rendered_events = 0
        self.last_rendered = 0
        self.rebuilds = 0
        self._options: tuple[str, str] | None = None
        self._reset(None)

    def _reset(self, options: tuple[str, str] | None) -> None:
        if getattr(self, "_tail", None) is not None:
            self._sync_tail()
        self._options = options
        self._watermark = -1
        self._consumed = 0  # index of the first event not yet looked at
        self._last: SessionEvent | None = None  # events[_consumed - 1], to detect a different log
        self._rendered = RenderedLog()
        self._calls: dict[str, tuple[str, int]] = {}
        self._boundary: int | None = None
        self._kept: int | None = None  # the seq of the summary kept before the boundary
        self._cached: Projection = EMPTY_PROJECTION
        self._tail: TailProjector | None = None
        self._tail_rendered = 0  # of the tail's events, those counted in rendered_events

    def reset(self) -> None:
        """Forget everything (e.g. when the root session is replaced)."""
        self._reset(None)

    @property
    def watermark(self) -> int:
        """The watermark of the latest call (-1 before the first)."""
        return self._watermark

    def _continues(self, events: Sequence[SessionEvent]) -> bool:
        if len(events) < self._consumed:
            return False
        if self._consumed == 0:
            return True
        previous = events[self._consumed - 1]
        return previous is self._last or previous == self._last

    def project(
        self,
        events: Sequence[SessionEvent],
        watermark: int,
        *,
        disclosure: Disclosure = "redacted",
        capture: Capture = "full",
    ) -> Projection:
        options = (disclosure, capture)
        if options != self._options or watermark < self._watermark or not self._continues(events):
            if self._options is not None:
                self.rebuilds += 1
            self._reset(options)
        start = self._consumed
        # seqs ascend: searched from the end, not a walk over the log (the first call sees all of it)
        stop = stop_index(events, watermark, start)
        self._watermark = watermark
        self.last_rendered = 0
        if stop == start:
            return self._cached
        if self._tail is not None or (start == 0 and stop >= self.tail_from):
            return self._project_tail(events, start, stop, capture, disclosure)
        changed = capture == "since-compaction" and self._advance_boundary(events, start, stop)
        # one slice, not an index per event: a session's events are a view whose
        # item lookup is Python code (twice the cost of rendering a resumed log)
        for event in events[start:stop]:
            if skipped(event, self._boundary, self._kept):
                continue
            self.last_rendered += 1
            text = render_event(event, self._calls, disclosure)
            if text is not None:
                self._rendered.append(Entry(event.seq, text, event.type))
                changed = True
        self.rendered_events += self.last_rendered
        self._consumed = stop
        self._last = events[stop - 1]
        if changed:
            self._cached = self._rendered.snapshot()  # copies nothing
        return self._cached

    def _project_tail(
        self, events: Sequence[SessionEvent], start: int, stop: int, capture: Capture, disclosure: Disclosure
    ) -> Projection:
        """A long log first seen, and its growth: rendered from the end as far as
        it is read (:mod:`.projection_tail`); a new compaction boundary opens a new
        window there."""
        tail = self._tail
        # a first sight opens the window anyway: only the new events of a known log are scanned
        if tail is None or (capture == "since-compaction" and newest_boundary(events, stop, start) is not None):
            self._sync_tail()
            known = self.window(events, stop, capture, disclosure) if self.window is not None else None
            tail = self._tail = TailProjector(events, stop, capture, disclosure, known)
            self._tail_rendered = 0
        else:
            tail.advance(events, stop)
        self.last_rendered = self._sync_tail()
        self._consumed = stop
        self._last = events[stop - 1]
        self._cached = tail.snapshot()
        return self._cached

    def _sync_tail(self) -> int:
        """Adds what the tail rendered since (also lazily, when a prompt read it)."""
        if self._tail is None:
            return 0
        new = self._tail.rendered - self._tail_rendered
        self._tail_rendered = self._tail.rendered
        self.rendered_events += new
        return new

    def _advance_boundary(self, events: Sequence[SessionEvent], start: int, stop: int) -> bool:
        """The boundary only moves forward, to the newest successful compaction/end
        among the new events; older entries (but the kept summary) and calls then
        go. Returns whether it moved."""
        index = newest_boundary(events, stop, start)
        if index is None:
            return False
        boundary = events[index].seq
        if boundary == self._boundary:
            return False
        self._boundary, self._kept = boundary, kept_summary(events, index)
        kept = self._kept
        # a new log: snapshots handed out earlier keep the old one
        self._rendered = RenderedLog(e for e in self._rendered.entries if e.seq >= boundary or e.seq == kept)
        self._calls = {key: call for key, call in self._calls.items() if call[1] >= boundary}
        return True
