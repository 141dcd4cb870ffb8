"""Bounding the per-session maps (the reference's ``COUNTER_SWEEP_THRESHOLD``).

Every map keyed by session or agent id is cleaned when the host disposes the
agent; a sweep catches what that misses (an entry created by a turn end that
ran after the disposal). When a map holds :data:`COUNTER_SWEEP_THRESHOLD`
entries, inserting a new key first drops every entry whose agent the host no
longer has (``agents.get(id)`` is None). Entries of live agents always stay.
"""

from __future__ import annotations

from collections.abc import Callable, MutableMapping
from typing import Any, Final

COUNTER_SWEEP_THRESHOLD: Final = 128

Alive = Callable[[str], bool]


def sweep(entries: MutableMapping[str, Any], alive: Alive) -> int:
    """Drop the entries of gone agents once ``entries`` is full; returns how many."""
    if len(entries) < COUNTER_SWEEP_THRESHOLD:
        return 0
    gone = [key for key in entries if not alive(key)]
    for key in gone:
        del entries[key]
    return len(gone)


def always_alive(_: str) -> bool:
    """The default before the host is known: nothing is swept."""
    return True
