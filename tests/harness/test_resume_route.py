"""A resumed session without a model of its own continues on the route its log
last used when the profile names none (it used to fail with NO_MODEL)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hookspecs.values import create_user_message

from .helpers import ECHO, new_root, scripted_host


async def test_resume_without_options_uses_the_logged_route(tmp_path: Path) -> None:
    async with scripted_host(tmp_path, ECHO) as (host, _):
        handle = await new_root(host, model="m")
        session_id = handle.agent.id
        handle.agent.followup(create_user_message("first"))
        await handle.agent.when_idle()
        await handle.dispose()
        resumed = await host.agents.resume(session_id)
        try:
            assert resumed.agent.resolved_route == "scripted/m"
            resumed.agent.followup(create_user_message("second"))
            await resumed.agent.when_idle()
            end = resumed.agent.session.events[-1]
            assert end.type == "turn/end" and end.data["reason"]["kind"] == "completed", end.data
        finally:
            await resumed.dispose()


async def test_resume_derives_the_history_once_when_nothing_needed_repair(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Deriving the history walks the whole log (issue 20: a Stop hook resuming
    a 20k-line import rebuilt it three times): a resume whose log needed no
    repair derives it once, when it is first read, and the agent's history is
    the same."""
    from harness.sessions.history import SurfaceFold

    async with scripted_host(tmp_path, ECHO) as (host, _):
        handle = await new_root(host, model="m")
        session_id = handle.agent.id
        handle.agent.followup(create_user_message("first"))
        await handle.agent.when_idle()
        history = list(handle.agent.history)
        await handle.dispose()
        derived: list[int] = []
        real = SurfaceFold.feed

        def counting(fold: SurfaceFold, events: Any) -> None:
            derived.append(len(events))
            real(fold, events)

        monkeypatch.setattr(SurfaceFold, "feed", counting)
        resumed = await host.agents.resume(session_id)
        try:
            assert derived == []  # not yet: the history is folded when first read
            assert resumed.agent.history == history
            assert len(derived) == 1
            assert resumed.agent.history == history and len(derived) == 1  # folded once, kept
        finally:
            await resumed.dispose()
