"""Resuming a large session reads its log from the last clean point (issue 20).

A log closed (or repaired) clean records a checkpoint; a resume reads the
header, the line before the checkpoint and the events after it, and loads the
earlier events (validating the whole log, as a whole load does) only when
something reads them. Asserted on bytes read and on the events seen, never on
time."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.sessions.checkpoint import CHECKPOINT_FILE
from harness.sessions.shapes import load_log
from hookspecs.errors import SessionFormatError
from hookspecs.values import AgentOptions, EventTypes

from ..transcripts.reads import Reads
from .helpers import ECHO, scripted_host
from .lazy_logs import append_turns, store_at, turn_events, write_log

LOG = "session.jsonl"


def _eager(path: Path) -> list[Any]:
    return load_log(path, is_known=lambda _t: True, where=LOG).events


async def test_resume_and_an_appended_turn_read_only_the_logs_tail(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_log(tmp_path / "home", "big", turns=300, pad=3000)
    size = path.stat().st_size
    assert size > 1_500_000
    async with scripted_host(tmp_path, ECHO) as (host, _):
        reads = Reads(monkeypatch)
        handle = await host.agents.resume("big", agent_options=AgentOptions(provider="scripted", model="m"))
        agent = handle.agent
        turn = agent.turn_number + 1
        for etype, data in turn_events(turn, pad=3000):
            agent.session.append(etype, data)
        agent.follow_log()
        await handle.dispose()
        monkeypatch.undo()
        # the header, the line before the checkpoint; nothing of the 1.5 MB before it
        assert reads.by_path[LOG] < 16 * 1024, reads.by_path
        assert turn == 301
    events = _eager(path)
    assert [e.type for e in events[-8:]] == [t for t, _ in turn_events(turn)]
    assert [e.seq for e in events] == list(range(len(events)))
    async with scripted_host(tmp_path, ECHO) as (host, _):
        handle = await host.agents.resume("big")  # no model named: the route is looked up from the end
        try:
            assert handle.agent.resolved_route == "scripted/m"
            assert handle.agent.session.loaded_seq == 0  # the route was in the first turn: the head was loaded
            assert list(handle.agent.session.events) == events
            assert handle.agent.turn_number == 301
        finally:
            await handle.dispose()


def _lazy_and_eager(home: Path, before: int, after: int) -> tuple[Any, Any, list[Any]]:
    """A log of ``before`` turns closed clean, ``after`` more appended without a
    checkpoint; then opened from its checkpoint."""
    path = write_log(home, "s", turns=before)
    store = store_at(home)
    log = store.open("s")
    append_turns(log, before + 1, after)
    log.close()  # not through the store: no new checkpoint
    store = store_at(home)
    return store, store.open("s"), _eager(path)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    before=st.integers(1, 6),
    after=st.integers(0, 3),
    picks=st.lists(
        st.tuples(st.integers(-70, 70), st.integers(-70, 70), st.sampled_from([1, 2, -1, -3])), max_size=4
    ),
    first=st.sampled_from(["len", "iter", "reversed", "index", "slice", "since"]),
)
def test_lazily_resumed_events_equal_the_eagerly_loaded_ones(
    before: int, after: int, picks: list[tuple[int, int, int]], first: str
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        store, log, eager = _lazy_and_eager(Path(tmp), before, after)
        try:
            # in memory: the last event the checkpoint covers and those after it (turn 1 logs its route too)
            assert log.loaded_seq == before * len(turn_events(2)) and log.clean[0] == log.loaded_seq + 1
            events = log.events
            n = len(eager)
            # whichever read comes first, it sees what the eager load holds
            if first == "len":
                assert len(events) == n and log.seq == n
            elif first == "iter":
                assert list(events) == eager
            elif first == "reversed":
                assert list(reversed(events)) == eager[::-1]
            elif first == "index":
                assert [events[i] for i in range(-n, n)] == [eager[i] for i in range(-n, n)]
            elif first == "since":
                assert list(log.events_since(n - 3)) == eager[n - 3 :]
            for start, stop, step in picks:
                assert events[start:stop:step] == eager[start:stop:step]
            assert list(events) == eager and events[-1] == eager[-1]
            # appends go on with the same numbering, and earlier snapshots keep their length
            appended = log.append("turn/start", {"turn": before + after + 1})
            assert appended.seq == n and len(events) == n and len(log.events) == n + 1
            assert list(log.events_since(0))[:n] == eager
        finally:
            store.close("s")
        assert _eager(Path(tmp) / "sessions" / "s" / LOG)[:n] == eager


def test_reading_backwards_loads_the_earlier_part_only_when_it_gets_there(tmp_path: Path) -> None:
    store, log, eager = _lazy_and_eager(tmp_path, 3, 2)
    first = log.loaded_seq
    walked = reversed(log.events)
    for expected in eager[first:][::-1]:
        assert next(walked) == expected
    assert log.loaded_seq == first  # the loaded part walked, nothing else read
    assert next(walked) == eager[first - 1] and log.loaded_seq == 0
    store.close("s")


def _garble(path: Path, line: int) -> None:
    """Make file line ``line`` (1-based) not JSON, keeping every byte offset."""
    lines = path.read_bytes().split(b"\n")
    lines[line - 1] = b"#" + lines[line - 1][1:]
    path.write_bytes(b"\n".join(lines))


async def test_corruption_before_the_checkpoint_is_reported_when_the_earlier_part_is_read(tmp_path: Path) -> None:
    path = write_log(tmp_path / "home", "s", turns=5)
    _garble(path, 3)
    async with scripted_host(tmp_path, ECHO) as (host, _):
        handle = await host.agents.resume("s", agent_options=AgentOptions(provider="scripted", model="m"))
        try:
            session = handle.agent.session
            assert session.loaded_seq > 0  # the resume read the tail only: the garbled line is before it
            with pytest.raises(SessionFormatError) as caught:
                session.events[0]
            message = str(caught.value)
            assert message.startswith("sessions/s/session.jsonl:3: not a JSON event line")
            assert "\n" not in message
            with pytest.raises(SessionFormatError):  # again on every read before the tail
                list(session.events)
            assert session.events[-1].type == EventTypes.TURN_END  # the tail still reads
        finally:
            await handle.dispose()


def test_corruption_after_the_checkpoint_refuses_the_resume(tmp_path: Path) -> None:
    store, log, _ = _lazy_and_eager(tmp_path, 2, 1)
    first = log.loaded_seq
    store.close("s")
    path = tmp_path / "sessions" / "s" / LOG
    count = len(_eager(path))
    _garble(path, count + 1)  # the last event's line: complete but garbled, a torn write (dropped)
    _garble(path, first + 3)  # a line after the checkpoint
    with pytest.raises(SessionFormatError, match=rf"^sessions/s/session.jsonl:{first + 3}: not a JSON event line"):
        store_at(tmp_path).open("s")


def test_a_line_nested_too_deeply_after_the_checkpoint_is_a_format_error(tmp_path: Path) -> None:
    # the JSON decoder recurses per level: a whole load names it, and so must the tail read
    store, _, _ = _lazy_and_eager(tmp_path, 2, 1)
    store.close("s")
    path = tmp_path / "sessions" / "s" / LOG
    assert (path.parent / CHECKPOINT_FILE).exists()
    with path.open("ab") as handle:
        handle.write(b"[" * 200_000 + b"]" * 200_000 + b"\n")
    with pytest.raises(SessionFormatError, match=r"^sessions/s/session.jsonl: a line is nested too deeply to load$"):
        store_at(tmp_path).open("s")


def test_a_stale_checkpoint_is_not_trusted(tmp_path: Path) -> None:
    path = write_log(tmp_path, "s", turns=3)
    record = path.parent / CHECKPOINT_FILE
    mark = json.loads(record.read_text())
    record.write_text(json.dumps({**mark, "time": mark["time"] + 1}))  # the log was rewritten since
    store = store_at(tmp_path)
    log = store.open("s")
    assert log.loaded_seq == 0 and list(log.events) == _eager(path)
    store.close("s")
    _garble(path, 3)
    record.write_text(json.dumps({**mark, "seq": mark["seq"] - 1}))  # names another line
    with pytest.raises(SessionFormatError, match="session.jsonl:3: not a JSON event line"):
        store_at(tmp_path).open("s")  # loaded whole: the garbled line refuses it at once


async def test_a_crashed_turn_after_the_checkpoint_is_repaired_from_the_tail(tmp_path: Path) -> None:
    home = tmp_path / "home"
    path = write_log(home, "s", turns=4)
    store = store_at(home)
    log = store.open("s")
    for etype, data in turn_events(5)[:5]:  # up to the tool call: the host died before its result
        log.append(etype, data)
    log.close()
    async with scripted_host(tmp_path, ECHO) as (host, _):
        handle = await host.agents.resume("s", agent_options=AgentOptions(provider="scripted", model="m"))
        session = handle.agent.session
        try:
            tail = [(e.type, e.data.get("error", {}).get("code")) for e in session.events_since(session.seq - 3)]
            assert tail == [("tool/result", "INTERRUPTED"), ("step/end", None), ("turn/end", None)]
            assert session.loaded_seq > 0 and handle.agent.turn_number == 5
        finally:
            await handle.dispose()
    mark = json.loads((path.parent / CHECKPOINT_FILE).read_text())
    assert mark["seq"] == len(_eager(path)) and mark["turns"] == 5  # the repaired end is the next clean point
