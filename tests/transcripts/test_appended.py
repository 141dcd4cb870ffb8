"""A Stop reads only what was appended (issue 20, item 1).

Once a transcript has an imported session whose record holds the importer's
state and the digests of the imported bytes' first and last windows, the
next import reads those two windows and the appended bytes, never the prefix
between them, and opens the session to append only, never loading it. What
it writes is exactly what the import that replays the whole transcript
writes. Asserted on bytes read and on the events written, never on time."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.transcripts.hook import read_new
from harness.transcripts.reader import WINDOW, read_source
from harness.transcripts.record import ImportRecord
from harness.transcripts.session import write_offline
from hookspecs.values import EventTypes

from .reads import Reads
from .reviewer import FIXTURES, claude_transcript, grow, stored_events

_PADDING = {"type": "user", "message": {"role": "user", "content": "x" * 4000}, "uuid": "pad"}


def _stable(events: list[tuple[str, dict[str, Any]]]) -> list[tuple[str, Any]]:
    """Events without what differs between two imports of the same lines (message ids)."""
    out = []
    for etype, data in events:
        message = data.get("message")
        if isinstance(message, dict):
            data = {**data, "message": {k: v for k, v in message.items() if k != "id"}}
        out.append((etype, data))
    return out


def _long(tmp: Path) -> Path:
    """~400 kB of earlier turns, then the small fixture's first ten lines."""
    transcript = claude_transcript(tmp)
    tail = transcript.read_text()
    padding = "".join(json.dumps({**_PADDING, "uuid": f"pad-{i}"}) + "\n" for i in range(100))
    transcript.write_text(padding + tail)
    return transcript


def test_a_grown_transcript_is_read_from_its_recorded_end_and_its_session_is_not_loaded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    path = _long(tmp_path)
    first = write_offline(read_source(path), home, record=None, format=None)
    assert first.record.appendable
    log = home / "sessions" / first.session_id / "session.jsonl"
    assert log.stat().st_size > 4 * 64 * 1024  # a log many read chunks long
    imported = path.stat().st_size
    grow(path)
    appended = path.stat().st_size - imported
    reads = Reads(monkeypatch)
    source = read_new(path, first.record, home)
    second = write_offline(source, home, record=first.record, format=None)
    monkeypatch.undo()
    assert source.offset == imported and second.session_id == first.session_id
    # the two windows and the new bytes; the session: its header and its last turn
    assert reads.by_path[str(path)] <= 2 * WINDOW + appended
    # the log is opened relative to its folder (O_NOFOLLOW): its reads are under its bare name
    assert reads.by_path[log.name] < 2 * 64 * 1024 < log.stat().st_size
    assert [e for e in stored_events(home, first.session_id) if e[1].get("transcript_line", 0) > 110]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    name=st.sampled_from(["claude-code-small.jsonl", "codex-small.jsonl"]),
    cuts=st.lists(st.integers(1, 18), min_size=1, max_size=3, unique=True),
)
def test_appended_imports_write_what_replaying_imports_write(tmp_path: Path, name: str, cuts: list[int]) -> None:
    """However the transcript grew between Stops (even mid-turn, across a
    compaction), importing only the appended lines from the recorded state
    writes the same events as replaying the whole transcript each time."""
    lines = (FIXTURES / name).read_text().splitlines()
    stops = [*sorted(c for c in cuts if c < len(lines)), len(lines)]
    with tempfile.TemporaryDirectory(dir=tmp_path) as scratch:
        sessions = []
        for appended in (True, False):
            home, path = Path(scratch) / f"home-{appended}", Path(scratch) / f"t-{appended}.jsonl"
            record: ImportRecord | None = None
            for cut in stops:
                path.write_text("\n".join(lines[:cut]) + "\n")
                source = read_new(path, record, home) if appended else read_source(path)
                assert bool(source.offset) == (appended and record is not None)
                record = write_offline(source, home, record=record, format=None).record
                assert record.lines == cut and record.appendable
            assert record is not None
            sessions.append(_stable(stored_events(home, record.session_id)))
    assert sessions[0] == sessions[1]


def test_a_changed_prefix_is_read_whole_and_starts_a_new_session(tmp_path: Path) -> None:
    home = tmp_path / "home"
    path = _long(tmp_path)
    first = write_offline(read_source(path), home, record=None, format=None)
    imported = first.record.size
    for where in (path.read_bytes().index(b"xxxx"), imported - 20):  # in the first window, in the last
        raw = bytearray(path.read_bytes())
        raw[where] = ord("a") if raw[where] != ord("a") else ord("b")
        path.write_bytes(bytes(raw[:imported]))
        grow(path)
        source = read_new(path, first.record, home)
        assert source.offset == 0
        again = write_offline(source, home, record=first.record, format=None)
        assert again.created and again.restarted and "rewritten" in again.restarted


