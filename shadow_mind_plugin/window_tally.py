"""What a review of a long root session needs from the part no prompt shows,
remembered between hosts.

A reviewer's prompt shows the newest entries that fit behind one marker that
counts the rest (:mod:`.prompt`), and the evidence checks read every message
the person wrote. So from the older part of the log a review needs only the
window's start (:class:`~.projection_tail.WindowStart`: the newest compaction
boundary, the summary kept before it, the first entry, the entry count) and
the person's messages. A :class:`WindowTally` holds them through one event
and grows with the log, reading only what was appended.

When its root is released the tally is written beside the budget ledger
(``governance/<root hash>.window.json``, 0600, atomically); the first review
after a resume then reads the events appended since instead of the whole log.
A record that does not fit the log (its last event differs: another log, a
rewritten one), another format, or other projection options is not used: the
log is counted again, as without it. What the record holds was read from the
session log, which scrubbed it when it was appended.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final, overload

import attrs

from hookspecs.fsutil import write_atomic
from hookspecs.values import SessionEvent

from .definitions.files import read_home_file
from .event_render import Capture, Disclosure
from .person_messages import Earlier, Fold, Said, people_in
from .projection_tail import WindowStart, grown
from .rendered import Entry

#: bump when what the tally counts, how an entry renders or what `checks.people.protect` folds
#: changes: older records are then recounted
FORMAT: Final = 1
SUFFIX: Final = ".window.json"
#: a record larger than this is not written (the next resume counts the log again)
MAX_RECORD: Final = 4 << 20

_log = logging.getLogger(__name__)


@attrs.define(eq=False, kw_only=True)
class WindowTally:
    """The window start and the person's messages of ``events[:through + 1]``."""

    capture: Capture
    disclosure: Disclosure
    #: the seq (= index) of the last event counted; -1 before any
    through: int = -1
    #: that event's ``time``: a log whose event there differs is another log
    time: float = 0.0
    floor: int = 0
    kept: Entry | None = None
    first: Entry | None = None
    count: int = 0
    people: list[Said] = attrs.field(factory=list)
    #: what the first ``folded`` people said not to touch (``target -> (on, said)``), kept
    #: so a later review folds only the messages since (:meth:`TallyKeeper.earlier`)
    protected: dict[str, tuple[bool, Said]] = attrs.field(factory=dict)
    folded: int = 0

    def fits(self, events: Sequence[SessionEvent]) -> bool:
        """Whether ``events`` are the log counted (its event at ``through`` is the one seen)."""
        if self.through < 0:
            return True
        if self.through >= len(events):
            return False
        event = events[self.through]
        return event.seq == self.through and event.time == self.time

    def extend(self, events: Sequence[SessionEvent], stop: int) -> None:
        """Count ``events[through + 1 : stop]`` in (the events before are not read)."""
        low = self.through + 1
        if stop <= low:
            return
        window = grown(self.start(), events, low, stop, self.capture, self.disclosure)
        self.floor, self.kept, self.first, self.count = window.floor, window.kept, window.first, window.count
        self.people.extend(people_in(events[low:stop]))
        self.through, self.time = stop - 1, events[stop - 1].time

    def start(self) -> WindowStart:
        return WindowStart(floor=self.floor, kept=self.kept, first=self.first, count=self.count)

    def people_before(self, stop: int) -> list[Said]:
        """The person's messages in ``events[:stop]`` (``stop`` at most ``through + 1``)."""
        people = self.people
        if not people or people[-1].seq < stop:
            return list(people)
        return [said for said in people if said.seq < stop]

    def to_json(self, root_hash: str) -> str:
        return json.dumps(
            {
                "format": FORMAT,
                "root_session_hash": root_hash,
                "capture": self.capture,
                "disclosure": self.disclosure,
                "through": self.through,
                "time": self.time,
                "floor": self.floor,
                "count": self.count,
                "kept": _entry_json(self.kept),
                "first": _entry_json(self.first),
                "people": [[said.seq, said.text] for said in self.people],
                "folded": self.folded,
                "protected": [[target, on, said.seq] for target, (on, said) in self.protected.items()],
            },
            ensure_ascii=False,
            separators=(",", ":"),
        )

    @classmethod
    def from_json(cls, raw: bytes, root_hash: str) -> WindowTally:
        """A record written by :meth:`to_json`; ``ValueError`` for anything else."""
        data = json.loads(raw.decode("utf-8"))
        if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("root_session_hash") != root_hash:
            raise ValueError("another format or session")
        capture, disclosure, time = data.get("capture"), data.get("disclosure"), data.get("time")
        if capture not in ("full", "since-compaction") or disclosure not in ("redacted", "full"):
            raise ValueError("options")
        if isinstance(time, bool) or not isinstance(time, (int, float)):
            raise ValueError("time")
        through = _int(data.get("through"), -1, None)
        floor = _int(data.get("floor"), 0, through + 1)
        people = [_said(item, through) for item in _list(data.get("people"), None)]
        if any(a.seq >= b.seq for a, b in zip(people, people[1:], strict=False)):
            raise ValueError("people out of order")
        folded = _int(data.get("folded"), 0, len(people))
        by_seq = {said.seq: said for said in people[:folded]}
        protected: dict[str, tuple[bool, Said]] = {}
        for item in _list(data.get("protected"), None):
            target, on, seq = _list(item, 3)
            said = by_seq.get(seq)
            if not isinstance(target, str) or type(on) is not bool or said is None:
                raise ValueError("protected target")
            protected[target] = (on, said)
        return cls(
            capture=capture,
            disclosure=disclosure,
            through=through,
            time=float(time),
            floor=floor,
            kept=_entry(data.get("kept"), through),
            first=_entry(data.get("first"), through),
            count=_int(data.get("count"), 0, None),
            people=people,
            protected=protected,
            folded=folded,
        )


