"""One imported session per transcript: a later import appends only the new
lines, continues the session's turns, and a transcript that no longer starts
with what was imported is refused as a continuation (a new session starts)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.transcripts.reader import import_source, read_source
from harness.transcripts.record import ImportRecord, mismatch
from harness.transcripts.session import continuation, write_offline
from hookspecs.values import EventTypes

from .reviewer import FIXTURES, claude_transcript, grow, stored_events
from .test_import import SHARED


def test_a_second_import_appends_only_the_new_lines_as_a_new_turn(tmp_path: Path) -> None:
    home = tmp_path / "home"
    path = claude_transcript(tmp_path)
    first = write_offline(read_source(path), home, record=None, format=None)
    assert first.created and first.record.lines == 10 and first.base_seq == 0
    before = stored_events(home, first.session_id)
    grow(path)
    second = write_offline(read_source(path), home, record=first.record, format=None)
    assert second.session_id == first.session_id and not second.created and second.restarted is None
    assert second.base_seq == len(before) and second.transcript.first_line == 11
    after = stored_events(home, first.session_id)
    assert after[: len(before)] == before
    new = after[len(before) :]
    assert {data["transcript_line"] for _, data in new} <= set(range(11, 16))
    # the continuation has no user message: it is a turn of its own, numbered after the first
    assert new[0] == (EventTypes.TURN_START, {"turn": 2, "transcript_line": 11})
    calls = [d["call_id"] for t, d in new if t == EventTypes.TOOL_CALL]
    results = [d["call_id"] for t, d in new if t == EventTypes.TOOL_RESULT]
    assert calls == results == ["toolu_8", "toolu_9"]
    assert second.record.lines == 15 and second.record.size == path.stat().st_size


def test_nothing_new_appends_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    source = read_source(claude_transcript(tmp_path))
    first = write_offline(source, home, record=None, format=None)
    again = write_offline(source, home, record=first.record, format=None)
    assert again.transcript.events == () and again.session_id == first.session_id
    assert len(stored_events(home, first.session_id)) == again.base_seq


def test_a_compaction_in_the_new_lines_shadows_the_whole_session(tmp_path: Path) -> None:
    home = tmp_path / "home"
    lines = (FIXTURES / "claude-code-small.jsonl").read_text().splitlines()
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join(lines[:10]) + "\n")
    first = write_offline(read_source(path), home, record=None, format=None)
    path.write_text("\n".join(lines) + "\n")
    write_offline(read_source(path), home, record=first.record, format=None)
    events = stored_events(home, first.session_id)
    summary = next(d for t, d in events if t == EventTypes.COMPACTION_SUMMARY)
    history = [i for i, (t, _) in enumerate(events) if t in ("user/message", "assistant/message", "tool/result")]
    assert summary["shadowed_seqs"] == [seq for seq in history if seq < events.index(("compaction/summary", summary))]
    assert summary["transcript_line"] == 12


def test_a_chunk_import_matches_the_whole_import_after_a_turn_boundary(tmp_path: Path) -> None:
    """Split where a user message starts a turn, the two imports together hold
    the whole import's events (turn numbers continue)."""
    source = read_source(FIXTURES / "claude-code-small.jsonl")
    whole = import_source(source)
    split = 13  # the line before "Now run the linter."
    head = [e for e in whole.events if e.line <= split]
    chunk = import_source(source, after_line=split, turns_before=1)
    strip = lambda e: (e.type, {k: v for k, v in e.data.items() if k != "message"})  # noqa: E731 - ids differ
    assert [strip(e) for e in head + list(chunk.events)] == [strip(e) for e in whole.events]


def test_a_transcript_that_changed_under_the_record_is_not_continued(tmp_path: Path) -> None:
    home = tmp_path / "home"
    path = claude_transcript(tmp_path)
    first = write_offline(read_source(path), home, record=None, format=None)
    record = first.record
    assert mismatch(record, read_source(path)) is None
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[:6]) + "\n")
    assert (
        mismatch(record, read_source(path))
        == f"the transcript shrank ({path.stat().st_size} bytes, {record.size} were imported)"
    )
    path.write_text("\n".join([lines[0], lines[1].replace("Fix", "Break"), *lines[2:]]) + "\n")
    assert (
        mismatch(record, read_source(path))
        == "the transcript was rewritten (its first 10 lines changed since they were imported)"
    )
    where = continuation(record, read_source(path), home)
    assert where.session_id is None and where.restarted is not None and "rewritten" in where.restarted
    moved = tmp_path / "moved.jsonl"
    moved.write_text("\n".join(lines) + "\n")
    assert mismatch(record, read_source(moved)) == "the transcript path changed"
    restarted = write_offline(read_source(path), home, record=record, format=None)
    assert restarted.created and restarted.session_id != first.session_id and restarted.restarted


def test_a_recorded_session_that_is_gone_starts_a_new_one(tmp_path: Path) -> None:
    home = tmp_path / "home"
    source = read_source(claude_transcript(tmp_path))
    first = write_offline(source, home, record=None, format=None)
    (home / "sessions" / first.session_id / "session.jsonl").unlink()
    where = continuation(first.record, source, home)
    assert where.session_id is None and where.restarted == f"its imported session {first.session_id} is gone"


