"""Process-event hooks: process-local notifications between plugins and hosts."""

from __future__ import annotations

from collections.abc import Awaitable, Mapping
from typing import Any

from .markers import hookspec


@hookspec
def dsh_process_event(name: str, payload: Mapping[str, Any]) -> Awaitable[None] | None:
    """A plugin emitted a process event (``host.emit(name, payload)``).

    When: synchronously inside ``host.emit``, on hosts that offer it (see
    :func:`hookspecs.stores.process_events_of`).

    Arguments: ``name`` — a ``plugin/event`` name such as
    ``evolution/plan-applied``; ``payload`` — a JSON-compatible mapping.

    Return: nothing (an awaitable is run in the background).

    Semantics: observer; exceptions are logged and contained. Process events
    are never written to a session log, so a host without the emitting plugin
    still loads every session.

    Timing: must not block.
    """
