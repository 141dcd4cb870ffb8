"""In process on virtual time: a reviewer that never answers is cancelled
when the bound runs out and its run still settles once; the hook's governed
path leaves no session when the plugin admits no review."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from harness.profiles import ProfileRow
from harness.transcripts.governed import NO_TOOL_TURN, NOT_ROLLED, review_governed
from harness.transcripts.reader import read_source
from harness.transcripts.record import ImportRecord
from harness.transcripts.review import review_imported
from harness.transcripts.session import write_offline
from hookspecs.errors import DshError

from ..shadow.helpers import shadow_rows, write_definition
from .reviewer import claude_transcript, grow

HANGING = """
models: [{id: m, context_window: 64000}]
responses:
  - match: {depth: 1}
    repeat: true
    reply: {text: "still looking", hang: true}
"""


def _rows(tmp_path: Path) -> tuple[ProfileRow, ...]:
    script = tmp_path / "script.yml"
    script.write_text(HANGING)
    return (
        ProfileRow(id="llm", name="scripted-llm", config={"script": str(script)}, layer="test"),
        ProfileRow(id="agent-loop", name="agent-loop", config={"model": "scripted/m"}, layer="test"),
        *shadow_rows({"resultBatchWindowMs": 0}),
    )


async def test_a_hanging_reviewer_is_cut_at_the_bound_and_settles_aborted(tmp_path: Path, autojump_clock: Any) -> None:
    home = tmp_path / "home"
    write_definition(home)
    kept: list[ImportRecord] = []
    source = read_source(claude_transcript(tmp_path))
    outcome = await review_imported(
        source, home=home, rows=_rows(tmp_path), record=None, keep=kept.append, bound_seconds=30
    )
    assert outcome.phase == "timeout"
    assert outcome.run["phase"] == "aborted" and outcome.report is None
    assert [r.session_id for r in kept] == [outcome.session_id] and kept[0].lines == 10


async def test_the_hook_path_times_out_the_same_way_and_keeps_the_session(tmp_path: Path, autojump_clock: Any) -> None:
    home = tmp_path / "home"
    write_definition(home)
    kept: list[ImportRecord | None] = []
    source = read_source(claude_transcript(tmp_path))
    outcome = await review_governed(source, home=home, rows=_rows(tmp_path), record=None, keep=kept.append)
    assert outcome.phase == "timeout" and outcome.run["phase"] == "aborted"
    assert outcome.session_id is not None and (home / "sessions" / outcome.session_id).is_dir()
    assert [r.session_id if r else None for r in kept] == [outcome.session_id]


async def test_a_missed_roll_starts_no_run_and_leaves_no_session(tmp_path: Path, autojump_clock: Any) -> None:
    home = tmp_path / "home"
    write_definition(home, probability=0.0)
    kept: list[ImportRecord | None] = []
    source = read_source(claude_transcript(tmp_path))
    outcome = await review_governed(source, home=home, rows=_rows(tmp_path), record=None, keep=kept.append)
    assert outcome.phase == "skipped" and outcome.reason_code == NOT_ROLLED and outcome.run == {}
    assert outcome.session_id is None and kept == [None]
    assert not any((home / "sessions").iterdir())


async def test_new_lines_without_a_turn_are_appended_without_a_host(tmp_path: Path, autojump_clock: Any) -> None:
    home = tmp_path / "home"
    write_definition(home, probability=0.0)
    path = claude_transcript(tmp_path)
    first = write_offline(read_source(path), home, record=None, format=None)
    grow(path, [{"type": "progress", "sessionId": "cc-1", "data": {"type": "hook_progress"}}])
    kept: list[ImportRecord | None] = []
    rows = (ProfileRow(id="x", name="no-such-plugin", layer="test"), *shadow_rows())  # never loaded
    outcome = await review_governed(read_source(path), home=home, rows=rows, record=first.record, keep=kept.append)
    assert (outcome.phase, outcome.reason_code, outcome.session_id) == ("skipped", NO_TOOL_TURN, first.session_id)
    assert [r.lines if r else None for r in kept] == [11]


async def test_a_host_that_fails_to_start_leaves_no_new_session(tmp_path: Path, autojump_clock: Any) -> None:
    home = tmp_path / "home"
    write_definition(home)
    kept: list[ImportRecord | None] = []
    rows = (ProfileRow(id="x", name="no-such-plugin", layer="test"), *shadow_rows())
    with pytest.raises(DshError):
        await review_governed(
            read_source(claude_transcript(tmp_path)), home=home, rows=rows, record=None, keep=kept.append
        )
    assert kept == [None] and not any((home / "sessions").iterdir())
