"""The host services and lifecycle facts every stage reads.

A stage receives this and the ports it calls (:mod:`.ports`), never the whole
runtime.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, TypeVarTuple

import attrs

from ..settings import ShadowMindSettings
from ..vocabulary import SETTINGS_NAMESPACE
from .clock import iso

if TYPE_CHECKING:
    from hookspecs.protocols import Agent, Host

    from ..definitions.registry import ShadowRegistry
    from .owner import OwnerState

#: the arguments of a spawned task, as its function takes them
Ts = TypeVarTuple("Ts")


@attrs.define(eq=False, kw_only=True)
class RuntimeContext:
    host: Host
    logger: logging.Logger
    registry: ShadowRegistry
    #: plugin disposal began: nothing new is admitted or delivered
    stopped: bool = False

    def settings(self) -> ShadowMindSettings:
        value = self.host.settings.get(SETTINGS_NAMESPACE)
        return value if isinstance(value, ShadowMindSettings) else ShadowMindSettings()

    def now(self) -> float:
        return self.host.clock.now()

    def iso_now(self) -> str:
        return iso(self.now())

    def live_root(self, session_id: str) -> Agent | None:
        agent = self.host.agents.get(session_id)
        if agent is None or not agent.is_root:
            return None
        return agent

    def is_current(self, state: OwnerState) -> bool:
        """The owner is not released and its root is still the live agent of its session."""
        return not state.released and self.host.agents.get(state.root_id) is state.root

    def accepts(self, state: OwnerState, epoch: int, *, manual: bool = False) -> bool:
        """Whether work admitted at ``epoch`` may still proceed. Pausing advances
        the epoch, so work from before a pause never passes; ``manual`` work
        started while paused does."""
        return (
            not self.stopped
            and (manual or not state.paused)
            and state.epoch == epoch
            and self.is_current(state)
        )

    def spawn_work(
        self, state: OwnerState, fn: Callable[[*Ts], Awaitable[object]], *args: *Ts, name: str
    ) -> None:
        """Start background work the owner's drains and teardown wait for."""
        state.work.enter()

        async def tracked() -> None:
            try:
                await fn(*args)
            finally:
                state.work.exit()

        self.host.spawn(tracked, name=name)
