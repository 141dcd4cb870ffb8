"""Creating, resuming and disposing agents."""

from __future__ import annotations

import builtins
import inspect
import uuid
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs
import trio

from hookspecs.errors import AgentError
from hookspecs.protocols import CreateAgentOptions
from hookspecs.values import AgentOptions, EventTypes, SessionEvent, SessionHeader

from ..cleanup import shielded_cleanup
from .agent import LoopAgent

if TYPE_CHECKING:
    from ..runtime import Runtime


class AgentHandleImpl:
    def __init__(self, registry: AgentRegistryImpl, agent: LoopAgent) -> None:
        self._registry = registry
        self._agent = agent

    @property
    def agent(self) -> LoopAgent:
        return self._agent

    async def dispose(self) -> None:
        await self._registry.dispose(self._agent)


class AgentRegistryImpl:
    """Implements :class:`hookspecs.protocols.AgentRegistry`."""

    def __init__(self, runtime: Runtime, *, default_cwd: Path) -> None:
        self._rt = runtime
        self._default_cwd = default_cwd
        self._agents: dict[str, LoopAgent] = {}
        self._disposals: dict[str, trio.Event] = {}

    def get(self, agent_id: str) -> LoopAgent | None:
        return self._agents.get(agent_id)

    def list(self) -> list[LoopAgent]:
        return list(self._agents.values())

    def roots(self) -> builtins.list[LoopAgent]:
        return [a for a in self._agents.values() if a.owner is None]

    def owner_of(self, agent_id: str) -> LoopAgent | None:
        agent = self._agents.get(agent_id)
        return agent.owner if agent else None

    def children_of(self, agent: LoopAgent) -> builtins.list[LoopAgent]:
        return [a for a in self._agents.values() if a.owner is agent]

    async def create(self, options: CreateAgentOptions) -> AgentHandleImpl:
        rt = self._rt
        if options.cancel is not None and options.cancel.cancelled:
            raise AgentError("agent creation was cancelled before it started", code="AGENT_CREATE_CANCELLED")
        owner = options.owner
        if owner is not None and not isinstance(owner, LoopAgent):
            raise AgentError("owner must be an agent of this host")
        session_id = options.session_id or uuid.uuid4().hex
        cwd = Path(options.cwd) if options.cwd else (owner.cwd if owner is not None else self._default_cwd)
        header = SessionHeader(
            id=session_id,
            created_at=rt.clock.now_ms(),
            cwd=str(cwd),
            parent_session=options.parent_session,
            origin=options.origin,  # type: ignore[arg-type]
            delegation_depth=options.delegation_depth,
        )
        session = rt.sessions.create(header)
        agent = LoopAgent(
            runtime=rt, session=session, options=options.agent_options, cwd=cwd, owner=owner, label=options.label
        )
        try:
            await _run_setup(options.setup, agent)
            if options.cancel is not None and options.cancel.cancelled:
                raise AgentError("agent creation was cancelled during setup", code="AGENT_CREATE_CANCELLED")
        except BaseException:
            with shielded_cleanup():
                await agent.scope.unwind(rt.logger)
            rt.sessions.discard(session_id)
            raise
        rt.hooks.session_created(session)
        return await self._publish(agent)

    async def resume(
        self,
        session_id: str,
        *,
        agent_options: AgentOptions | None = None,
        setup: Callable[[Any], Awaitable[None] | None] | None = None,
    ) -> AgentHandleImpl:
        rt = self._rt
        if session_id in self._agents:
            raise AgentError(f"session {session_id} is already driven by a live agent")
        session = rt.sessions.open(session_id)
        cwd = Path(session.header.cwd) if session.header.cwd else self._default_cwd
        options = agent_options or AgentOptions()
        if not (options.provider and options.model) and not rt.loop_settings().model:
            # neither the caller nor the profile names a model: go on where the log left off
            logged = _logged_route(session.events)
            if logged is not None:
                options = attrs.evolve(options, provider=logged[0], model=logged[1])
        agent = LoopAgent(runtime=rt, session=session, options=options, cwd=cwd)
        built_at = session.seq  # the agent derived its history from these
        try:
            await _run_setup(setup, agent)
        except BaseException:
            with shielded_cleanup():
                await agent.scope.unwind(rt.logger)
            rt.sessions.close(session_id)
            raise
        rt.hooks.session_created(session)
        rt.sessions.repair(session)
        if session.seq != built_at:
            # repair or an observer appended: count again (from the log's clean
            # point, which repair just moved to its end)
            agent.reload_from_log()
        return await self._publish(agent)

    async def _publish(self, agent: LoopAgent) -> AgentHandleImpl:
        rt = self._rt
        self._agents[agent.id] = agent
        rt.hooks.agent_created(agent)
        if rt.nursery is None:
            raise AgentError("the host is not running")
        try:
            await rt.nursery.start(agent.drive)
        except BaseException:
            # A cancelled caller can see Cancelled after the driver already
            # started: without a handle nobody else could dispose of the agent.
            with shielded_cleanup():
                await self.dispose(agent)
            raise
        return AgentHandleImpl(self, agent)

    async def dispose(self, agent: LoopAgent) -> None:
        """Stop, drain and release ``agent`` (and children it owns). Idempotent."""
        rt = self._rt
        pending = self._disposals.get(agent.id)
        if pending is not None:
            await pending.wait()
            return
        if agent.id not in self._agents:
            return
        done = trio.Event()
        self._disposals[agent.id] = done
        try:
            # Not bounded as a whole: the session may only close once the driver
            # has stopped, and stopping only waits for a cancelled turn (whose
            # shielded cleanup is bounded) and for tool threads to return. The
            # plugins' on-dispose callbacks are bounded.
            with trio.CancelScope(shield=True):
                await agent.shutdown()
                if rt.compaction is not None:
                    rt.compaction.forget(agent.session.id)  # no state kept for a closed session
                # observers hear about the owner first, so whoever owns its
                # children (a subagent provider) can cancel them with a reason
                rt.hooks.agent_disposed(agent)
                for child in self.children_of(agent):
                    await self.dispose(child)
                with shielded_cleanup():
                    await agent.scope.unwind(rt.logger)
                rt.sessions.close(agent.id)
                rt.hooks.session_disposed(agent.session)
        finally:
            self._agents.pop(agent.id, None)
            self._disposals.pop(agent.id, None)
            done.set()

    async def dispose_all(self) -> None:
        for agent in list(self._agents.values()):
            if agent.owner is None:
                await self.dispose(agent)
        for agent in list(self._agents.values()):
            await self.dispose(agent)


async def _run_setup(setup: Callable[[Any], Awaitable[None] | None] | None, agent: LoopAgent) -> None:
    if setup is None:
        return
    result = setup(agent.scope)
    if inspect.isawaitable(result):
        await result


def _logged_route(events: Sequence[SessionEvent]) -> tuple[str, str] | None:
    """The provider and model of the session's last ``request/context`` (read
    from the end: a log opened from its checkpoint loads its earlier part only
    when the route is not in what was read)."""
    for event in reversed(events):
        if event.type == EventTypes.REQUEST_CONTEXT:
            provider, model = event.data.get("provider"), event.data.get("model")
            if isinstance(provider, str) and provider and isinstance(model, str) and model:
                return provider, model
            return None
    return None
