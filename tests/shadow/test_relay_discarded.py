"""A relay the host discards from the root's inbox (the person aborts the
running turn while the report waits there) settles once, ``aborted``
``RELAY_DISCARDED`` at ``relay``, and never reaches the model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import trio

from hookspecs import hookimpl
from hookspecs.values import CancelCause, EventTypes, create_user_message
from shadow_mind_plugin.vocabulary import REPORT_SOURCE_KIND

from ..harness.helpers import ToolsPlugin, no_args_tool
from .helpers import new_root, settle, shadow_host, write_definition
from .test_outcomes import REPORT, Settlements
from .test_stale_relay import model_saw_a_relay

SCRIPT = (
    """responses:
  - match: {depth: 0, last_user_contains: "deploy"}
    reply:
      tool_calls: [{name: hold, arguments: {}}]
  - match: {depth: 0}
    repeat: true
    reply: {text: "noted"}
"""
    + REPORT
)


class Held:
    """A tool that runs until its turn is aborted, and a hook that tells when a
    relay was queued in the root's inbox (and when it was discarded)."""

    def __init__(self) -> None:
        self.running = trio.Event()
        self.queued = trio.Event()
        self.discarded = 0

    async def hold(self, args: dict[str, Any], ctx: Any) -> str:
        self.running.set()
        await trio.sleep_forever()
        raise AssertionError("unreachable")

    @hookimpl
    def dsh_agent_inbox(self, agent: Any, change: str, message: Any) -> None:
        if message.source_kind != REPORT_SOURCE_KIND:
            return
        if change == "inserted":
            self.queued.set()
        elif change == "discarded":
            self.discarded += 1


async def test_a_relay_discarded_by_an_abort_settles_relay_discarded(tmp_path: Path, autojump_clock: Any) -> None:
    home = tmp_path / "home"
    write_definition(home, probability=0.0)  # only the manual review below runs
    held = Held()
    tools = ToolsPlugin(no_args_tool("hold", held.hold))
    plugins = [("hold-tool", tools), ("watch", held)]
    async with shadow_host(tmp_path, SCRIPT, home=home, plugins=plugins) as (host, adapter, runtime):
        settled = Settlements(runtime)
        root = await new_root(host)
        root.followup(create_user_message("deploy it"))
        await held.running.wait()
        assert root.status == "running"
        runtime.controls.review_now(root)  # /shadow new while the root works
        await held.queued.wait()  # the report is steered into the running root's inbox
        assert root.cancel(CancelCause(by="user"))  # the person aborts: the inbox is cleared
        await settle(host, root)

        assert held.discarded == 1
        view = settled.only()  # settled exactly once
        assert (view.phase, view.stage, view.reason_code) == ("aborted", "relay", "RELAY_DISCARDED")
        assert view.relayed is False and view.content is None
        assert not model_saw_a_relay(adapter)
        events = root.session.events
        assert not [e for e in events if e.type == EventTypes.USER_MESSAGE and e.data["message"]["source"].get("kind") == REPORT_SOURCE_KIND]
        calls = [e for e in events if e.type == EventTypes.TOOL_CALL]
        results = [e for e in events if e.type == EventTypes.TOOL_RESULT]
        assert len(calls) == len(results) == 1  # the aborted call still got its one result
        assert [e.data["reason"]["kind"] for e in events if e.type == EventTypes.TURN_END] == ["aborted"]

        # the root goes on; the discarded report does not come back
        root.followup(create_user_message("what now?"))
        await settle(host, root)
        assert not model_saw_a_relay(adapter) and len(settled.entries) == 1
