"""The review's time bound, in process on virtual time: a reviewer that never
answers is cancelled when the bound runs out, and its run still settles once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness.profiles import ProfileRow
from harness.transcripts import import_transcript
from harness.transcripts.review import review_imported

from ..shadow.helpers import shadow_rows, write_definition
from .reviewer import claude_transcript

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
    transcript = import_transcript(claude_transcript(tmp_path))
    outcome = await review_imported(transcript, home=home, rows=_rows(tmp_path), bound_seconds=30)
    assert outcome.phase == "timeout"
    assert outcome.run["phase"] == "aborted" and outcome.report is None


async def test_a_missed_roll_never_starts_a_run(tmp_path: Path, autojump_clock: Any) -> None:
    home = tmp_path / "home"
    write_definition(home, probability=0.4)
    seen: list[float] = []

    def roll(probability: float) -> bool:
        seen.append(probability)
        return False

    transcript = import_transcript(claude_transcript(tmp_path))
    outcome = await review_imported(transcript, home=home, rows=_rows(tmp_path), roll=roll)
    assert seen == [0.4] and outcome.phase == "not_rolled" and outcome.run == {}
