"""The loopback reviewer the CLI tests (review and hook) share."""

from __future__ import annotations

import pytest
import trio

from ..harness.openai.server import ScriptedServer
from .reviewer import text


@pytest.fixture
async def server(nursery: trio.Nursery) -> ScriptedServer:
    srv = ScriptedServer(default=text("nothing more"))
    await srv.start(nursery)
    return srv
