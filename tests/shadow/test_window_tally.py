"""The window tally: what a review needs from the older part of a long root
log, remembered between hosts (issue 20, item 8a).

Grown over any cut of a generated log, written and read back between cuts, it
gives the window start a count of the whole window gives and the person's
messages a read of the whole log gives; a record that does not fit the log is
not used; a prompt framed from a remembered start is the whole projection's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hookspecs.values import SessionEvent
from shadow_mind_plugin.checks.people import protect, protection
from shadow_mind_plugin.person_messages import people_in
from shadow_mind_plugin.projection import IncrementalProjector, project
from shadow_mind_plugin.projection_tail import window_start
from shadow_mind_plugin.window_tally import FORMAT, TallyKeeper, WindowTally

from .test_projection import Log, _build
from .test_projection_tail import _KINDS, _same, chunk

ROOT = "r" * 64


def _keeper(path: Path) -> TallyKeeper:
    return TallyKeeper(path, ROOT)


@settings(max_examples=150, deadline=None)
@given(
    kinds=_KINDS,
    cuts=st.lists(st.integers(0, 61), min_size=1, max_size=5).map(sorted),
    disclosure=st.sampled_from(["redacted", "full"]),
    capture=st.sampled_from(["full", "since-compaction"]),
    step=st.integers(1, 9),
)
def test_a_tally_grown_across_hosts_equals_a_whole_count(
    tmp_path_factory: pytest.TempPathFactory, kinds: Any, cuts: list[int], disclosure: Any, capture: Any, step: int
) -> None:
    log = _build(kinds)
    path = tmp_path_factory.mktemp("tally") / "root.window.json"
    with chunk(step):
        for cut in cuts:
            events = log.events[: cut + 1]
            keeper = _keeper(path)  # a new host: the tally comes from the record
            stop = len(events)
            assert keeper.window(events, stop, capture, disclosure) == window_start(events, stop, capture, disclosure)
            for upto in range(stop + 1):
                assert keeper.people_before(events, upto) == people_in(events[:upto])
            for upto in sorted({stop // 3, stop // 2, stop}):  # the order reviews ask in
                assert keeper.earlier(events, upto, protect) == protection(people_in(events[:upto]))
            keeper.remember(events, 0)
    if cuts:
        assert path.exists() and oct(path.stat().st_mode & 0o777) == "0o600"


@settings(max_examples=80, deadline=None)
@given(kinds=_KINDS, cut=st.integers(0, 60), capture=st.sampled_from(["full", "since-compaction"]))
def test_a_prompt_framed_from_a_remembered_start_is_the_whole_projections(
    tmp_path_factory: pytest.TempPathFactory, kinds: Any, cut: int, capture: Any
) -> None:
    log = _build(kinds)
    path = tmp_path_factory.mktemp("tally") / "root.window.json"
    first = log.events[: cut // 2 + 1]
    _keeper(path).remember(first, 0)  # nothing counted yet in that host: no record
    assert not path.exists()
    keeper = _keeper(path)
    keeper.window(first, len(first), capture, "redacted")
    keeper.remember(first, 0)
    events = log.events[: cut + 1]
    keeper = _keeper(path)
    tail = IncrementalProjector(tail_from=0, window=keeper.window).project(events, len(events) - 1, capture=capture)
    _same(tail, project(events, len(events) - 1, capture=capture), len(events) - 1, len(events))
    assert keeper.recounts == 0


def _long_log(turns: int = 50) -> Log:
    log = Log()
    for n in range(turns):
        log.user(f"question {n} über")
        log.call(f"c{n}", "read")
        log.result(f"c{n}", f"answer {n}")
    return log


class Touched(list[SessionEvent]):
    """A log that records the lowest index read."""

    lowest: int = 1 << 30

    def __getitem__(self, index: Any) -> Any:
        start = index.indices(len(self))[0] if isinstance(index, slice) else index % len(self)
        self.lowest = min(self.lowest, start)
        return super().__getitem__(index)


def test_the_next_host_counts_only_what_was_appended(tmp_path: Path) -> None:
    log = _long_log()
    path = tmp_path / "root.window.json"
    keeper = _keeper(path)
    keeper.window(log.events, len(log.events), "full", "redacted")
    keeper.remember(log.events, 0)
    old = len(log.events)
    log.user("one more")
    log.call("x", "bash")
    events = Touched(log.events)
    keeper = _keeper(path)
    start = keeper.window(events, len(events), "full", "redacted")
    assert start == window_start(log.events, len(log.events), "full", "redacted")
    assert keeper.people_before(events, len(events)) == people_in(log.events)
    assert events.lowest == old - 1 and keeper.recounts == 0  # the record's last event, checked, and what followed


@pytest.mark.parametrize(
    "change",
    ["rewritten", "shorter", "format", "session", "options", "garbled", "negative", "people order", "huge"],
)
def test_a_record_that_does_not_fit_is_not_used(tmp_path: Path, change: str) -> None:
    log = _long_log()
    path = tmp_path / "root.window.json"
    keeper = _keeper(path)
    keeper.window(log.events, len(log.events), "full", "redacted")
    keeper.remember(log.events, 0)
    record = json.loads(path.read_text())
    events = list(log.events)
    if change == "rewritten":  # another log whose event at the record's end differs
        last = events[-1]
        events[-1] = SessionEvent(type=last.type, seq=last.seq, time=last.time + 1, data=last.data)
    elif change == "shorter":
        events = events[:-3]
    elif change == "format":
        record["format"] = FORMAT + 1
    elif change == "session":
        record["root_session_hash"] = "0" * 64
    elif change == "options":
        record["capture"] = "since-compaction"
    elif change == "negative":
        record["count"] = -1
    elif change == "people order":
        record["people"] = list(reversed(record["people"]))
    if change == "garbled":
        path.write_bytes(b'{"format": 1, "through": [[[')
    elif change == "huge":
        path.write_bytes(b" " * (5 << 20))
    else:
        path.write_text(json.dumps(record))
    keeper = _keeper(path)
    start = keeper.window(events, len(events), "full", "redacted")
    assert start == window_start(events, len(events), "full", "redacted")
    assert keeper.people_before(events, len(events)) == people_in(events)
    assert keeper.recounts == 1


def test_a_release_that_would_load_the_logs_earlier_part_writes_nothing(tmp_path: Path) -> None:
    log = _long_log()
    path = tmp_path / "root.window.json"
    keeper = _keeper(path)
    keeper.window(log.events, 60, "full", "redacted")
    keeper.remember(log.events[:60], 0)
    written = path.read_bytes()
    keeper = _keeper(path)
    keeper.remember(log.events, 100)  # the record ends before what is in memory: checking it would load
    assert path.read_bytes() == written
    keeper = _keeper(path)
    keeper.remember(log.events, 59)
    assert json.loads(path.read_text())["through"] == len(log.events) - 1


def test_the_persons_messages_come_from_a_record_counted_with_other_options(tmp_path: Path) -> None:
    log = _long_log()
    path = tmp_path / "root.window.json"
    keeper = _keeper(path)
    keeper.window(log.events, len(log.events), "since-compaction", "full")
    keeper.remember(log.events, 0)
    log.user("one more")
    keeper = _keeper(path)
    assert keeper.people_before(log.events, len(log.events)) == people_in(log.events)
    assert keeper.recounts == 0


def test_a_release_whose_new_compaction_would_look_back_into_the_earlier_part_writes_nothing(
    tmp_path: Path,
) -> None:
    log = Log()
    log.summary("what came before", "c1")
    log.compaction_end("c1")
    for n in range(40):
        log.user(f"question {n}")
        log.call(f"c{n}", "read")
        log.result(f"c{n}", f"answer {n}")
    path = tmp_path / "root.window.json"
    keeper = _keeper(path)
    keeper.window(log.events, len(log.events), "since-compaction", "redacted")
    keeper.remember(log.events, 0)
    written, loaded = path.read_bytes(), len(log.events) - 1
    log.compaction_end("c2")  # no summary of its own in memory: the one kept is looked for further back
    log.user("after the compaction")
    events = Touched(log.events)
    keeper = _keeper(path)
    keeper.remember(events, loaded)
    assert events.lowest >= loaded and path.read_bytes() == written
    keeper = _keeper(path)
    start = keeper.window(events, len(events), "since-compaction", "redacted")  # a review reads back
    assert start == window_start(log.events, len(log.events), "since-compaction", "redacted")
    assert keeper.recounts == 0


def test_a_record_that_cannot_be_written_costs_nothing_else(tmp_path: Path) -> None:
    path = tmp_path / "root.window.json"
    path.mkdir()  # in the record's place: the atomic rename fails
    log = _long_log()
    keeper = _keeper(path)
    start = keeper.window(log.events, len(log.events), "full", "redacted")
    keeper.remember(log.events, 0)
    assert path.is_dir() and start == window_start(log.events, len(log.events), "full", "redacted")


def test_a_lone_surrogate_read_from_a_hand_written_log_costs_the_record_only(tmp_path: Path) -> None:
    log = _long_log()
    log.user("a lone \ud800 read back from a hand-written line")  # UTF-8 cannot write it
    path = tmp_path / "root.window.json"
    keeper = _keeper(path)
    keeper.window(log.events, len(log.events), "full", "redacted")
    keeper.remember(log.events, 0)
    keeper = _keeper(path)
    assert keeper.people_before(log.events, len(log.events)) == people_in(log.events)


def test_the_record_round_trips() -> None:
    tally = WindowTally(capture="since-compaction", disclosure="full")
    tally.extend(_long_log(5).events, 15)
    again = WindowTally.from_json(tally.to_json(ROOT).encode(), ROOT)
    assert attrs_tuple(again) == attrs_tuple(tally)


def attrs_tuple(tally: WindowTally) -> tuple[Any, ...]:
    return (
        tally.capture,
        tally.disclosure,
        tally.through,
        tally.time,
        tally.floor,
        tally.kept,
        tally.first,
        tally.count,
        tally.people,
    )


_SAID = [
    "don't touch src/a.py please",
    "leave `b.txt` alone",
    "now src/a.py can change",  # names it without the prohibition: lifted
    "never edit docs/c.md",
    "b.txt is off-limits again",
    "plain words",
]


@settings(max_examples=60, deadline=None)
@given(
    order=st.lists(st.integers(0, len(_SAID) - 1), min_size=1, max_size=12),
    cuts=st.lists(st.integers(0, 40), max_size=4).map(sorted),
)
def test_what_the_person_protected_folds_on_across_hosts(
    tmp_path_factory: pytest.TempPathFactory, order: list[int], cuts: list[int]
) -> None:
    log = Log()
    for n, pick in enumerate(order):
        log.user(_SAID[pick])
        log.call(f"c{n}", "read")
        log.result(f"c{n}", "ok")
    path = tmp_path_factory.mktemp("tally") / "root.window.json"
    for cut in [*cuts, len(log.events) - 1]:
        events = log.events[: cut + 1]
        keeper = _keeper(path)
        last = max((s.seq for s in people_in(events)), default=0)  # a review asks up to the newest person message
        for stop in (last, len(events)):
            assert keeper.earlier(events, stop, protect) == protection(people_in(events[:stop]))
        keeper.remember(events, 0)
