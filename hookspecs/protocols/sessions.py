"""The session store (``host.sessions``) and the event-type registrar."""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

import attrs

if TYPE_CHECKING:
    from ..values.events import SessionEvent, SessionHeader
    from ..values.live import Session
    from .disposer import Disposer


@attrs.frozen(kw_only=True)
class SessionSummary:
    """One line of ``host.sessions.list()``."""

    id: str
    created_at: float
    cwd: str | None
    parent_session: str | None
    delegation_depth: int
    events: int
    title: str = ""


class EventTypeRegistrar(Protocol):
    """The ``register`` callback of ``dsh_register_event_types``."""

    def __call__(self, name: str, *, ignorable: bool = False) -> None:
        """Make the event type ``name`` (lowercase ``area/name``) appendable;
        events of an ``ignorable`` type are written with ``ignorable: true``."""
        ...


class SessionStore(Protocol):
    def register_event_type(self, name: str, *, ignorable: bool = False) -> Disposer:
        """Make ``name`` appendable. ``ignorable`` types are written with
        ``ignorable: true`` so hosts without the plugin can still load the log."""
        ...

    def is_known_type(self, name: str) -> bool: ...

    def get(self, session_id: str) -> Session | None:
        """A live (open) session, or None."""
        ...

    def list(self) -> builtins.list[SessionSummary]:
        """Persisted sessions, newest first."""
        ...

    def read(self, session_id: str) -> tuple[SessionHeader, Sequence[SessionEvent]]:
        """Read a persisted log without opening it (repairs are not written)."""
        ...
