"""``hookspecs.event_types``: the host calls a session-event observer only for
the event types it declared; an observer without a declaration sees all."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hookspecs import event_types, hookimpl
from hookspecs.values import EventTypes, create_user_message

from .helpers import ECHO, new_root, scripted_host


class Watching:
    def __init__(self) -> None:
        self.seen: list[str] = []

    @hookimpl
    @event_types(EventTypes.TURN_END)
    def dsh_session_event(self, session: Any, event: Any) -> None:
        self.seen.append(event.type)


class Everything:
    def __init__(self) -> None:
        self.seen: list[str] = []

    @hookimpl
    def dsh_session_event(self, session: Any, event: Any) -> None:
        self.seen.append(event.type)


async def test_an_observer_sees_only_the_types_it_declared(tmp_path: Path) -> None:
    watching, everything = Watching(), Everything()
    async with scripted_host(tmp_path, ECHO, plugins=[("watching", watching), ("everything", everything)]) as (
        host,
        _,
    ):
        handle = await new_root(host)
        try:
            handle.agent.followup(create_user_message("hi"))
            await handle.agent.when_idle()
            types = [event.type for event in handle.agent.session.events]
        finally:
            await handle.dispose()
    assert watching.seen == [EventTypes.TURN_END]
    assert everything.seen[: len(types)] == types and len(set(types)) > 1
