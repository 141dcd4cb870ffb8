"""Client contributions: settings tabs, cards anchored to the log, notices.

Cards and notices are process-local presentation state; they never become
session events.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, TypeAlias

import attrs


@attrs.frozen(kw_only=True)
class Card:
    """A keyed card shown under the event with durable ``anchor_seq``.

    Upserting the same ``(session_id, key)`` replaces the card's data.
    """

    session_id: str
    anchor_seq: int
    key: str
    kind: str
    data: dict[str, Any]
    visibility: Literal["visible", "hidden"] = "visible"


@attrs.frozen(kw_only=True)
class Notice:
    """A transient line for the person at the client."""

    level: Literal["info", "warning", "error"]
    text: str
    session_id: str | None = None


@attrs.frozen(kw_only=True)
class SettingsTab:
    """A settings page for one namespace."""

    plugin: str
    namespace: str
    title: str
    order: int = 100


@attrs.frozen(kw_only=True)
class CardRenderer:
    """Turns a card of ``kind`` into terminal text (one or more lines)."""

    kind: str
    render: Callable[[Card], str] = attrs.field(eq=False)


ClientContribution: TypeAlias = SettingsTab | CardRenderer
