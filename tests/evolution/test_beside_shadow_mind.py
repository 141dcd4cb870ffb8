"""evolution-review and Shadow Mind in one profile: neither treats the other's
messages as a real user message."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from evolution_review_plugin.prompts import review_prompt
from harness.host import drain
from hookspecs.values import EventTypes, create_user_message
from shadow_mind_plugin.trigger.ledger import is_real_user, last_real_user_seq
from shadow_mind_plugin.vocabulary import REPORT_SOURCE_KIND

from .helpers import evolution_host, reviews, saved_state, say

pytestmark = pytest.mark.trio

SCRIPT = "responses:\n  - match: {}\n    repeat: true\n    reply: {text: ok}\n"
CONFIG = {"reviewMode": "inject", "memoryInterval": 1, "skillInterval": 50, "substantiveMinUserChars": 20}
SHADOW = ("shadow-mind-runtime", "tool-shadow-mind")


async def test_shadow_does_not_take_an_evolution_notice_for_user_input(dsh_host: Any) -> None:
    async with evolution_host(dsh_host, SCRIPT, rows=SHADOW, **CONFIG) as (host, _):
        agent = await dsh_host.new_root(host)
        await say(host, agent, "a real question from a real person")
        assert reviews(agent) == [review_prompt("memory")]
        entered = [e for e in agent.session.events if e.type == EventTypes.USER_MESSAGE]
        real, notice = entered
        assert is_real_user(real) and not is_real_user(notice)
        assert last_real_user_seq(agent.session.events) == real.seq


async def test_a_shadow_relay_is_not_user_activity_for_the_review(dsh_host: Any, dsh_home: Path) -> None:
    async with evolution_host(dsh_host, SCRIPT, rows=SHADOW, **CONFIG) as (host, _):
        agent = await dsh_host.new_root(host)
        relay = create_user_message("x" * 500, {"kind": REPORT_SOURCE_KIND})
        agent.followup(relay)  # as long as a person's message, but a relay
        await drain(host, agent)
        assert reviews(agent) == []
        # not substantive: the turn is marked seen, nothing is counted
        assert saved_state(dsh_home, agent.id) == {"turnsSinceMemory": 0, "turnsSinceSkill": 0, "lastTurn": 1}
