"""Relay-driven review cycles are bounded (issue 10, item 6): a reviewer that
always reports, citing the newest tool call, stops after
``maxRelayCyclesPerUserMessage`` relays until real user input."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hookspecs import hookimpl
from hookspecs.values import create_user_message
from shadow_mind_plugin.commands import format_status
from shadow_mind_plugin.governance.cards import render_card

from .helpers import new_root, settle, shadow_host, write_definition
from .test_shadow_command import REPORT


def looping_script(turns: int = 24) -> str:
    """The root answers every message (user input or relay) with a tool turn;
    the reviewer always reports, citing the newest tool call: an endless loop
    unless something bounds it."""
    out = ["responses:"]
    for _ in range(turns):
        out.append("""
  - match: {depth: 0}
    reply: {tool_calls: [{name: read, arguments: {path: notes.txt}}]}
  - match: {depth: 0}
    reply: {text: "done"}""")
    out.append(REPORT)  # repeats, citing the newest tool call
    return "\n".join(out)


LOOPING_ROOT = looping_script()


class Breaker:
    """Counts relays; pauses Shadow Mind after ``limit`` so an unbounded loop ends."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.relays = 0
        self.runtime: Any = None

    @hookimpl
    def dsh_session_event(self, session: Any, event: Any) -> None:
        if event.type == "user/message" and event.data["message"]["source"].get("kind") == "shadow-report":
            self.relays += 1
            if self.relays >= self.limit and self.runtime is not None:
                root = self.runtime.ctx.live_root(session.id)
                self.runtime.host.spawn(lambda: self._pause(root), name="breaker")

    async def _pause(self, root: Any) -> None:
        self.runtime.controls.pause(root)


def root_turns(root: Any) -> int:
    return len([e for e in root.session.events if e.type == "turn/end"])


async def test_an_always_reporting_reviewer_stops_after_the_bound(tmp_path: Path, autojump_clock: Any) -> None:
    home = tmp_path / "home"
    write_definition(home)
    breaker = Breaker(limit=12)
    async with shadow_host(tmp_path, LOOPING_ROOT, home=home, plugins=[("breaker", breaker)]) as (host, _, runtime):
        breaker.runtime = runtime
        root = await new_root(host)
        root.followup(create_user_message("please check the notes"))
        await settle(host, root)
        assert breaker.relays == 3  # the default bound
        assert root_turns(root) == 4  # the user's turn and one per relay
        status = runtime.controls.status(root)
        assert not status["paused"]
        assert (status["relays_since_user_message"], status["relay_bound"]) == (3, 3)
        assert "RELAY_BOUND_REACHED" in format_status(status)
        cycles = runtime.controls.cycles(root)
        assert cycles[-1]["skipped"]["reason_code"] == "RELAY_BOUND_REACHED"
        assert cycles[-1]["runs"] == []
        card = host.client.cards(root.id)[-1] if hasattr(host.client, "cards") else None
        if card is not None:
            assert "skipped [RELAY_BOUND_REACHED]" in render_card(card)

        # real user input resets the count: three more relays, then the bound again
        root.followup(create_user_message("and once more"))
        await settle(host, root)
        assert breaker.relays == 6
        assert root_turns(root) == 8


async def test_the_bound_is_a_setting_and_zero_disables_it(tmp_path: Path, autojump_clock: Any) -> None:
    home = tmp_path / "home"
    write_definition(home)
    breaker = Breaker(limit=7)
    config = {"maxRelayCyclesPerUserMessage": 1}
    async with shadow_host(tmp_path, LOOPING_ROOT, home=home, config=config, plugins=[("breaker", breaker)]) as (host, _, runtime):
        breaker.runtime = runtime
        root = await new_root(host)
        root.followup(create_user_message("please check the notes"))
        await settle(host, root)
        assert breaker.relays == 1
        assert root_turns(root) == 2
    breaker = Breaker(limit=7)
    async with shadow_host(tmp_path, LOOPING_ROOT, home=home, config={"maxRelayCyclesPerUserMessage": 0}, plugins=[("breaker", breaker)]) as (host, _, runtime):
        breaker.runtime = runtime
        root = await new_root(host)
        root.followup(create_user_message("please check the notes"))
        await settle(host, root)
        assert breaker.relays == 7  # unbounded: only the test's breaker ends it
