"""The persisted counting windows (``$DSH_HOME/evolution/review-state.json``).

Only the two window counters and the last counted turn survive a restart;
the completion channel's tool-call total is in memory by contract.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from hookspecs.errors import DshError
from hookspecs.fsutil import write_atomic

from .signals import Counters
from .vocabulary import REVIEW_STATE_SESSION_CAP


class ReviewStateStore:
    def __init__(self, path: Path, *, logger: logging.Logger, cap: int = REVIEW_STATE_SESSION_CAP) -> None:
        self.path = Path(path)
        self.cap = cap
        self.logger = logger
        self._sessions: dict[str, dict[str, int]] | None = None

    def _load(self) -> dict[str, dict[str, int]]:
        if self._sessions is None:
            self._sessions, problem = _read(self.path)
            if problem:
                self.logger.warning("evolution-review: %s: %s", self.path, problem)
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


def _read(path: Path) -> tuple[dict[str, dict[str, int]], str]:
    """The stored sessions and what was wrong with the file ("" when nothing).
    A bad file starts empty: the windows only delay a review, losing them loses
    nothing else."""
    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}, ""
    except (OSError, ValueError) as exc:
        return {}, f"unreadable ({type(exc).__name__}: {str(exc)[:200]}); starting with empty review windows"
    sessions = data.get("sessions") if isinstance(data, dict) else None
    if not isinstance(sessions, dict):
        return {}, "field 'sessions' is not a mapping; starting with empty review windows"
    keys = ("turnsSinceMemory", "turnsSinceSkill", "lastTurn")
    kept = {
        sid: {k: int(entry[k]) for k in keys}
        for sid, entry in sessions.items()
        if isinstance(entry, dict) and all(isinstance(entry.get(k), int) and not isinstance(entry.get(k), bool) for k in keys)
    }
    dropped = len(sessions) - len(kept)
    return kept, f"{dropped} malformed session entr{'y' if dropped == 1 else 'ies'} ignored" if dropped else ""