def test_a_torn_session_end_is_left_to_the_whole_open(tmp_path: Path) -> None:
    home = tmp_path / "home"
    path = claude_transcript(tmp_path)
    first = write_offline(read_source(path), home, record=None, format=None)
    log = home / "sessions" / first.session_id / "session.jsonl"
    with log.open("ab") as out:
        out.write(b'{"type": "turn/start", "seq"')  # a crash mid-write
    grow(path)
    second = write_offline(read_new(path, first.record, home), home, record=first.record, format=None)
    assert second.session_id == first.session_id
    events = stored_events(home, first.session_id)  # loads: the torn line was dropped by the whole open
    assert [d["turn"] for t, d in events if t == EventTypes.TURN_START] == [1, 2]


def test_a_record_of_an_earlier_version_is_read_whole_once(tmp_path: Path) -> None:
    home = tmp_path / "home"
    path = claude_transcript(tmp_path)
    first = write_offline(read_source(path), home, record=None, format=None)
    old = ImportRecord.from_json(
        {"session_id": first.session_id, "path": first.record.path, "lines": 10, "size": first.record.size,
         "sha256": read_source(path).digest(first.record.size)}
    )  # fmt: skip
    assert old is not None and not old.appendable
    grow(path)
    source = read_new(path, old, home)
    assert source.offset == 0
    second = write_offline(source, home, record=old, format=None)
    assert second.session_id == first.session_id and second.record.appendable


def test_a_missed_roll_keeps_the_session_and_the_next_stop_appends_to_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The plugin rolled and admitted no review: the imported session stays, so
    the next Stop reads and imports only what the agent appended since."""
    from harness.transcripts.hook import decide, hook_parser, load_state, save_state, state_path

    from .reviewer import make_home

    home, profile = make_home(tmp_path, "http://127.0.0.1:9/v1", probability=1e-9)
    path = _long(tmp_path)
    args = hook_parser().parse_args(["claude-code", "--profile", str(profile)])
    hook = {"session_id": "cc-1", "transcript_path": str(path), "cwd": "/nowhere", "stop_hook_active": False}
    where = state_path(home, "claude-code", "cc-1")

    def stop() -> dict[str, Any]:
        answer, note = decide(args, hook, home)
        assert answer == {}
        save_state(where, {**load_state(where), **note})
        return load_state(where)

    first = stop()
    assert first["last_reason_code"] == "NOT_ROLLED" and first["last_review_session"]
    record = ImportRecord.from_json(first["import"])
    assert record is not None and record.appendable and record.size == path.stat().st_size
    imported = path.stat().st_size
    grow(path)
    reads = Reads(monkeypatch)
    second = stop()
    monkeypatch.undo()
    assert second["last_review_session"] == first["last_review_session"]
    assert second["imported_lines"][0] == record.lines + 1
    assert reads.by_path[str(path)] <= 2 * WINDOW + path.stat().st_size - imported


def test_the_mirrored_root_takes_in_the_appended_turn_without_refolding_its_history(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After the held turn is appended, the root folds only those events: the
    history equals a full rebuild's, and no earlier message is decoded again."""
    import trio

    from harness.agents.agent import LoopAgent
    from harness.host import open_host
    from harness.sessions import history
    from harness.transcripts.session import append_imported

    home = tmp_path / "home"
    path = _long(tmp_path)
    first = write_offline(read_source(path), home, record=None, format=None)
    grow(path)
    source = read_new(path, first.record, home)
    imported = write_offline(source, home, record=first.record, format=None, hold_last_turn=True)
    assert imported.held

    async def main() -> None:
        async with open_host(rows=(), dsh_home=home, cwd=tmp_path, headless=True) as host:
            handle = await host.agents.resume(imported.session_id)
            agent = handle.agent
            assert isinstance(agent, LoopAgent)
            before = list(agent.history)
            append_imported(agent.session, imported.held)
            decoded: list[int] = []
            real = history.message_from_json
            monkeypatch.setattr(history, "message_from_json", lambda *a, **k: decoded.append(1) or real(*a, **k))
            agent.follow_log()
            monkeypatch.undo()
            followed = (list(agent.history), agent.turn_number)
            agent.reload_from_log()
            assert followed == (list(agent.history), agent.turn_number)
            assert followed[0][: len(before)] == before
            new_messages = sum(1 for e in imported.held if e.type in ("user/message", "assistant/message", "tool/result"))
            assert 0 < len(decoded) == new_messages
            await handle.dispose()

    trio.run(main)


def test_a_stop_decided_in_process_leaves_the_collector_as_it_found_it(tmp_path: Path) -> None:
    """The hook rests the collector while it builds its host; when it runs
    inside another process (a test, an embedding tool) it neither leaves the
    collector off nor freezes that process's heap (frozen objects are never
    collected)."""
    import gc

    from harness.transcripts.hook import decide, hook_parser

    from .reviewer import make_home

    home, profile = make_home(tmp_path, "http://127.0.0.1:9/v1", probability=1e-9)
    path = _long(tmp_path)
    args = hook_parser().parse_args(["claude-code", "--profile", str(profile)])
    hook = {"session_id": "cc-1", "transcript_path": str(path), "cwd": "/nowhere", "stop_hook_active": False}
    frozen = gc.get_freeze_count()
    answer, note = decide(args, hook, home)
    assert answer == {} and note["last_reason_code"] == "NOT_ROLLED"
    assert gc.isenabled() and gc.get_freeze_count() == frozen