def _int(value: Any, least: int, most: int | None) -> int:
    if type(value) is not int or value < least or (most is not None and value > most):
        raise ValueError("a position")
    return value


def _list(value: Any, length: int | None) -> list[Any]:
    if not isinstance(value, list) or (length is not None and len(value) != length):
        raise ValueError("not a list")
    return value


def _str(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError("not a string")
    return value


def _said(item: Any, through: int) -> Said:
    seq, text = _list(item, 2)
    return Said(seq=_int(seq, 0, through), text=_str(text))


def _entry_json(entry: Entry | None) -> list[Any] | None:
    return None if entry is None else [entry.seq, entry.text, entry.kind]


def _entry(item: Any, through: int) -> Entry | None:
    if item is None:
        return None
    seq, text, kind = _list(item, 3)
    return Entry(_int(seq, 0, through), _str(text), _str(kind))


@attrs.define(eq=False)
class TallyKeeper:
    """One root's tally: read from its record when first needed, grown with
    the log, written back when the root is released (:meth:`remember`)."""

    #: the record's file; None keeps the tally in memory only
    path: Path | None
    root_hash: str = ""
    tally: WindowTally | None = None
    _read: bool = False
    #: full counts (the log read from its start), for tests and benches
    recounts: int = 0

    def window(
        self, events: Sequence[SessionEvent], stop: int, capture: Capture, disclosure: Disclosure
    ) -> WindowStart:
        """The window start of ``events[:stop]`` for these options."""
        return self._current(events, stop, capture, disclosure).start()

    def people_before(self, events: Sequence[SessionEvent], stop: int) -> list[Said]:
        """The person's messages in ``events[:stop]``."""
        tally = self.tally
        if tally is None:  # the person's messages are the same whatever options the record counted with
            tally = self.tally = self._record(events, stop, None)
        if tally is None or not tally.fits(events):
            return self._current(events, stop, "full", "redacted").people_before(stop)
        tally.extend(events, stop)  # the messages before ``through`` are kept: nothing to recount
        return tally.people_before(stop)

    def earlier(self, events: Sequence[SessionEvent], stop: int, fold: Fold) -> Earlier:
        """The person's messages in ``events[:stop]`` and what they said not to touch,
        ``fold`` (the checks' rule) applied to those not folded before."""
        people = self.people_before(events, stop)
        tally = self.tally
        assert tally is not None
        protected, start = (dict(tally.protected), tally.folded) if tally.folded <= len(people) else ({}, 0)
        for said in people[start:]:
            fold(protected, said)
        tally.protected, tally.folded = dict(protected), len(people)
        return tuple(people), protected

    def _current(
        self, events: Sequence[SessionEvent], stop: int, capture: Capture, disclosure: Disclosure
    ) -> WindowTally:
        tally = self.tally
        if tally is not None and (tally.capture, tally.disclosure) == (capture, disclosure):
            if tally.through < stop and tally.fits(events):
                tally.extend(events, stop)
                return tally
        found = self._record(events, stop, (capture, disclosure))
        if found is None:
            self.recounts += 1
            found = WindowTally(capture=capture, disclosure=disclosure)
        found.extend(events, stop)
        self.tally = found
        return found

    def _record(
        self,
        events: Sequence[SessionEvent],
        stop: int,
        options: tuple[Capture, Disclosure] | None,
        loaded_seq: int = 0,
    ) -> WindowTally | None:
        """The record on disk, read once, when it fits ``events[:stop]`` and the
        options (None: any) and ends at ``loaded_seq`` or later (checking an event
        before it would load the log's earlier part)."""
        if self.path is None or self._read:
            return None
        self._read = True
        try:
            tally = WindowTally.from_json(read_home_file(self.path, limit=MAX_RECORD), self.root_hash)
        except FileNotFoundError:
            return None
        except (OSError, ValueError, RecursionError) as exc:  # a bad record costs a recount, nothing else
            _log.debug("window tally %s not used: %s", self.path, exc)
            return None
        if options is not None and (tally.capture, tally.disclosure) != options:
            return None
        return tally if loaded_seq <= tally.through < stop and tally.fits(events) else None

    def remember(self, events: Sequence[SessionEvent], loaded_seq: int) -> None:
        """Grow the tally to the log's end and write it, when that reads only
        events in memory (from ``loaded_seq`` on): a root released without a
        review keeps the record current at the cost of what it appended."""
        if self.path is None or not events:
            return
        tally = self.tally
        if tally is None:
            tally = self._record(events, len(events), None, loaded_seq)
        if tally is None or not loaded_seq <= tally.through < len(events) or not tally.fits(events):
            return
        try:  # a new compaction's kept summary is looked for backwards, maybe past what is in memory
            tally.extend(_InMemory(events, loaded_seq), len(events))
        except _Unloaded:
            return  # the tally is as it was: the next review grows it
        self.tally = tally
        text = tally.to_json(self.root_hash)
        if len(text) > MAX_RECORD // 4:  # characters: up to 4 bytes each
            return
        try:
            write_atomic(self.path, text + "\n")
        except (OSError, UnicodeEncodeError) as exc:  # (a lone surrogate read from a hand-written log)
            _log.debug("window tally %s not written: %s", self.path, exc)


class _Unloaded(Exception):
    """A read before the part of the log in memory."""


class _InMemory(Sequence[SessionEvent]):
    """``events`` as far back as ``low``: a read further back raises
    :class:`_Unloaded` instead of loading the log's earlier part."""

    def __init__(self, events: Sequence[SessionEvent], low: int) -> None:
        self._events, self._low = events, low

    def __len__(self) -> int:
        return len(self._events)

    @overload
    def __getitem__(self, index: int) -> SessionEvent: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[SessionEvent]: ...

    def __getitem__(self, index: Any) -> Any:
        start = index.indices(len(self._events))[0] if isinstance(index, slice) else index % len(self._events)
        if start < self._low:
            raise _Unloaded
        return self._events[index]


__all__ = ["FORMAT", "SUFFIX", "TallyKeeper", "WindowTally"]