def test_a_damaged_record_reads_as_none() -> None:
    good = {"session_id": "s", "path": "/t.jsonl", "lines": 3, "size": 10, "sha256": "ab"}
    assert ImportRecord.from_json(good) == ImportRecord(**good)  # type: ignore[arg-type]
    for bad in (
        None,
        [],
        {**good, "lines": "3"},
        {**good, "size": -1},
        {**good, "session_id": ""},
        {"session_id": "s"},
    ):
        assert ImportRecord.from_json(json.loads(json.dumps(bad))) is None


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    name=st.sampled_from(["claude-code-small.jsonl", "codex-small.jsonl"]),
    cuts=st.lists(st.integers(1, 18), min_size=1, max_size=3, unique=True),
)
def test_imports_at_any_cut_points_pair_every_call_once(tmp_path: Path, name: str, cuts: list[int]) -> None:
    """However the transcript grew between imports (even mid-turn), the one
    session holds every call with exactly one result, turns balanced, and every
    line's events exactly once."""
    lines = (FIXTURES / name).read_text().splitlines()
    with tempfile.TemporaryDirectory(dir=tmp_path) as scratch:
        home, path = Path(scratch) / "home", Path(scratch) / "t.jsonl"
        record = None
        for cut in [*sorted(c for c in cuts if c < len(lines)), len(lines)]:
            path.write_text("\n".join(lines[:cut]) + "\n")
            record = write_offline(read_source(path), home, record=record, format=None).record
            assert record.lines == cut
        assert record is not None
        events = stored_events(home, record.session_id)
    calls = [d["call_id"] for t, d in events if t == EventTypes.TOOL_CALL]
    results = [d["call_id"] for t, d in events if t == EventTypes.TOOL_RESULT]
    assert sorted(calls) == sorted(results) and len(set(results)) == len(results)
    types = [t for t, _ in events]
    assert types.count(EventTypes.TURN_START) == types.count(EventTypes.TURN_END)
    turns = [d["turn"] for t, d in events if t == EventTypes.TURN_START]
    assert turns == list(range(1, len(turns) + 1))
    lines_seen = [
        d["transcript_line"] for t, d in events if t in (EventTypes.USER_MESSAGE, EventTypes.ASSISTANT_MESSAGE)
    ]
    assert lines_seen == sorted(set(lines_seen))  # no message imported twice, in transcript order


@pytest.mark.skipif(not SHARED.is_dir(), reason="no ../shared/transcripts next to the repository")
def test_every_shared_transcript_imported_in_two_parts_pairs_every_call(tmp_path: Path) -> None:
    """Cut at each of its user messages' lines (a Stop falls just before one), every real transcript
    imported in two parts holds every call with exactly one result, and the same messages as one import."""
    for number, source_path in enumerate(sorted(SHARED.glob("*/*.jsonl"))):
        lines = source_path.read_bytes().split(b"\n")
        whole = import_source(read_source(source_path))
        users = [e.line for e in whole.events if e.type == EventTypes.USER_MESSAGE and e.line > 1]
        cut = users[len(users) // 2] - 1 if users else len(lines) // 2
        home, path = tmp_path / f"home{number}", tmp_path / f"t{number}.jsonl"
        path.write_bytes(b"\n".join(lines[:cut]) + b"\n")
        first = write_offline(read_source(path), home, record=None, format=whole.format)
        path.write_bytes(source_path.read_bytes())
        second = write_offline(read_source(path), home, record=first.record, format=whole.format)
        assert second.session_id == first.session_id and second.restarted is None, source_path.name
        events = stored_events(home, first.session_id)
        calls = [d["call_id"] for t, d in events if t == EventTypes.TOOL_CALL]
        results = [d["call_id"] for t, d in events if t == EventTypes.TOOL_RESULT]
        assert sorted(calls) == sorted(results) and len(set(results)) == len(results), source_path.name
        messages = [
            d["transcript_line"] for t, d in events if t in (EventTypes.USER_MESSAGE, EventTypes.ASSISTANT_MESSAGE)
        ]
        expected = [e.line for e in whole.events if e.type in (EventTypes.USER_MESSAGE, EventTypes.ASSISTANT_MESSAGE)]
        assert messages == expected, source_path.name


def test_replayed_lines_are_not_cleaned_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A later import replays the imported lines only to know their calls and
    turns: their text is dropped, so it is not scrubbed again (issue 20: the
    scrubbing regexes were most of a long transcript's re-import)."""
    from harness.transcripts import builder

    path = claude_transcript(tmp_path)
    grow(path)
    scrubbed: list[str] = []
    real = builder.scrub_visible

    def counting(text: str) -> str:
        scrubbed.append(text)
        return real(text)

    monkeypatch.setattr(builder, "scrub_visible", counting)
    import_source(read_source(path))
    everything = len(scrubbed)
    scrubbed.clear()
    later = import_source(read_source(path), after_line=10, turns_before=1)
    assert 0 < len(scrubbed) < everything
    # only the new lines' texts: the earlier lines' texts are never looked at
    assert not any("Reading it." in text for text in scrubbed)
    assert later.events and all(e.line > 10 for e in later.events)


def test_a_first_import_records_where_a_resume_may_start(tmp_path: Path) -> None:
    """The first Stop's import closes the new session as a host does: it
    records its clean point, so the next Stop's host resumes from the tail
    instead of loading and checking the whole imported log."""
    from harness.sessions.checkpoint import CHECKPOINT_FILE
    from harness.sessions.store import SessionStore

    home = tmp_path / "home"
    path = claude_transcript(tmp_path)
    first = write_offline(read_source(path), home, record=None, format=None)
    folder = home / "sessions" / first.session_id
    assert (folder / CHECKPOINT_FILE).is_file() and oct((folder / CHECKPOINT_FILE).stat().st_mode & 0o777) == "0o600"
    store = SessionStore(sessions_dir=home / "sessions", on_event=lambda _l, _e: None, now_ms=lambda: 0.0)
    log = store.open(first.session_id)
    try:
        assert log.loaded_seq == log.seq - 1  # only the checkpoint's own last event was read
        assert [(e.type, e.data) for e in log.events] == stored_events(home, first.session_id)
    finally:
        store.close(first.session_id)
