"""The window ``capture: since-compaction`` shows a reviewer: what follows the
newest successful compaction, and the one summary standing for what came before.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from hookspecs.values import EventTypes, SessionEvent


def is_compaction_boundary(event: SessionEvent) -> bool:
    """A successful ``compaction/end`` (no error): since-compaction starts there."""
    return (
        event.type == EventTypes.COMPACTION_END
        and isinstance(event.data, Mapping)
        and event.data.get("error") is None
    )


def kept_summary(events: Sequence[SessionEvent], boundary_index: int) -> int | None:
    """The seq of the summary that stands for everything before the boundary at
    ``events[boundary_index]``: the newest one of the boundary's compaction (it
    summarised the previous summary too), else the newest one before it."""
    index = kept_summary_index(events, boundary_index)
    return None if index is None else events[index].seq


def kept_summary_index(events: Sequence[SessionEvent], boundary_index: int) -> int | None:
    """The index of :func:`kept_summary`'s event."""
    end = events[boundary_index].data
    wanted = end.get("compaction_id") if isinstance(end, Mapping) else None
    newest: int | None = None
    for index in range(boundary_index - 1, -1, -1):
        event = events[index]
        if event.type != EventTypes.COMPACTION_SUMMARY:
            continue
        if newest is None:
            newest = index
        data = event.data
        if wanted is None or (isinstance(data, Mapping) and data.get("compaction_id") == wanted):
            return index
    return newest


def skipped(event: SessionEvent, boundary: int | None, kept: int | None) -> bool:
    # before the boundary only the newest summary survives: it stands for the compacted history
    return boundary is not None and event.seq < boundary and event.seq != kept
