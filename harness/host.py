"""The reference host: builds every service, loads plugins, runs them.

Start order: plugin manager and plugins -> ``dsh_register_*`` hooks -> the
settings document -> task groups -> ``dsh_plugin_setup``. Stop order: dispose
every agent -> ``dsh_plugin_teardown`` -> registration disposers (LIFO) ->
cancel what is left in the background task group.
"""

from __future__ import annotations

import logging
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

import pluggy
import trio

from hookspecs.errors import DshError, PluginError
from hookspecs.fsutil import ensure_private_dir
from hookspecs.protocols import Agent
from hookspecs.values import PromptSection, SessionEvent

from .agents.prompt import PERSONA_SECTION, SystemPromptRegistry
from .agents.registry import AgentRegistryImpl
from .agents.turn import base_config
from .approval import ApprovalServiceImpl
from .client import ClientServiceImpl
from .clock import HostClock
from .commands import CommandRegistryImpl
from .compaction.command import compact_command
from .compaction.engine import BuiltinCompactionEngine
from .compaction.policy import COMPACTION_NAMESPACE, CompactionSettings
from .compaction.service import CompactionService
from .core_plugin import builtin_plugins
from .hook_facade import HookFailed, HostHooks, RegisterHook
from .llm.service import LlmService
from .loop_settings import AGENT_LOOP_NAMESPACE, AgentLoopSettings
from .paths import HostPaths
from .plugins import LoadedPlugin, load_plugins, make_plugin_manager
from .profiles import ProfileRow
from .runtime import Runtime
from .services import ServiceDirectoryImpl
from .sessions import SessionLog, SessionStore
from .sessions.history import LiveSurfaces
from .settings import SettingsService
from .subagents import SubagentServiceImpl
from .subagents.spawn import SpawnProvider
from .subagents.toolkit import SubagentToolkitImpl
from .tools.builtin.shell_env import key_env_names
from .tools.registry import ToolRegistry

TEARDOWN_SECONDS = 30.0

_S = TypeVar("_S")


