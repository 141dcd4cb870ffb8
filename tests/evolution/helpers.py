"""A real host with the scripted model and the evolution-review row, and a
recorder of process events, for the evolution-review tests."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from harness.host import drain, open_host
from harness.llm.scripted import AdapterPlugin, ScriptedAdapter
from harness.testing import ROUTE, profile_rows
from hookspecs import hookimpl
from hookspecs.protocols import CreateAgentOptions
from hookspecs.values import (
    AgentOptions,
    EventTypes,
    SessionEvent,
    TextBlock,
    create_user_message,
    message_from_json,
)

from ..cli_env import cli_env

ROW_ID = "evolution-review"
#: the repository root (the example profiles are named relative to it)
ROOT = Path(__file__).resolve().parents[2]


class ProcessEventRecorder:
    def __init__(self) -> None:
        self.events: list[tuple[str, dict[str, Any]]] = []

    @hookimpl
    def dsh_process_event(self, name: str, payload: Mapping[str, Any]) -> None:
        self.events.append((name, dict(payload)))

    def named(self, name: str) -> list[dict[str, Any]]:
        return [payload for event, payload in self.events if event == name]


def row(**config: Any) -> dict[str, Any]:
    return {"id": ROW_ID, "name": "evolution-review", "config": config}


@asynccontextmanager
async def evolution_host(
    dsh_host: Any, script: str, *, rows: tuple[Any, ...] = (), **config: Any
) -> AsyncIterator[tuple[Any, ProcessEventRecorder]]:
    recorder = ProcessEventRecorder()
    async with dsh_host(script=script, rows=(row(**config), *rows), plugins={"recorder": recorder}) as host:
        yield host, recorder


@asynccontextmanager
async def interactive_root(
    home: Path, workspace: Path, script: str, config: Mapping[str, Any], *, plugins: Sequence[tuple[str, object]] = ()
) -> AsyncIterator[tuple[Any, Any]]:
    """An interactive (not headless: approvals are asked) host with the
    evolution-review row and the scripted model, and one new root agent."""
    adapter = ScriptedAdapter.from_text(script, provider=ROUTE[0])
    async with open_host(
        rows=profile_rows([row(**config)]),
        dsh_home=home,
        cwd=workspace,
        headless=False,
        extra_plugins=[("model", AdapterPlugin(adapter)), *plugins],
        environ={},
        logger=logging.getLogger("evolution-test"),
    ) as host:
        options = AgentOptions(provider=ROUTE[0], model=ROUTE[1])
        yield host, (await host.agents.create(CreateAgentOptions(agent_options=options))).agent


async def say(host: Any, agent: Any, text: str) -> None:
    """A real user message; waits until the agent and all background work are idle."""
    agent.followup(create_user_message(text))
    await drain(host, agent)


def user_messages(events: list[SessionEvent] | Any) -> list[tuple[str, str]]:
    """(source kind, text) of every entered user message."""
    out = []
    for event in events:
        if event.type == EventTypes.USER_MESSAGE:
            message = message_from_json(event.data["message"])
            text = "".join(b.text for b in message.content if isinstance(b, TextBlock))
            out.append((message.source["kind"], text))
    return out


def reviews(agent: Any) -> list[str]:
    """Texts this plugin delivered into the root's history."""
    return [text for kind, text in user_messages(agent.session.events) if kind == "evolution-review"]


def turn_ends(agent: Any) -> list[str]:
    return [e.data["reason"]["kind"] for e in agent.session.events if e.type == EventTypes.TURN_END]


def saved_state(home: Path, session_id: str) -> dict[str, int] | None:
    path = home / "evolution" / "review-state.json"
    if not path.exists():
        return None
    return json.loads(path.read_text())["sessions"].get(session_id)  # type: ignore[no-any-return]


def harness_cli(cwd: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``python -m harness ARGS`` in ``cwd`` with ``DSH_HOME=home``, as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "harness", *args],
        cwd=cwd, env=cli_env(DSH_HOME=str(home)), capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def scripted_profile(tmp_path: Path, config: str, script: str) -> Path:
    """``tmp_path/profile.yml``: the scripted model (``script``), the agent loop,
    and the evolution-review row with ``config`` (a YAML flow mapping)."""
    (tmp_path / "script.yml").write_text(script)
    profile = tmp_path / "profile.yml"
    profile.write_text(
        "- {id: llm, name: scripted-llm, config: {script: script.yml}}\n"
        "- {id: agent-loop, name: agent-loop, config: {model: scripted/m}}\n"
        f"- {{id: evolution-review, name: evolution-review, config: {config}}}\n"
    )
    return profile
