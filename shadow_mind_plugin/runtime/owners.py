"""The per-root states and the operations on a root that span stages:
creating its state, advancing its epoch, a real user message, waiting for
quiescence, release."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import trio

from ..core.owner import OwnerState
from ..core.records import Cancellation
from ..run.run_state import RunState
from ..trigger.ledger import root_hash
from ..window_tally import SUFFIX as TALLY_SUFFIX
from ..window_tally import TallyKeeper

if TYPE_CHECKING:
    from hookspecs.protocols import Agent

    from ..coordination.coordination_stage import CoordinationStage
    from ..core.context import RuntimeContext
    from ..governance.governance_stage import GovernanceStage
    from ..output.output_stage import OutputStage
    from ..run.run_stage import RunStage
    from ..trigger.budget import BudgetKeeper
    from ..trigger.trigger_stage import TriggerStage
    from ..vocabulary import CancellationSource, ReasonCode


class Owners:
    def __init__(
        self,
        ctx: RuntimeContext,
        *,
        budget: BudgetKeeper,
        trigger: TriggerStage,
        run: RunStage,
        output: OutputStage,
        coordination: CoordinationStage,
        governance: GovernanceStage,
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
                run=RunState(tally=self._tally(agent.id)),
            )
            self.states[agent.id] = state
        return state

    def _tally(self, root_id: str) -> TallyKeeper:
        digest = root_hash(root_id)  # the record sits beside the root's budget ledger
        return TallyKeeper(self._budget.directory / f"{digest}{TALLY_SUFFIX}", digest)

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

    def busy(self, state: OwnerState) -> bool:
        """Scheduling, a run or a delivery is in flight for the root."""
        return state.work.count > 0 or self._output.busy(state) or self._run.running(state)

    async def drain(self, state: OwnerState) -> None:
        """Wait until the owner has no scheduling, run or delivery in flight."""
        while True:
            await state.work.wait_idle()
            await self._output.drain(state)
            if not self.busy(state):
                return

    async def drain_with_deadline(self, state: OwnerState, seconds: float, on_timeout: Callable[[], None]) -> None:
        """Headless hosts wait for background work; bound that wait."""
        with trio.move_on_after(seconds) as scope:
            await self.drain(state)
        if scope.cancelled_caught:
            on_timeout()
            await self.drain(state)

    async def release(self, state: OwnerState) -> None:
        if state.released:
            return
        try:
            await self.drain(state)
            state.released = True
            session = state.root.session
            state.run.tally.remember(session.events, session.loaded_seq)
            for failure in await self._output.dispose(state):
                self._ctx.logger.warning("dsh-shadow-mind: delivery failed while releasing: %s", failure)
        finally:
            state.released = True
            self._output.forget(state)
            if self.states.get(state.root_id) is state:
                del self.states[state.root_id]
