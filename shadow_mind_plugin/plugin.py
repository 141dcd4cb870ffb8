"""The runtime plugin (profile row ``shadow-mind-runtime``).

It wires host observers to the runtime, registers the settings namespace and
the reserved ``shadow-mind`` provider (only if free). It imports only
:mod:`hookspecs`, so any host implementing the contract can run it.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any

from hookspecs import event_types, hookimpl
from hookspecs.values import EventTypes

from .client_contributions import client_contributions
from .runtime.runtime import ShadowRuntime
from .settings import SETTINGS_SPEC, ShadowMindSettings
from .vocabulary import SETTINGS_NAMESPACE

if TYPE_CHECKING:
    from collections.abc import Sequence

    from hookspecs.protocols import Agent, Host, Session
    from hookspecs.values import Message, SessionEvent

#: the only event types :meth:`ShadowRuntime.on_session_event` acts on
WATCHED_EVENT_TYPES = frozenset({EventTypes.TURN_END, EventTypes.USER_MESSAGE})

#: host -> its runtime, so the management-tools plugin can find it
_RUNTIMES: weakref.WeakKeyDictionary[Any, ShadowRuntime] = weakref.WeakKeyDictionary()


def runtime_for(host: Host) -> ShadowRuntime | None:
    return _RUNTIMES.get(host)


class ShadowMindRuntimePlugin:
    #: the row config is the settings namespace's base layer (row id == namespace)
    config_schema = ShadowMindSettings

    def __init__(self, config: ShadowMindSettings | None = None) -> None:
        self.config = config or ShadowMindSettings()
        self.runtime: ShadowRuntime | None = None

    @hookimpl
    def dsh_register_settings(self, register: Any) -> None:
        register(SETTINGS_SPEC)

    @hookimpl
    def dsh_register_client(self, register: Any) -> None:
        # every host collects these at start: data whose code loads when a client uses it
        for contribution in client_contributions(lambda: self.runtime):
            register(contribution)

    @hookimpl
    def dsh_plugin_setup(self, host: Host) -> None:
        self.runtime = ShadowRuntime(host, logger=host.logger.getChild("shadow_mind"))
        self.runtime.install_provider()
        _RUNTIMES[host] = self.runtime

    @hookimpl
    async def dsh_plugin_teardown(self, host: Host) -> None:
        if self.runtime is not None:
            await self.runtime.teardown()
            _RUNTIMES.pop(host, None)

    @hookimpl
    @event_types(*WATCHED_EVENT_TYPES)
    def dsh_session_event(self, session: Session, event: SessionEvent) -> None:
        # every event of every session passes here; the runtime watches two types
        if event.type in WATCHED_EVENT_TYPES and self.runtime is not None:
            self.runtime.on_session_event(session, event)

    @hookimpl
    def dsh_agent_inbox(self, agent: Agent, change: str, message: Message) -> None:
        if self.runtime is not None:
            self.runtime.on_inbox(agent, change, message)

    @hookimpl
    def dsh_agent_pre_step(self, agent: Agent, messages: Sequence[Message], call_next: Any) -> Any:
        # every step of every agent passes here: without a relay waiting in an inbox,
        # pass (None) without building a coroutine; the host awaits what is returned
        runtime = self.runtime
        if runtime is None or not runtime.wired or not runtime.output.relays_in_inbox or not agent.is_root:
            return None
        return runtime.on_pre_step(agent, messages, call_next)

    @hookimpl
    def dsh_agent_status(self, agent: Agent, status: str) -> None:
        if status == "idle" and self.runtime is not None:
            self.runtime.on_agent_idle(agent)  # roots only: a child has no owner state

    @hookimpl
    def dsh_agent_disposed(self, agent: Agent) -> None:
        if self.runtime is not None and agent.is_root:
            self.runtime.on_agent_disposed(agent)

    @hookimpl
    def dsh_agent_background_cancel(self, agent: Agent, cause: Any) -> None:
        if self.runtime is not None and agent.is_root:
            self.runtime.on_background_cancel(agent)

    @hookimpl
    def dsh_settings_updated(self, namespace: str, value: Any, previous: Any) -> None:
        if self.runtime is not None and namespace == SETTINGS_NAMESPACE:
            self.runtime.on_settings_updated(value, previous)
