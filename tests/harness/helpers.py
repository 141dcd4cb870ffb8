"""Shared helpers for host tests: open a host with a scripted model."""

from __future__ import annotations

import logging
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

import trio

from harness.host import HarnessHost, open_host
from harness.llm.scripted import AdapterPlugin, ScriptedAdapter
from harness.profiles import ProfileRow
from hookspecs.protocols import CreateAgentOptions
from hookspecs.values import AgentOptions, ToolDefinition, create_user_message

from ..cli_env import cli_env

T = TypeVar("T")

REPO = Path(__file__).resolve().parents[2]

#: a script whose model answers "ok" to every request
ECHO = """
responses:
  - repeat: true
    reply: {text: "ok"}
"""


def scripted_profile(tmp_path: Path, script: str) -> Path:
    """A profile file (for the CLI) whose model is the scripted adapter playing ``script``."""
    script_file = tmp_path / "script.yml"
    script_file.write_text(script)
    profile = tmp_path / "profile.yml"
    profile.write_text(
        f"- id: llm\n  name: scripted-llm\n  config: {{script: {script_file}}}\n"
        "- id: agent-loop\n  name: agent-loop\n  config: {model: scripted/m}\n"
    )
    return profile


class ToolsPlugin:
    """Registers the given tool definitions."""

    def __init__(self, *tools: ToolDefinition) -> None:
        self.tools = tools

    from hookspecs import hookimpl as _hookimpl

    @_hookimpl
    def dsh_register_tools(self, register: Any) -> None:
        for tool in self.tools:
            register(tool)


def no_args_tool(name: str, execute: Callable[[dict[str, Any], Any], Awaitable[Any]], **options: Any) -> ToolDefinition:
    """A tool without parameters (``options``: further ``ToolDefinition`` fields)."""
    parameters = {"type": "object", "properties": {}, "additionalProperties": False}
    return ToolDefinition(name=name, description=f"test tool {name}", parameters=parameters, execute=execute, **options)


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


async def say(agent: Any, text: str) -> None:
    """Send one user message and wait for the turn it starts to end."""
    agent.followup(create_user_message(text))
    await agent.when_idle()


def run_chat(
    *args: str, stdin: str, home: Path, cwd: Path = REPO, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    """``harness chat`` in a subprocess with ``DSH_HOME`` at ``home``, fed ``stdin``."""
    return subprocess.run(
        [sys.executable, "-m", "harness", "chat", *args],
        cwd=cwd,
        env=cli_env(DSH_HOME=str(home)),
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


#: how long a test waits for a state change before it fails instead of hanging: generous
#: for a loaded machine (virtual seconds under trio's MockClock, so there it costs no wall time)
WAIT_SECONDS = 60.0


async def poll_until(
    condition: Callable[[], T],
    *,
    what: str = "the condition",
    give_up_after: float = WAIT_SECONDS,
    interval: float = 0.01,
) -> T:
    """The first truthy value of ``condition()``, polled every ``interval`` seconds
    (0: at every checkpoint). For a change no trio event signals: a file another
    process writes, a process exiting, a value set from a worker thread, a stage
    another task reaches. After ``give_up_after`` seconds the test fails naming ``what``
    instead of hanging."""
    try:
        with trio.fail_after(give_up_after):
            while not (value := condition()):  # noqa: ASYNC110 -- nothing signals the change; polled, with a bound
                await trio.sleep(interval)
            return value
    except trio.TooSlowError:
        raise AssertionError(f"gave up waiting for {what} after {give_up_after:g} s") from None


def event_types(session: Any) -> list[str]:
    return [e.type for e in session.events if e.type != "assistant/chunk"]