class HarnessHost:
    """Implements :class:`hookspecs.protocols.Host`."""

    def __init__(
        self,
        *,
        pm: pluggy.PluginManager,
        paths: HostPaths,
        headless: bool,
        logger: logging.Logger,
        clock: HostClock,
        cwd: Path,
        rows: Sequence[ProfileRow],
    ) -> None:
        self.pm = pm
        self.paths = paths
        self._headless = headless
        self.logger = logger
        self.clock = clock
        self.cwd = cwd
        self.rows = tuple(rows)
        self.loaded: list[LoadedPlugin] = []
        self._background: trio.Nursery | None = None
        self._background_count = 0
        self._background_idle = trio.Event()
        self._background_idle.set()
        self._disposers: list[Callable[[], Any]] = []

        self.hooks = HostHooks(pm, logger=logger, spawn=lambda fn, name: self.spawn(fn, name=name))
        self.sessions = SessionStore(
            sessions_dir=paths.sessions_dir, on_event=self._on_session_event, now_ms=clock.now_ms, logger=logger
        )
        self.settings = SettingsService(path=paths.settings_file, on_updated=self.hooks.settings_updated, logger=logger)
        self.tools = ToolRegistry()
        self.commands = CommandRegistryImpl(logger)
        self.llm = LlmService()
        self.approval = ApprovalServiceImpl(self.hooks)
        self.client = ClientServiceImpl(logger)
        self.system_prompt = SystemPromptRegistry()
        self.runtime = Runtime(
            hooks=self.hooks,
            sessions=self.sessions,
            tools=self.tools,
            prompt=self.system_prompt,
            llm=self.llm,
            approval=self.approval,
            clock=clock,
            logger=logger,
            loop_settings=self.loop_settings,
            spawn=self.spawn,
            # every row, disabled ones too: a key is no less secret when its provider is off
            protected_env=key_env_names([row.config for row in self.rows]),
        )
        surfaces = LiveSurfaces()
        self.compaction = CompactionService(
            builtin=BuiltinCompactionEngine(
                llm=self.llm, settings=self.compaction_settings, route=_next_route, surfaces=surfaces, logger=logger,
                notify=self.client.notice,
            ),
            hooks=self.hooks,
            surfaces=surfaces,
        )
        self.runtime.compaction = self.compaction
        self.agents = AgentRegistryImpl(self.runtime, default_cwd=cwd)
        self.subagents = SubagentServiceImpl(self.hooks, SubagentToolkitImpl(self.agents))
        self.services = ServiceDirectoryImpl()

    # --- Host protocol ------------------------------------------------------------------

    @property
    def headless(self) -> bool:
        return self._headless

    def emit(self, name: str, payload: Mapping[str, Any]) -> None:
        self.hooks.process_event(name, payload)

    def spawn(self, fn: Callable[..., Awaitable[Any]], *args: Any, name: str | None = None) -> None:
        if self._background is None:
            raise DshError("the host is not running; background work cannot start", code="HOST_NOT_RUNNING")
        self._background_count += 1
        self._background_idle = trio.Event() if self._background_idle.is_set() else self._background_idle
        self._background.start_soon(self._run_background, fn, args, name=name or getattr(fn, "__name__", "task"))

    async def _run_background(self, fn: Callable[..., Awaitable[Any]], args: tuple[Any, ...]) -> None:
        try:
            await fn(*args)
        except Exception:
            self.logger.exception("background task %s failed", getattr(fn, "__name__", fn))
        finally:
            self._background_count -= 1
            if self._background_count == 0:
                self._background_idle.set()

    async def wait_background_idle(self) -> None:
        """Return when no background task is running (they may start new ones)."""
        while not self._background_idle.is_set():
            await self._background_idle.wait()

    @property
    def background_busy(self) -> bool:
        return self._background_count > 0

    def loop_settings(self) -> AgentLoopSettings:
        return self._settings_or_default(AGENT_LOOP_NAMESPACE, AgentLoopSettings)

    def compaction_settings(self) -> CompactionSettings:
        return self._settings_or_default(COMPACTION_NAMESPACE, CompactionSettings)

    def _settings_or_default(self, namespace: str, schema: type[_S]) -> _S:
        """The namespace's current value, or ``schema()`` when it is not registered (yet)."""
        try:
            value = self.settings.get(namespace)
        except DshError:
            return schema()
        return value if isinstance(value, schema) else schema()

    # --- internals ---------------------------------------------------------------------------

    def _on_session_event(self, session: SessionLog, event: SessionEvent) -> None:
        self.hooks.session_event(session, event)

    def row_config(self, row_id: str) -> Mapping[str, Any] | None:
        for row in self.rows:
            if row.id == row_id and not row.disabled:
                return row.config
        return None

    def _collect_registrations(self) -> None:
        def track(disposer: Callable[[], Any]) -> None:
            self._disposers.append(disposer)

        def failing(hook: str, plugin: str, exc: Exception) -> PluginError:
            return PluginError(f"{hook}: plugin {plugin!r} made an invalid registration: {exc}")

        def collect(hook: RegisterHook, register: Callable[..., Callable[[], Any]]) -> None:
            def on_item(plugin: str, item: Any, *args: Any, **kw: Any) -> None:
                try:
                    track(register(item, *args, **kw))
                except DshError as exc:
                    raise failing(hook, plugin, exc) from exc
                except (TypeError, ValueError) as exc:
                    raise failing(hook, plugin, exc) from exc

            self.hooks.collect_registrations(hook, on_item)

        collect("dsh_register_event_types", self.sessions.register_event_type)
        collect(
            "dsh_register_settings",
            lambda spec: self.settings.register(spec, base=self.row_config(spec.namespace)),
        )
        collect("dsh_register_llm_adapters", self.llm.register_adapter)
        collect("dsh_register_tools", self.tools.register)
        collect("dsh_register_commands", self.commands.register)
        track(self.commands.register(compact_command(self.compaction)))
        collect("dsh_register_compaction_engine", self.compaction.register)
        track(self.subagents.register_provider(SpawnProvider(self.subagents.toolkit)))
        collect("dsh_register_subagent_providers", self.subagents.register_provider)
        collect("dsh_register_client", self.client.contribute)

    def _apply_persona(self) -> None:
        persona = self.loop_settings().persona
        if persona:
            self._disposers.append(
                self.system_prompt.section(PromptSection(name=PERSONA_SECTION, text=persona, order=0))
            )

    async def _stop(self) -> None:
        with trio.move_on_after(TEARDOWN_SECONDS) as scope:
            scope.shield = True
            await self.agents.dispose_all()
            await self.hooks.plugin_teardown(self)
        if scope.cancelled_caught:
            self.logger.warning("teardown did not finish within %ss; cancelling what is left", TEARDOWN_SECONDS)
        for dispose in reversed(self._disposers):
            try:
                dispose()
            except Exception:
                self.logger.exception("a registration disposer failed")
        self._disposers.clear()


