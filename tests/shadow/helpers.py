"""Helpers for Shadow Mind tests: a host with the plugin and a scripted model."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from harness.host import HarnessHost, drain, open_host
from harness.llm.scripted import ScriptedAdapter
from harness.profiles import ProfileRow
from hookspecs.protocols import CreateAgentOptions
from hookspecs.values import AgentOptions
from shadow_mind_plugin.plugin import runtime_for
from shadow_mind_plugin.runtime.runtime import ShadowRuntime

from ..harness.helpers import AdapterPlugin, poll_until

DEFINITION = """---
id: default
name: {name}
enabled: true
activation_probability: {probability}
{extra}---

{prompt}
"""


def write_definition(home: Path, *, name: str = "Reviewer", probability: float = 1.0, extra: str = "", prompt: str = "Check the root's claims against its tool results.") -> Path:
    root = home / "shadow-minds"
    root.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = root / "default.md"
    path.write_text(DEFINITION.format(name=name, probability=probability, extra=extra, prompt=prompt))
    return path


def shadow_rows(config: Mapping[str, Any] | None = None) -> list[ProfileRow]:
    return [
        ProfileRow(id="shadow-mind-runtime", name="shadow-mind-runtime", config=dict(config or {}), layer="test"),
        ProfileRow(id="tool-shadow-mind", name="tool-shadow-mind", layer="test"),
    ]


@asynccontextmanager
async def shadow_host(
    tmp_path: Path,
    script: str,
    *,
    config: Mapping[str, Any] | None = None,
    plugins: Sequence[tuple[str, object]] = (),
    headless: bool = True,
    home: Path | None = None,
) -> AsyncIterator[tuple[HarnessHost, ScriptedAdapter, ShadowRuntime]]:
    adapter = ScriptedAdapter.from_text(script)
    home = home or tmp_path / "home"
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    (work / "notes.txt").write_text("the deploy target is staging\n")
    settings = {"resultBatchWindowMs": 0, **(config or {})}
    async with open_host(
        rows=shadow_rows(settings),
        dsh_home=home,
        cwd=work,
        headless=headless,
        extra_plugins=[("test-adapter", AdapterPlugin(adapter)), *plugins],
        environ={},
        logger=logging.getLogger("shadow-test"),
    ) as host:
        runtime = runtime_for(host)
        assert runtime is not None
        yield host, adapter, runtime


async def new_root(host: HarnessHost, model: str = "root-model", *, provider: str = "scripted") -> Any:
    handle = await host.agents.create(CreateAgentOptions(agent_options=AgentOptions(provider=provider, model=model)))
    return handle.agent


async def settle(host: HarnessHost, agent: Any) -> None:
    """Wait until the root is idle and no background work is left (headless drain)."""
    await drain(host, agent)


async def wait_for_stage(runtime: ShadowRuntime, root: Any, stage: str) -> Any:
    """The root's running review once it reached ``stage`` (its active entry)."""

    def reached() -> Any:
        state = runtime.owners.get(root.id)
        if state and state.run.active:
            entry = next(iter(state.run.active.values()))
            if entry.view.stage == stage:
                return entry
        return None

    return await poll_until(reached, what=f"the review to reach stage {stage!r}")


async def wait_for_waiting_report(runtime: ShadowRuntime, root: Any) -> None:
    """Until a report waits out the relay window."""

    def waiting() -> bool:
        state = runtime.owners.get(root.id)
        return bool(state and state.output.batcher.waiting)

    await poll_until(waiting, what="a report waiting to be relayed")
