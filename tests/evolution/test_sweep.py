"""The per-session maps stay bounded: each is cleaned when the host disposes
an agent, and swept at ``COUNTER_SWEEP_THRESHOLD`` entries of what the host no
longer has; a live session's state survives a sweep."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from evolution_review_plugin.sweep import COUNTER_SWEEP_THRESHOLD

from .helpers import evolution_host, say

pytestmark = pytest.mark.trio

SCRIPT = "responses:\n  - match: {}\n    repeat: true\n    reply: {text: ok}\n"
#: every turn counts, none fires
CONFIG = {"reviewMode": "inject", "reviewMemoryInterval": 1000, "reviewSkillInterval": 1000, "substantiveMinUserChars": 5}


def sizes(plugin: Any) -> dict[str, int]:
    assert plugin.controller is not None
    return {
        "sessions": len(plugin.controller.sessions),
        "snapshots": len(plugin.snapshots),
        "reads": len(plugin.ledger),
        "marks": len(plugin.marks),
    }


async def test_the_threshold_is_the_references() -> None:
    assert COUNTER_SWEEP_THRESHOLD == 128


async def test_200_sessions_created_and_disposed_leave_at_most_128_entries(dsh_host: Any, dsh_home: Path) -> None:
    (dsh_home / "memory").mkdir(parents=True)
    (dsh_home / "memory" / "MEMORY.md").write_text("The build is `make check`.\n")  # every root gets a snapshot
    async with evolution_host(dsh_host, SCRIPT, **CONFIG) as (host, _):
        plugin = host.pm.get_plugin("evolution-review")
        for i in range(200):
            agent = await dsh_host.new_root(host)
            await say(host, agent, f"a question, number {i}")
            plugin.ledger.note(agent.id, "deploy")  # as a skill read would
            plugin.marks.set(agent.id, f"prompt-{i}")  # as a delivered review prompt would
            assert all(size >= 1 for size in sizes(plugin).values())
            await host.agents.dispose(agent)
        assert all(size <= COUNTER_SWEEP_THRESHOLD for size in sizes(plugin).values()), sizes(plugin)


async def test_a_sweep_drops_gone_sessions_and_keeps_a_live_one(dsh_host: Any) -> None:
    async with evolution_host(dsh_host, SCRIPT, **CONFIG) as (host, _):
        plugin = host.pm.get_plugin("evolution-review")
        controller = plugin.controller
        live = await dsh_host.new_root(host)
        await say(host, live, "a question please")
        state = controller.sessions[live.id]
        counted = state.counters
        assert counted.turns_since_memory == 1 and plugin.ledger.has_read(live.id, "deploy") is False
        plugin.ledger.note(live.id, "deploy")
        plugin.marks.set(live.id, "prompt")
        # entries the disposal hook never saw: ids the host does not have (a turn end
        # that ran after its agent went, say)
        for i in range(200):
            controller.state(f"gone-{i}")
            plugin.ledger.note(f"gone-{i}", "deploy")
            plugin.marks.set(f"gone-{i}", "prompt")
        assert all(size <= COUNTER_SWEEP_THRESHOLD for size in sizes(plugin).values()), sizes(plugin)
        assert controller.sessions[live.id] is state and state.counters == counted
        assert plugin.ledger.has_read(live.id, "deploy") and plugin.marks.active(live.id)
        # and the live session goes on counting where it was
        await say(host, live, "another question please")
        assert controller.sessions[live.id].counters.turns_since_memory == 2
