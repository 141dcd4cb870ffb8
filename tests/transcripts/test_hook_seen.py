"""A Stop on an unchanged transcript does not read it (issue 20, item 1): the
hook compares the size and a digest of the last bytes it saw, reading at most
that window, never the whole file, and never parses it. Asserted on the bytes
read (every ``os.read``/``os.pread`` of the transcript's descriptors), not on time."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from harness.transcripts import hook, seen
from harness.transcripts.hook import decide, hook_parser, state_path

from .reads import Reads
from .reviewer import claude_transcript, grow

#: a long first user message: the transcript is then many windows long
_PADDING = {"type": "user", "message": {"role": "user", "content": "x" * 4000}, "uuid": "pad"}


def _long_transcript(tmp: Path) -> Path:
    transcript = claude_transcript(tmp)
    lines = transcript.read_text().splitlines(keepends=True)
    padding = [json.dumps({**_PADDING, "uuid": f"pad-{i}"}) + "\n" for i in range(100)]
    transcript.write_text("".join(padding) + "".join(lines))  # ~400 KB, the last turn as before
    assert transcript.stat().st_size > 4 * seen.WINDOW
    return transcript


def _hook(transcript: Path) -> dict[str, Any]:
    return {"session_id": "cc-1", "transcript_path": str(transcript), "cwd": "/nowhere", "stop_hook_active": False}


def _args() -> Any:
    return hook_parser().parse_args(["claude-code"])


def test_an_unchanged_transcript_is_read_no_further_than_its_last_window(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    transcript = _long_transcript(tmp_path)
    where = state_path(home, "claude-code", "cc-1")
    hook.save_state(where, seen.Seen.of_file(transcript).to_state())  # what the last Stop saw
    reads = Reads(monkeypatch)
    answer, note = decide(_args(), _hook(transcript), home)
    assert (answer, note) == ({}, {"last_skip": "unchanged"})
    assert 0 < reads.by_path[str(transcript)] <= seen.WINDOW


def test_a_grown_or_rewritten_transcript_is_not_unchanged(tmp_path: Path) -> None:
    transcript = _long_transcript(tmp_path)
    before = seen.Seen.of_file(transcript)
    assert seen.unchanged(transcript, before)
    grow(transcript)
    assert not seen.unchanged(transcript, before)
    # same size, other last bytes: rewritten
    raw = transcript.read_bytes()[: before.size]
    transcript.write_bytes(raw[:-10] + b" " * 9 + b"\n")
    assert not seen.unchanged(transcript, before)
    assert not seen.unchanged(transcript, None)
    assert not seen.unchanged(tmp_path / "gone.jsonl", before)


def test_a_special_file_is_never_waited_on(tmp_path: Path) -> None:
    fifo = tmp_path / "t.jsonl"
    os.mkfifo(fifo)
    assert not seen.unchanged(fifo, seen.Seen(size=0, tail_sha256=seen.Seen.of_bytes(b"").tail_sha256))


def test_an_old_state_without_a_window_digest_is_not_unchanged() -> None:
    assert seen.Seen.from_state({"seen_size": 10, "seen_sha256": "ab" * 32}) is None
