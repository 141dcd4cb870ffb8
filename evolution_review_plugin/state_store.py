"""The persisted counting windows (``$DSH_HOME/evolution/review-state.json``).

Only the two window counters and the last counted turn survive a restart;
the completion channel's tool-call total is in memory by contract.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any

from hookspecs.errors import DshError
from hookspecs.fsutil import read_regular_text, write_atomic

from .signals import Counters
from .vocabulary import REVIEW_STATE_SESSION_CAP

#: bound on the state file (500 sessions take ~50 KB); a larger one is refused, not read into memory
STATE_FILE_BYTES = 4 << 20


class ReviewStateStore:
    def __init__(self, path: Path, *, logger: logging.Logger, cap: int = REVIEW_STATE_SESSION_CAP) -> None:
        self.path = Path(path)
        self.cap = cap
        self.logger = logger
        self._sessions: dict[str, dict[str, int]] | None = None

    def _load(self) -> dict[str, dict[str, int]]:
        if self._sessions is None:
            try:
                self._sessions, problem = _read(self.path)
            except DshError as exc:
                # a bad file starts empty: the windows only delay a review, losing them loses nothing else
                self._sessions, problem = {}, f"{exc.message}; starting with empty review windows"
            if problem:
                self.logger.warning("evolution-review: %s", problem)
        return self._sessions

    def load(self, session_id: str) -> Counters:
        entry = self._load().get(session_id)
        if entry is None:
            return Counters()
        return Counters(
            turns_since_memory=entry["turnsSinceMemory"],
            turns_since_skill=entry["turnsSinceSkill"],
            last_turn=entry["lastTurn"],
        )

    def save(self, session_id: str, counters: Counters) -> None:
        """Persist one session's windows; raises ``DshError`` when the write fails."""
        sessions = self._load()
        sessions.pop(session_id, None)  # re-inserted last: the dict is oldest-first
        sessions[session_id] = {
            "turnsSinceMemory": counters.turns_since_memory,
            "turnsSinceSkill": counters.turns_since_skill,
            "lastTurn": counters.last_turn,
        }
        while len(sessions) > self.cap:
            del sessions[next(iter(sessions))]
        try:
            write_atomic(self.path, json.dumps({"version": 1, "sessions": sessions}, indent=1) + "\n")
        except OSError as exc:
            raise DshError(f"{self.path}: cannot save the review state: {exc}", code="REVIEW_STATE_WRITE") from exc


def read_state(path: Path) -> Any:
    """The state file's JSON value (None when there is no file yet).

    Raises ``DshError`` (``REVIEW_STATE_UNREADABLE``), one line naming the file,
    when it cannot be read safely: not a regular file (a FIFO would hang the
    read), over :data:`STATE_FILE_BYTES`, not UTF-8, not JSON, or nested so
    deeply that the parser would overflow the stack.
    """
    if not os.path.lexists(path):
        return None
    try:
        text = read_regular_text(path, limit=STATE_FILE_BYTES, what="review state")
    except DshError as exc:
        raise DshError(exc.message, code="REVIEW_STATE_UNREADABLE") from None
    try:
        return json.loads(text)
    except RecursionError:
        # json's C scanner recurses per nesting level; a hand-made file can exhaust the stack
        raise DshError(f"review state {path}: nested too deeply to be a review state", code="REVIEW_STATE_UNREADABLE") from None
    except ValueError as exc:
        raise DshError(f"review state {path}: not JSON ({str(exc)[:200]})", code="REVIEW_STATE_UNREADABLE") from None


def _read(path: Path) -> tuple[dict[str, dict[str, int]], str]:
    """The stored sessions and what was wrong with the file ("" when nothing);
    raises ``DshError`` when the file cannot be read at all (:func:`read_state`)."""
    data = read_state(path)
    if data is None:
        return {}, ""
    sessions = data.get("sessions") if isinstance(data, dict) else None
    if not isinstance(sessions, dict):
        return {}, f"{path}: field 'sessions' is not a mapping; starting with empty review windows"
    keys = ("turnsSinceMemory", "turnsSinceSkill", "lastTurn")
    kept = {
        sid: {k: int(entry[k]) for k in keys}
        for sid, entry in sessions.items()
        if isinstance(entry, dict) and all(isinstance(entry.get(k), int) and not isinstance(entry.get(k), bool) for k in keys)
    }
    dropped = len(sessions) - len(kept)
    return kept, f"{path}: {dropped} malformed session entr{'y' if dropped == 1 else 'ies'} ignored" if dropped else ""
