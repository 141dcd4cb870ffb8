"""The recent notices, numbered for the page.

Notices are pushed live only, so a stream opens with the session's recent ones
(one pushed between the page's event load and its stream connecting would be
lost otherwise). Each gets an id, unique in this process, that the page uses to
show a notice once however often a load or a reconnect brings it again.
"""

from __future__ import annotations

from typing import Any

from hookspecs.values import Notice

from .payloads import clean

#: notices kept in all (the client service keeps as many)
HISTORY = 200
#: recent notices a page gets when it loads a session or its stream connects
RECENT = 5
LEVELS = ("info", "warning", "error")


class RecentNotices:
    def __init__(self) -> None:
        self._next = 1
        self._kept: list[tuple[str | None, dict[str, Any]]] = []

    def add(self, notice: Notice) -> dict[str, Any]:
        """The notice's page payload, numbered and kept."""
        level = notice.level if notice.level in LEVELS else "info"  # the page makes it a class name
        payload = {"id": self._next, "level": level, "text": clean(notice.text, 2000)}
        self._next += 1
        self._kept.append((notice.session_id, payload))
        del self._kept[:-HISTORY]
        return payload

    def recent(self, session_id: str) -> list[dict[str, Any]]:
        """The latest notices of ``session_id`` and of no session, oldest first."""
        return [p for s, p in self._kept if s in (None, session_id)][-RECENT:]