def _next_route(agent: Agent) -> tuple[str, str]:
    """The (provider, model) of the agent's next request: the last request's
    route, else the one its options and the agent-loop settings give."""
    last = getattr(agent, "last_route", None)
    if last is not None:
        return last[0], last[1]
    config = base_config(agent)  # type: ignore[arg-type]
    return config.provider, config.model


@asynccontextmanager
async def open_host(
    *,
    rows: Sequence[ProfileRow] = (),
    dsh_home: Path,
    cwd: Path | None = None,
    headless: bool = False,
    extra_plugins: Sequence[tuple[str, object]] = (),
    environ: Mapping[str, str] | None = None,
    logger: logging.Logger | None = None,
    clock: HostClock | None = None,
) -> AsyncIterator[HarnessHost]:
    """Run a host for the duration of the ``async with`` block.

    ``rows`` are composed profile rows; ``extra_plugins`` are ``(name, object)``
    pairs registered like built-ins (tests use them for ad hoc plugins).
    """
    env = os.environ if environ is None else environ
    log = logger or logging.getLogger("harness")
    ensure_private_dir(dsh_home)
    pm = make_plugin_manager()
    builtins = [*builtin_plugins(rows, env), *extra_plugins]
    host = HarnessHost(
        pm=pm,
        paths=HostPaths(dsh_home=dsh_home),
        headless=headless,
        logger=log,
        clock=clock or HostClock(),
        cwd=(cwd or Path.cwd()).resolve(),
        rows=rows,
    )
    host.loaded = load_plugins(pm, rows, environ=env, builtins=builtins)
    try:
        host._collect_registrations()
        host.settings.load()
        host._apply_persona()
        async with trio.open_nursery() as root:
            background = await root.start(_serve_nursery)
            agents = await root.start(_serve_nursery)
            host._background = background
            host.runtime.nursery = agents
            try:
                try:
                    await host.hooks.plugin_setup(host)
                except HookFailed as exc:
                    raise PluginError(str(exc)) from exc.__cause__
                yield host
            finally:
                with trio.CancelScope(shield=True):
                    await host._stop()
                root.cancel_scope.cancel()
    finally:
        for loaded in reversed(host.loaded):
            if loaded.instance is not None and pm.is_registered(loaded.instance):
                pm.unregister(loaded.instance)


async def _serve_nursery(*, task_status: trio.TaskStatus[trio.Nursery] = trio.TASK_STATUS_IGNORED) -> None:
    """A nursery that lives until cancelled; handed to the caller via ``start``."""
    async with trio.open_nursery() as nursery:
        task_status.started(nursery)
        await trio.sleep_forever()


async def drain(host: HarnessHost, agent: Any) -> None:
    """Wait until the agent is idle *and* no plugin background work is running.

    Background work may wake the agent again (a reviewer's follow-up), so the
    two waits repeat until both hold at once.
    """
    while True:
        await agent.when_idle()
        await host.wait_background_idle()
        await trio.lowlevel.checkpoint()
        if agent.quiescent and not host.background_busy:
            return
