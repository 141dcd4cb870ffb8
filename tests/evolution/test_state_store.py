"""The persisted review windows keep at most ``REVIEW_STATE_SESSION_CAP``
sessions; the least recently saved go first."""

from __future__ import annotations

import json
import logging
from pathlib import Path

from evolution_review_plugin.signals import Counters
from evolution_review_plugin.state_store import ReviewStateStore
from evolution_review_plugin.vocabulary import REVIEW_STATE_SESSION_CAP


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
