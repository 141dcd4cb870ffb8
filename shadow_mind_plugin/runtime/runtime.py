"""The wiring: one object per stage, connected through typed ports, and the
routing of host events to them.

The stages are built when first needed (:meth:`ShadowRuntime._wire`): the
first completed turn, report or control. Until then no root has owner state,
no relay or card exists, and the hooks leave after a flag check, so a run
that never reaches a review never loads them.

Hook entry points (``on_*``) are called from host observers: they never block
and never append; work is started with ``host.spawn``. Operations on a root
that span stages (creating and releasing its state, advancing its epoch) are
in :mod:`.owners`; what a person can ask for is in :mod:`.controls`.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from hookspecs.values import Enter, EventTypes, SessionEvent, turn_end_kind

from ..settings import ShadowMindSettings
from ..vocabulary import PROVIDER_NAME, REPORT_SOURCE_KIND, CancellationSource, ReasonCode

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from hookspecs.protocols import Agent, Host, Session
    from hookspecs.values import Message

    from ..coordination.coordination_stage import CoordinationStage
    from ..core.context import RuntimeContext
    from ..core.owner import OwnerState
    from ..definitions.registry import ShadowRegistry
    from ..governance.governance_stage import GovernanceStage
    from ..output.output_stage import OutputStage
    from ..run.run_stage import RunStage
    from ..trigger.budget import BudgetKeeper
    from ..trigger.trigger_stage import TriggerStage
    from .controls import Controls
    from .owners import Owners

#: Eligible turns reuse the definition catalog scanned within this many seconds.
CATALOG_SCAN_SECONDS = 1.0

#: what :meth:`ShadowRuntime._wire` builds; reading any of them builds them all
_WIRED = frozenset({"ctx", "governance", "budget", "coordination", "output", "run", "trigger", "controls", "_owners"})


class ShadowRuntime:
    ctx: RuntimeContext
    governance: GovernanceStage
    budget: BudgetKeeper
    coordination: CoordinationStage
    output: OutputStage
    run: RunStage
    trigger: TriggerStage
    controls: Controls
    _owners: Owners

    def __init__(self, host: Host, *, logger: logging.Logger | None = None) -> None:
        self._host = host
        self._logger = logger or logging.getLogger("shadow_mind")
        #: the stages are built (``_wire``); before, no owner, relay or card exists
        self.wired = False
        #: teardown came before the stages were built: they are built stopped
        self._stopped = False
        self._provider_disposer: Callable[[], None] | None = None

    def __getattr__(self, name: str) -> Any:
        # only reached for an attribute not set: a stage before ``_wire``
        if name in _WIRED and not self.__dict__.get("wired", True):
            self._wire()
            return self.__dict__[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def _wire(self) -> None:
        import trio

        from ..coordination.coordination_stage import CoordinationStage
        from ..core.context import RuntimeContext
        from ..definitions.registry import ShadowRegistry
        from ..governance.governance_stage import GovernanceStage
        from ..output.output_stage import OutputStage
        from ..run.run_stage import RunStage
        from ..trigger.budget import BudgetKeeper
        from ..trigger.throttles import ThrottleKeeper
        from ..trigger.trigger_stage import TriggerStage
        from .controls import Controls
        from .owners import Owners

        registry = ShadowRegistry(
            self._host.paths.dsh_home, scan_interval=CATALOG_SCAN_SECONDS, clock=trio.current_time
        )
        ctx = RuntimeContext(host=self._host, logger=self._logger, registry=registry, stopped=self._stopped)
        governance = GovernanceStage(ctx)
        budget = BudgetKeeper(ctx)
        throttles = ThrottleKeeper()
        coordination = CoordinationStage(ctx, governance=governance, throttles=throttles)
        output = OutputStage(ctx, governance=governance, review=coordination, budget=budget)
        run = RunStage(
            ctx,
            governance=governance,
            budget=budget,
            outcomes=output,
            throttles=throttles,
            on_run_ended=self._run_ended,
        )
        trigger = TriggerStage(
            ctx,
            budget=budget,
            governance=governance,
            launcher=run,
            evidence=run,
            review=coordination,
            relays=output,
        )
        owners = Owners(
            ctx,
            budget=budget,
            trigger=trigger,
            run=run,
            output=output,
            coordination=coordination,
            governance=governance,
        )
        controls = Controls(ctx, owners=owners, trigger=trigger, run=run, budget=budget, governance=governance)
        # set together, so a failed build leaves none of them half set
        self.ctx, self.governance, self.budget, self.coordination = ctx, governance, budget, coordination
        self.output, self.run, self.trigger, self._owners, self.controls = output, run, trigger, owners, controls
        self.wired = True

    # --- shared lookups ----------------------------------------------------------------------

    @property
    def host(self) -> Host:
        return self._host

    @property
    def registry(self) -> ShadowRegistry:
        return self.ctx.registry

    def settings(self) -> ShadowMindSettings:
        return self.ctx.settings()

    def now(self) -> float:
        return self.ctx.now()

    def install_provider(self) -> None:
        """Register the built-in provider only if the name is free; a provider a
        deployment registered first is kept and capability-checked per run."""
        if self.host.subagents.get(PROVIDER_NAME) is None:
            from ..run.provider import ShadowMindProvider

            self._provider_disposer = self.host.subagents.register_provider(ShadowMindProvider(self.host))

    # --- owners --------------------------------------------------------------------------------

    @property
    def owners(self) -> dict[str, OwnerState]:
        """Root agent id -> its state."""
        return self._owners.states

    def owner(self, agent: Agent, *, create: bool = True) -> OwnerState | None:
        return self._owners.get(agent, create=create)

    def cancel_owner(self, state: OwnerState, reason: ReasonCode, source: CancellationSource) -> None:
        self._owners.cancel(state, reason, source)

    async def release_owner(self, state: OwnerState) -> None:
        await self._owners.release(state)

    def _run_ended(self, state: OwnerState) -> None:
        self.trigger.process_pending(state)

    # --- host events ------------------------------------------------------------------------------

    def on_settings_updated(self, value: Any, previous: Any) -> None:
        if not isinstance(value, ShadowMindSettings) or not self.wired:
            return  # stages built later read the settings then; no owner has challenges to drop
        self.trigger.reseed(value.random_seed)
        if isinstance(previous, ShadowMindSettings) and previous.value_loop_enabled and not value.value_loop_enabled:
            self.governance.value_loop_disabled(list(self.owners.values()))

    async def on_pre_step(self, agent: Agent, messages: Sequence[Message], call_next: Any) -> Any:
        """Claimed inbox messages enter a root's step: a relay that went stale in
        the inbox is left out; the relays that enter settle as delivered."""
        if not self.output.relays_in_inbox:
            return None  # every root step passes here: nothing to check, pass the chain on
        keep, relays = self.output.entering(messages)
        if not relays and len(keep) == len(messages):
            return await call_next()
        decision = await call_next(messages=tuple(keep))
        self.output.entered(relays, decision.messages if isinstance(decision, Enter) else ())
        return decision

    def on_inbox(self, agent: Agent, change: str, message: Any) -> None:
        if not self.wired:
            return  # no relay was queued and no root has owner state
        if change == "discarded" and agent.is_root:
            self.output.inbox_discarded(message)
            return
        if change != "inserted":
            return
        state = self._owners.states.get(agent.id)  # owners are roots: a child has none
        if state is None or self.ctx.stopped or message.source_kind != "user":
            return  # relays and plugin deliveries are not real user input
        self._owners.reset_for_user_input(state)
        self.cancel_owner(state, ReasonCode.USER_MESSAGE_RECEIVED, CancellationSource.USER_INPUT)

    def on_session_event(self, session: Session, event: SessionEvent) -> None:
        # the plugin's hook passes only the watched types (turn/end, user/message).
        # Every root turn passes here, so a root with no owner state yet (nothing
        # admitted: the case at probability 0) leaves after a dict lookup
        if not self.wired and not self._needs_stages(session, event):
            return
        if self.ctx.stopped:
            return
        # agents, and so owners, are keyed by session id (``_owners.states``: a
        # property call fewer on the path every turn takes)
        state = self._owners.states.get(session.id)
        if event.type == EventTypes.USER_MESSAGE:
            self._on_user_message(session, state, event)
            return
        kind = turn_end_kind(event)
        if state is None and (kind != "completed" or not self.trigger.may_review()):
            return  # no owner to cancel or evaluate, and no review to schedule
        agent = self.ctx.live_root(session.id) if session.header.is_root else None
        if agent is None:
            return
        if state is not None:
            self.governance.evaluate_challenges(state, event)
        if kind == "aborted" and event.data.get("reason", {}).get("by") == "user":
            if state is not None:
                self.cancel_owner(state, ReasonCode.USER_TURN_ABORTED, CancellationSource.USER_INPUT)
            return
        # the cheap setting check first: finding a tool result walks back over
        # the turn's streamed answer
        from ..trigger.eligibility import turn_used_tools

        if kind != "completed" or not self.trigger.may_review() or not turn_used_tools(session, event):
            return
        state = state or self.owner(agent)
        if state is not None:
            self.trigger.on_tool_turn(state, event.seq)

    def _needs_stages(self, session: Session, event: SessionEvent) -> bool:
        """Whether ``event`` can do anything before the stages exist (then no
        root has owner state): a relayed report, or a completed turn that used
        tools (the only one a review is scheduled for), unless torn down."""
        if self._stopped:
            return False
        if event.type == EventTypes.USER_MESSAGE:
            return bool(event.data.get("message", {}).get("source", {}).get("kind") == REPORT_SOURCE_KIND)
        from ..trigger.eligibility import turn_used_tools

        return turn_end_kind(event) == "completed" and turn_used_tools(session, event)

    def _on_user_message(self, session: Session, state: OwnerState | None, event: SessionEvent) -> None:
        from ..trigger.ledger import is_real_user

        source = event.data.get("message", {}).get("source", {})
        if source.get("kind") == REPORT_SOURCE_KIND:
            agent = self.ctx.live_root(session.id) if session.header.is_root else None
            state = self.owner(agent) if agent is not None else None
            if state is not None:
                self.governance.capture_challenges(state, event)
        elif state is not None and is_real_user(event) and self.ctx.live_root(session.id) is not None:
            self.budget.commit_user_window(state, event.seq)

    def on_background_cancel(self, agent: Agent) -> None:
        """The person stopped the root's background work: reviews and reports
        waiting to be relayed (or queued in its inbox) end as for a user abort."""
        if not self.wired:
            return  # no owner state: nothing waits
        state = self._owners.states.get(agent.id)
        if state is not None and state.root is agent and not self.ctx.stopped:
            self.cancel_owner(state, ReasonCode.USER_CANCELLED, CancellationSource.USER_INPUT)

    def on_agent_disposed(self, agent: Agent) -> None:
        if not self.wired:
            return
        state = self.owners.get(agent.id)
        if state is None or state.root is not agent:
            return
        self.cancel_owner(state, ReasonCode.ROOT_DISPOSED, CancellationSource.ROOT_LIFECYCLE)
        self.host.spawn(self.release_owner, state, name="shadow-mind:release")

    def on_agent_idle(self, agent: Agent) -> None:
        """Headless hosts wait for background work; bound that wait."""
        if not self.wired:
            return
        state = self._owners.states.get(agent.id)
        if state is None or not self.host.headless or self.ctx.stopped:
            return
        if state.draining or not self._owners.busy(state):
            return
        state.draining = True
        self.host.spawn(self._headless_drain, state, name="shadow-mind:headless-drain")

    async def _headless_drain(self, state: OwnerState) -> None:
        try:
            await self._owners.drain_with_deadline(
                state,
                self.settings().headless_drain_timeout_seconds,
                lambda: self.cancel_owner(state, ReasonCode.HEADLESS_DRAIN_TIMEOUT, CancellationSource.HEADLESS),
            )
        finally:
            state.draining = False

    # --- teardown ---------------------------------------------------------------------------------

    async def teardown(self) -> None:
        """Plugin disposal: cancel every owner's work and wait to quiescence."""
        self._stopped = True
        if self.wired:  # else no owner, work or journal line exists
            await self._stop_stages()
        if self._provider_disposer is not None:
            self._provider_disposer()
            self._provider_disposer = None

    async def _stop_stages(self) -> None:
        self.ctx.stopped = True
        for state in list(self.owners.values()):
            self.cancel_owner(state, ReasonCode.PLUGIN_DISPOSED, CancellationSource.PLUGIN_LIFECYCLE)
        for state in list(self.owners.values()):
            try:
                await self.release_owner(state)
            except Exception:
                self.ctx.logger.exception("releasing Shadow state for %s failed", state.root_id)
        await self.governance.journal.flush()


__all__ = ["ShadowRuntime"]
