"""Shared helpers for host tests: open a host with a scripted model."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import trio

from harness.host import HarnessHost, open_host
from harness.llm.scripted import AdapterPlugin, ScriptedAdapter
from harness.profiles import ProfileRow
from hookspecs.protocols import CreateAgentOptions
from hookspecs.values import AgentOptions


@asynccontextmanager
async def scripted_host(
    tmp_path: Path,
    script: str,
    *,
    plugins: Sequence[tuple[str, object]] = (),
    rows: Sequence[ProfileRow] = (),
    headless: bool = True,
    workspace: Path | None = None,
) -> AsyncIterator[tuple[HarnessHost, ScriptedAdapter]]:
    adapter = ScriptedAdapter.from_text(script)
    home = tmp_path / "home"
    work = workspace or tmp_path / "work"
    work.mkdir(exist_ok=True)
    async with open_host(
        rows=rows,
        dsh_home=home,
        cwd=work,
        headless=headless,
        extra_plugins=[("test-adapter", AdapterPlugin(adapter)), *plugins],
        environ={},
        logger=logging.getLogger("test-host"),
    ) as host:
        yield host, adapter


async def new_root(host: HarnessHost, model: str = "m", provider: str = "scripted") -> Any:
    handle = await host.agents.create(
        CreateAgentOptions(agent_options=AgentOptions(provider=provider, model=model))
    )
    return handle


async def poll_until(condition: Callable[[], bool], *, interval: float = 0.01) -> None:
    """Wait for a condition that no trio event signals: a file another process
    writes, a process exiting, a value set from a worker thread."""
    while not condition():  # noqa: ASYNC110 -- the change happens outside trio; there is nothing to wait on
        await trio.sleep(interval)


def event_types(session: Any) -> list[str]:
    return [e.type for e in session.events if e.type != "assistant/chunk"]
