"""pytest fixtures for plugin authors, shipped as the ``dsh`` pytest plugin.

The distribution declares it in the ``pytest11`` entry-point group, so pytest
loads it wherever ``shadow-mind`` is installed (``-p no:dsh`` turns it off).
Every fixture is named ``dsh_*``; nothing here runs unless a test asks for one.

* ``dsh_run_turn(prompt, *, script=..., rows=..., plugins=...)`` — a sync call
  for any test: it opens a real host with the scripted model and a temporary
  ``DSH_HOME``, sends ``prompt`` to a new root agent, waits until the agent and
  all background work are idle, and returns the root session's events
  (``assistant/chunk`` left out).
* ``dsh_host(*, script=..., rows=..., plugins=...)`` — the same host as an
  ``async with`` context manager, for trio tests (pytest-trio) that drive it
  themselves; ``dsh_host.new_root(host)`` creates a root agent on the scripted route.

``rows`` are profile rows: an entry-point name (``"word-stats"``), a mapping
(``{"id": ..., "name": ..., "config": {...}}``) or a
:class:`harness.profiles.ProfileRow`. ``plugins`` maps registration names to
plugin objects under test; they are registered before the host starts and
unregistered when it closes, in a ``finally``. ``script`` is a scripted-model
script (YAML text, see docs/scripted-adapter.md); by default the model answers
every request with ``ok``. The agent works in ``dsh_workspace`` (an empty
temporary directory); ``DSH_HOME`` is ``dsh_home``.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

#: the scripted model's route for root agents
ROUTE = ("scripted", "dsh-test-model")
DEFAULT_SCRIPT = """\
responses:
  - match: {}
    repeat: true
    reply: {text: ok}
"""

Row = str | Mapping[str, Any] | Any
Plugins = Mapping[str, object]


def profile_rows(rows: Iterable[Row]) -> list[Any]:
    """Profile rows from names, mappings or ``ProfileRow`` values."""
    from harness.profiles import ProfileRow

    built = []
    for row in rows:
        if isinstance(row, ProfileRow):
            built.append(row)
        elif isinstance(row, str):
            built.append(ProfileRow(id=row, name=row, layer="dsh-test"))
        else:
            fields = dict(row)
            fields.setdefault("name", fields.get("id"))
            fields.setdefault("id", fields["name"])
            fields["config"] = dict(fields.get("config") or {})
            built.append(ProfileRow(layer="dsh-test", **fields))
    return built


class HostFactory:
    """``dsh_host``: opens hosts rooted in one test's temporary directories."""

    def __init__(self, home: Path, workspace: Path) -> None:
        self.home = home
        self.workspace = workspace

    def __call__(
        self, *, script: str = DEFAULT_SCRIPT, rows: Sequence[Row] = (), plugins: Plugins | None = None
    ) -> AbstractAsyncContextManager[Any]:
        return self._open(script, rows, dict(plugins or {}))

    @asynccontextmanager
    async def _open(self, script: str, rows: Sequence[Row], plugins: dict[str, object]) -> AsyncIterator[Any]:
        from harness.host import open_host
        from harness.llm.scripted import AdapterPlugin, ScriptedAdapter

        adapter = ScriptedAdapter.from_text(script, provider=ROUTE[0])
        extra: list[tuple[str, object]] = [("dsh-test-model", AdapterPlugin(adapter))]
        extra += list(plugins.items())
        host = None
        try:
            async with open_host(
                rows=profile_rows(rows),
                dsh_home=self.home,
                cwd=self.workspace,
                headless=True,
                extra_plugins=extra,
                environ={},
                logger=logging.getLogger("dsh-test-host"),
            ) as host:
                yield host
        finally:
            if host is not None:  # the host unregisters what it loaded; make sure of ours
                for name in plugins:
                    if host.pm.has_plugin(name):
                        host.pm.unregister(name=name)

    @staticmethod
    async def new_root(host: Any) -> Any:
        """A new root agent on the scripted route; returns the agent."""
        from hookspecs.protocols import CreateAgentOptions
        from hookspecs.values import AgentOptions

        options = AgentOptions(provider=ROUTE[0], model=ROUTE[1])
        return (await host.agents.create(CreateAgentOptions(agent_options=options))).agent

    async def run_turn(
        self, prompt: str, *, script: str = DEFAULT_SCRIPT, rows: Sequence[Row] = (), plugins: Plugins | None = None
    ) -> list[Any]:
        from harness.host import drain
        from hookspecs.values import EventTypes, create_user_message

        async with self(script=script, rows=rows, plugins=plugins) as host:
            agent = await self.new_root(host)
            start = agent.session.seq
            agent.followup(create_user_message(prompt))
            await drain(host, agent)
            return [e for e in agent.session.events_since(start) if e.type != EventTypes.ASSISTANT_CHUNK]


@pytest.fixture
def dsh_home(tmp_path: Path) -> Path:
    """The temporary ``DSH_HOME`` of this test's hosts."""
    return tmp_path / "dsh-home"


@pytest.fixture
def dsh_workspace(tmp_path: Path) -> Path:
    """The agents' working directory: empty, temporary; write files into it first."""
    path = tmp_path / "dsh-workspace"
    path.mkdir(exist_ok=True)
    return path


@pytest.fixture
def dsh_host(dsh_home: Path, dsh_workspace: Path) -> HostFactory:
    """``async with dsh_host(script=..., rows=..., plugins=...) as host`` (trio tests)."""
    return HostFactory(dsh_home, dsh_workspace)


@pytest.fixture
def dsh_run_turn(dsh_host: HostFactory) -> Callable[..., list[Any]]:
    """``events = dsh_run_turn(prompt, script=..., rows=..., plugins=...)`` (sync tests)."""
    import functools

    import trio

    def run_turn(prompt: str, **options: Any) -> list[Any]:
        return trio.run(functools.partial(dsh_host.run_turn, prompt, **options))

    return run_turn


__all__ = ["DEFAULT_SCRIPT", "HostFactory", "dsh_home", "dsh_host", "dsh_run_turn", "dsh_workspace", "profile_rows"]
