"""The per-root states and the operations on a root that span paths:
creating its state, advancing its epoch, a real user message, release."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.owner import OwnerState
from ..core.records import Cancellation
from ..run.state import RunState

if TYPE_CHECKING:
    from hookspecs.protocols import Agent

    from ..coordination.path import CoordinationPath
    from ..core.context import RuntimeContext
    from ..governance.path import GovernancePath
    from ..output.path import OutputPath
    from ..run.path import RunPath
    from ..trigger.budget import BudgetKeeper
    from ..trigger.path import TriggerPath
    from ..vocabulary import CancellationSource, ReasonCode


class Owners:
    def __init__(
        self,
        ctx: RuntimeContext,
        *,
        budget: BudgetKeeper,
        trigger: TriggerPath,
        run: RunPath,
        output: OutputPath,
        coordination: CoordinationPath,
        governance: GovernancePath,
    ) -> None:
        self._ctx = ctx
        self._budget = budget
        self._trigger = trigger
        self._run = run
        self._output = output
        self._coordination = coordination
        self._governance = governance
        #: root agent id -> its state
        self.states: dict[str, OwnerState] = {}

    def get(self, agent: Agent, *, create: bool = True) -> OwnerState | None:
        state = self.states.get(agent.id)
        if state is not None and state.root is not agent:
            # the same session driven by a new agent (resumed): the old state is
            # being released; the new agent gets its own
            state = None
        if state is None and create and not self._ctx.stopped:
            state = OwnerState(
                root=agent,
                trigger=self._budget.load(agent.id, agent.session.events),
                output=self._output.new_state(),
                run=RunState(),
            )
            self.states[agent.id] = state
        return state

    def cancel(self, state: OwnerState, reason: ReasonCode, source: CancellationSource) -> None:
        """Advance the epoch: drop queued turns, cancel active runs, abort waiting reports."""
        state.epoch += 1
        self._trigger.drop_queued(state)
        self._run.cancel_active(state, reason, source)
        self._output.discard_waiting(state, Cancellation(reason=reason, source=source))

    def reset_for_user_input(self, state: OwnerState) -> None:
        """Real user input arrived: a fresh budget window and no stale coordination."""
        state.trigger.clear_throttles()
        self._budget.open_window(state)
        self._coordination.reset(state)
        self._output.reset(state)
        self._governance.reset(state)

    async def release(self, state: OwnerState) -> None:
        if state.released:
            return
        try:
            await self._governance.drain(state)
            state.released = True
            for failure in await state.output.batcher.dispose():
                self._ctx.logger.warning("dsh-shadow-mind: delivery failed while releasing: %s", failure)
        finally:
            state.released = True
            self._output.forget(state)
            if self.states.get(state.root_id) is state:
                del self.states[state.root_id]
