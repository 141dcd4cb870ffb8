"""An agent whose creation is cancelled while it is being published is not left
running without a handle."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio

from hookspecs.protocols import CreateAgentOptions
from hookspecs.values import AgentOptions

from .helpers import ECHO, scripted_host


async def test_cancelled_publication_leaves_no_live_agent(tmp_path: Path) -> None:
    async with scripted_host(tmp_path, ECHO) as (host, _):
        before = {agent.id for agent in host.agents.list()}
        with trio.CancelScope() as scope:
            scope.cancel()  # the caller's deadline fires while the driver is being started
            with pytest.raises(trio.Cancelled):
                await host.agents.create(CreateAgentOptions(agent_options=AgentOptions(provider="scripted", model="m")))
        assert {agent.id for agent in host.agents.list()} == before
