"""The persisted review windows keep at most ``REVIEW_STATE_SESSION_CAP``
sessions; the least recently saved go first."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

import pytest

from evolution_review_plugin.signals import Counters
from evolution_review_plugin.state_store import ReviewStateStore, read_state
from evolution_review_plugin.vocabulary import REVIEW_STATE_SESSION_CAP
from hookspecs.errors import DshError


def entry(n: int) -> dict[str, int]:
    return {"turnsSinceMemory": n, "turnsSinceSkill": n, "lastTurn": n}


def test_the_cap_is_the_references_and_the_oldest_session_goes_first(tmp_path: Path) -> None:
    assert REVIEW_STATE_SESSION_CAP == 500
    path = tmp_path / "evolution" / "review-state.json"
    path.parent.mkdir()
    full = {f"s{i}": entry(i) for i in range(REVIEW_STATE_SESSION_CAP)}
    path.write_text(json.dumps({"version": 1, "sessions": full}))
    store = ReviewStateStore(path, logger=logging.getLogger("test"))
    # saving s0 again makes it the newest: s1 is now the oldest
    store.save("s0", Counters(turns_since_memory=7, turns_since_skill=7, last_turn=7))
    store.save("new", Counters(turns_since_memory=1, turns_since_skill=2, last_turn=3))
    sessions = json.loads(path.read_text())["sessions"]
    assert len(sessions) == REVIEW_STATE_SESSION_CAP
    assert "s1" not in sessions and sessions["s0"] == entry(7)
    assert list(sessions)[-2:] == ["s0", "new"]
    assert sessions["new"] == {"turnsSinceMemory": 1, "turnsSinceSkill": 2, "lastTurn": 3}
    # a fresh store reads what was kept
    reread = ReviewStateStore(path, logger=logging.getLogger("test"))
    assert reread.load("s1") == Counters() and reread.load("s2") == Counters(turns_since_memory=2, turns_since_skill=2, last_turn=2)


def test_a_deeply_nested_state_file_is_one_clear_error_and_fresh_windows(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "evolution" / "review-state.json"
    path.parent.mkdir()
    path.write_text('{"sessions": ' + "[" * 100_000 + "]" * 100_000 + "}")
    with pytest.raises(DshError, match=r"review-state\.json: .*nested too deeply") as raised:
        read_state(path)
    assert "\n" not in raised.value.message
    store = ReviewStateStore(path, logger=logging.getLogger("test"))
    with caplog.at_level(logging.WARNING):
        assert store.load("s1") == Counters()  # fresh windows, as for any corrupt file
    [warning] = [r.getMessage() for r in caplog.records]
    assert "nested too deeply" in warning and "starting with empty review windows" in warning
    assert "\n" not in warning
    store.save("s1", Counters(turns_since_memory=1, turns_since_skill=1, last_turn=1))  # and it keeps working
    assert json.loads(path.read_text())["sessions"]["s1"]["lastTurn"] == 1


def test_a_state_file_that_is_a_fifo_does_not_hang(tmp_path: Path) -> None:
    path = tmp_path / "review-state.json"
    os.mkfifo(path)
    with pytest.raises(DshError, match="not a regular file"):
        read_state(path)
    assert ReviewStateStore(path, logger=logging.getLogger("test")).load("s1") == Counters()
