"""The Shadow Mind runtime: per-root state, scheduling, admission, cancellation,
settlement and the controls behind ``/shadow``.

Hook entry points (``on_*``) are called from host observers: they never block
and never append; work is started with ``host.spawn``. Every admitted run
settles exactly once (:meth:`ShadowRuntime.finish_run`) with a phase, a stage
and a reason code.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import trio

from hookspecs.values import Card, EventTypes, SessionEvent, turn_end_kind

from ..definitions.registry import ShadowRegistry
from ..governance.holdout import redact, redact_value
from ..governance.safe_errors import safe_error
from ..governance.telemetry import deliberation_chars, tool_telemetry
from ..rng import make_random
from ..routes import root_route
from ..settings import ShadowMindSettings
from ..vendor import independence
from ..vocabulary import (
    DEFAULT_SHADOW_ID,
    PROVIDER_NAME,
    REPORT_SOURCE_KIND,
    SETTINGS_NAMESPACE,
    BudgetTier,
    CancellationSource,
    Phase,
    ReasonCode,
    Stage,
)
from . import coordination, value
from .batcher import ReportBatcher
from .budget import BudgetLedger, is_real_user
from .clock import iso
from .journal import LIFECYCLE_EVENTS, Journal, lifecycle_record
from .pipeline import run_pipeline
from .relay import HoldoutLeak, PendingReport, build_relay, order_by_severity
from .state import Cancellation, Cycle, OwnerState, PendingTurn, RunEntry, RunView

if TYPE_CHECKING:
    from hookspecs.protocols import Agent, Host, Session

    from ..definitions.model import ShadowDefinition

#: After a cancellation is requested, how long a provider may take to stop
#: before the run stops waiting for it.
CANCEL_GRACE_SECONDS = 30.0
#: How long ``dispose()`` may take.
DISPOSE_SECONDS = 30.0
#: Eligible turns reuse the definition catalog scanned within this many seconds.
CATALOG_SCAN_SECONDS = 1.0


class ShadowRuntime:
    def __init__(self, host: Host, *, logger: logging.Logger | None = None) -> None:
        self.host = host
        self.logger = logger or logging.getLogger("shadow_mind")
        self.registry = ShadowRegistry(host.paths.dsh_home, scan_interval=CATALOG_SCAN_SECONDS, clock=trio.current_time)
        self.journal = Journal(self.registry, self.logger)
        self.governance_dir = self.registry.root / "governance"
        self.owners: dict[str, OwnerState] = {}
        self.stopped = False
        self._seed = self.settings().randomSeed
        self.random: Callable[[], float] = make_random(self._seed)
        #: observers of settlements (tests, diagnostics): ``fn(entry)``
        self.settle_listeners: list[Callable[[RunEntry], None]] = []
        self._provider_disposer: Callable[[], None] | None = None
        self._logged_catalog: Any = None

    # --- settings and provider ------------------------------------------------------------

    def settings(self) -> ShadowMindSettings:
        value = self.host.settings.get(SETTINGS_NAMESPACE)
        return value if isinstance(value, ShadowMindSettings) else ShadowMindSettings()

    def install_provider(self) -> None:
        """Register the built-in provider only if the name is free; a provider a
        deployment registered first is kept and capability-checked per run."""
        if self.host.subagents.get(PROVIDER_NAME) is None:
            from .provider import ShadowMindProvider

            self._provider_disposer = self.host.subagents.register_provider(ShadowMindProvider(self.host))

    def on_settings_updated(self, value: Any, previous: Any) -> None:
        if not isinstance(value, ShadowMindSettings):
            return
        if value.randomSeed != self._seed:
            self._seed = value.randomSeed
            self.random = make_random(self._seed)
        if isinstance(previous, ShadowMindSettings) and previous.valueLoopEnabled and not value.valueLoopEnabled:
            for state in self.owners.values():
                state.pending_challenges.clear()

    # --- owners --------------------------------------------------------------------------------

    def owner(self, agent: Agent, *, create: bool = True) -> OwnerState | None:
        state = self.owners.get(agent.id)
        if state is not None and state.root is not agent:
            # the same session driven by a new agent (resumed): the old state is
            # being released; the new agent gets its own
            state = None
        if state is None and create and not self.stopped:
            state = OwnerState(root=agent, batcher=None)  # type: ignore[arg-type]
            state.batcher = ReportBatcher(
                window_seconds=lambda: self.settings().resultBatchWindowMs / 1000.0,
                deliver=lambda reports, _s=state: self._deliver(_s, reports),
                spawn=self.host.spawn,
                logger=self.logger,
            )
            ledger = BudgetLedger.load(self.governance_dir, agent.id, agent.session.events)
            state.ledger = ledger
            state.spent_chars = ledger.spent_chars
            if ledger.error:
                self.logger.warning("dsh-shadow-mind: %s", ledger.error)
            self.owners[agent.id] = state
        return state

    def live_root(self, session_id: str) -> Agent | None:
        agent = self.host.agents.get(session_id)
        if agent is None or not agent.is_root:
            return None
        return agent

    def accepts(self, state: OwnerState, epoch: int, *, manual: bool = False) -> bool:
        """Whether work admitted at ``epoch`` may still proceed. Pausing advances
        the epoch, so work from before a pause never passes; ``manual`` work
        started while paused does."""
        return (
            not self.stopped
            and (manual or not state.paused)
            and state.epoch == epoch
            and not state.released
            and self.host.agents.get(state.root_id) is state.root
        )

    def budget_tier(self, state: OwnerState) -> BudgetTier:
        s = self.settings()
        ledger = state.ledger
        budgeted = s.sessionShadowHardBudgetChars is not None or s.sessionShadowSoftBudgetChars is not None
        if budgeted and ledger is not None and ledger.error:
            return BudgetTier.EXHAUSTED  # unknown spend: fail closed
        if s.sessionShadowHardBudgetChars is not None and state.spent_chars >= s.sessionShadowHardBudgetChars:
            return BudgetTier.EXHAUSTED
        if s.sessionShadowSoftBudgetChars is not None and state.spent_chars >= s.sessionShadowSoftBudgetChars:
            return BudgetTier.FRUGAL
        return BudgetTier.STANDARD

    def now(self) -> float:
        return self.host.clock.now()

    def _iso_now(self) -> str:
        return iso(self.now())

    # --- hook entry points -----------------------------------------------------------------

    def on_inbox(self, agent: Agent, change: str, message: Any) -> None:
        if change != "inserted" or not agent.is_root or self.stopped:
            return
        if message.source_kind != "user":
            return  # relays and plugin deliveries are not real user input
        state = self.owners.get(agent.id)
        if state is None:
            return
        self.reset_governance(state)
        self.cancel_owner(state, ReasonCode.USER_MESSAGE_RECEIVED, CancellationSource.USER_INPUT)

    def on_session_event(self, session: Session, event: SessionEvent) -> None:
        etype = event.type  # most events are neither: leave on the cheapest test
        if etype != EventTypes.TURN_END and etype != EventTypes.USER_MESSAGE:
            return
        if self.stopped or not session.header.is_root:
            return
        agent = self.live_root(session.id)
        if agent is None:
            return
        if etype == EventTypes.USER_MESSAGE:
            source = event.data.get("message", {}).get("source", {})
            if source.get("kind") == REPORT_SOURCE_KIND:
                state = self.owner(agent)
                if state is not None:
                    self.capture_challenges(state, event)
            elif is_real_user(event):
                state = self.owners.get(agent.id)
                if state is not None:
                    self.commit_user_window(state, event.seq)
            return
        state = self.owners.get(agent.id)
        if state is not None:
            self.evaluate_challenges(state, event)
        kind = turn_end_kind(event)
        reason = event.data.get("reason", {})
        if kind == "aborted" and reason.get("by") == "user":
            if state is not None:
                self.cancel_owner(state, ReasonCode.USER_TURN_ABORTED, CancellationSource.USER_INPUT)
            return
        if kind != "completed" or not turn_used_tools(session, event):
            return
        state = state or self.owner(agent)
        if state is None or state.paused or not self._may_review():
            return
        cycle = state.cycle_for(event.seq)
        cycle.scheduling = True
        self.update_card(state, cycle)
        self._spawn_work(state, self._schedule_turn, state, cycle, state.epoch, event.seq, name="shadow-mind:schedule")

    def on_agent_disposed(self, agent: Agent) -> None:
        state = self.owners.get(agent.id)
        if state is None or state.root is not agent:
            return
        self.cancel_owner(state, ReasonCode.ROOT_DISPOSED, CancellationSource.ROOT_LIFECYCLE)
        self.host.spawn(self.release_owner, state, name="shadow-mind:release")

    def on_agent_idle(self, agent: Agent) -> None:
        """Headless hosts wait for background work; bound that wait."""
        if not self.host.headless or self.stopped:
            return
        state = self.owners.get(agent.id)
        if state is None or state.draining or not self._busy(state):
            return
        state.draining = True
        self.host.spawn(self._headless_drain, state, name="shadow-mind:headless-drain")

    # --- scheduling -------------------------------------------------------------------------------

    def _spawn_work(self, state: OwnerState, fn: Callable[..., Any], *args: Any, name: str) -> None:
        state.work.enter()

        async def tracked() -> None:
            try:
                await fn(*args)
            finally:
                state.work.exit()

        self.host.spawn(tracked, name=name)

    async def _schedule_turn(self, state: OwnerState, cycle: Cycle, epoch: int, seq: int) -> None:
        try:
            await trio.sleep(0)  # run outside the observer that noticed the turn
            if self.budget_tier(state) == BudgetTier.EXHAUSTED:
                cycle.scheduling = False
                return
            self.log_catalog_diagnostics()
            if not self.accepts(state, epoch):
                cycle.scheduling = False
                return
            self.purge_cooldowns(state)
            if state.active or state.pending:
                state.pending.append(PendingTurn(cycle=cycle, epoch=epoch, seq=seq))
                return
            self._try_schedule(state, cycle, epoch, seq)
        except Exception as exc:
            cycle.failure = {"reason_code": str(ReasonCode.SCHEDULING_FAILED), "stage": str(Stage.PREPARE), "error": safe_error(exc)}
            cycle.scheduling = False
            self.logger.warning("dsh-shadow-mind: scheduling failed: %s", cycle.failure["error"]["message"])
        finally:
            self.update_card(state, cycle)

    def _may_review(self) -> bool:
        """Cheap pre-check: a disabled or never-rolling default creates no cycle,
        card or task (a missing or broken default goes through scheduling, which
        creates or reports it)."""
        default = self.registry.list().get(DEFAULT_SHADOW_ID)
        return default is None or (default.enabled and default.activation_probability > 0)

    def log_catalog_diagnostics(self) -> None:
        catalog = self.registry.list()
        if catalog is self._logged_catalog:
            return  # unchanged (the registry caches by file stamps): do not repeat warnings
        self._logged_catalog = catalog
        for diagnostic in catalog.diagnostics:
            self.logger.warning("dsh-shadow-mind: ignored definition %s: %s", diagnostic.path, diagnostic.error)

    def _try_schedule(self, state: OwnerState, cycle: Cycle, epoch: int, seq: int) -> bool:
        """One roll for the default definition; returns whether a run launched."""
        definition = self.registry.default_definition()
        if not definition.enabled or definition.id in state.cooldowns:
            cycle.scheduling = False
            return False
        probability = min(1.0, definition.activation_probability * coordination.decay_factor(state, definition.id))
        if not self.random() < probability:
            cycle.scheduling = False
            return False
        if state.active:
            state.pending.append(PendingTurn(cycle=cycle, epoch=epoch, seq=seq))
            return False
        return self.launch(state, cycle, epoch, seq, definition) is not None

    def _process_pending(self, state: OwnerState) -> None:
        """Drain queued turns in order after a run ends; the roll happens now."""
        try:
            while not state.active and state.pending:
                nxt = state.pending[0]
                if not self.accepts(state, nxt.epoch) or self.budget_tier(state) == BudgetTier.EXHAUSTED:
                    state.pending.popleft()
                    nxt.cycle.scheduling = False
                    self.update_card(state, nxt.cycle)
                    continue
                launched = self._try_schedule(state, nxt.cycle, nxt.epoch, nxt.seq)
                if state.pending and state.pending[0] is nxt:
                    state.pending.popleft()
                if launched:
                    break
                nxt.cycle.scheduling = False
                self.update_card(state, nxt.cycle)
        except Exception as exc:
            self.logger.warning("dsh-shadow-mind: pending-turn drain failed: %s", safe_error(exc)["message"])

    def purge_cooldowns(self, state: OwnerState) -> None:
        now = self.now()
        for shadow_id in [k for k, c in state.cooldowns.items() if c.until <= now]:
            del state.cooldowns[shadow_id]

    # --- admission -----------------------------------------------------------------------------------

    def launch(
        self,
        state: OwnerState,
        cycle: Cycle,
        epoch: int,
        seq: int,
        definition: ShadowDefinition,
        *,
        manual: bool = False,
    ) -> RunEntry | None:
        if self.stopped or state.epoch != epoch or state.released:
            return None
        if self.host.agents.get(state.root_id) is not state.root:
            return None
        if definition.id in state.active:
            return None
        tier = self.budget_tier(state)
        if not manual and (state.paused or tier == BudgetTier.EXHAUSTED):
            return None
        settings = self.settings()
        frugal = settings.frugalShadowModel if tier == BudgetTier.FRUGAL else None
        escalated = state.pending_escalations.pop(definition.id, None)
        root = root_route(state.root.options.provider, state.root.options.model)
        route = frugal or definition.run_with_model or root
        keys = self._holdout_keys(definition)
        view = RunView(
            run_id=uuid.uuid4().hex,
            shadow_id=definition.id,
            shadow_name=redact(definition.name, keys) if keys else definition.name,
            captured_through_seq=seq,
            phase=Phase.RUNNING,
            stage=Stage.PREPARE,
            started_at=iso(self.now()),
            independence=str(independence(root, route)),
            route=route,
        )
        entry = RunEntry(
            view=view,
            owner=state,
            definition=definition,
            cycle=cycle,
            epoch=epoch,
            manual=manual,
            frugal_route=frugal,
            escalated_effort=escalated,
            budget_tier=BudgetTier.FRUGAL if frugal else BudgetTier.STANDARD,
            holdout_keys=keys,
        )
        state.active[definition.id] = entry
        cycle.runs.append(view)
        cycle.scheduling = False
        state.total_runs += 1
        state.work.enter()
        self.host.spawn(self._run_lifecycle, entry, name=f"shadow-mind:run:{view.run_id[:8]}")
        self.update_card(state, cycle)
        return entry

    def _holdout_keys(self, definition: ShadowDefinition) -> tuple[str, ...]:
        """The literals to hide for a holdout definition; a broken sidecar is
        reported by the run itself (prepare fails), so here it yields none."""
        if not definition.holdout:
            return ()
        try:
            return tuple(self.registry.holdout_keys(definition.id))
        except Exception:
            return ()

    async def _run_lifecycle(self, entry: RunEntry) -> None:
        state = entry.owner
        try:
            self.debug(entry, "run-admitted")
            definition = entry.definition
            timeout = definition.timeout_seconds or self.settings().defaultShadowTimeoutSeconds
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._deadline, entry, timeout)
                with entry.scope:
                    await run_pipeline(self, entry)
                nursery.cancel_scope.cancel()
        except Exception as exc:
            self.logger.warning("dsh-shadow-mind: shadow %s failed: %s", entry.definition.id, safe_error(exc)["message"])
            self.finish_run(entry, Phase.FAILED, reason=ReasonCode.UNKNOWN_FAILURE, error=safe_error(exc))
        finally:
            if not entry.settled and entry.view.phase == Phase.RUNNING:
                # the pipeline was stopped from outside (grace expired, host teardown)
                cancellation = entry.cancellation
                if cancellation is not None:
                    self.finish_run(
                        entry,
                        Phase.ABORTED,
                        stage=entry.cancellation_stage or entry.view.stage,
                        reason=cancellation.reason,
                        source=cancellation.source,
                    )
                else:
                    self.finish_run(
                        entry,
                        Phase.FAILED,
                        reason=ReasonCode.UNKNOWN_FAILURE,
                        error={"name": "Error", "message": "Shadow run settled without a result"},
                    )
            if state.active.get(entry.definition.id) is entry:
                del state.active[entry.definition.id]
            entry.done.set()
            self.update_card(state, entry.cycle)
            self._process_pending(state)
            state.work.exit()

    async def _deadline(self, entry: RunEntry, timeout: float) -> None:
        with trio.move_on_after(timeout):
            await entry.cancel_requested.wait()
        if not entry.cancel_requested.is_set():
            self.request_cancellation(entry, ReasonCode.SHADOW_TIMEOUT, CancellationSource.TIMEOUT)
        await trio.sleep(CANCEL_GRACE_SECONDS)
        entry.scope.cancel()

    def set_stage(self, entry: RunEntry, stage: Stage) -> None:
        entry.view.stage = stage
        self.update_card(entry.owner, entry.cycle)

    # --- cancellation -------------------------------------------------------------------------------

    def cancel_owner(self, state: OwnerState, reason: ReasonCode, source: CancellationSource) -> None:
        """Advance the epoch: drop queued turns, cancel active runs, abort waiting reports."""
        state.epoch += 1
        while state.pending:
            turn = state.pending.popleft()
            turn.cycle.scheduling = False
            self.update_card(state, turn.cycle)
        for entry in list(state.active.values()):
            self.request_cancellation(entry, reason, source)
        self.discard_waiting(state, Cancellation(reason=reason, source=source))

    def request_cancellation(self, entry: RunEntry, reason: ReasonCode, source: CancellationSource) -> None:
        if entry.settled or entry.cancellation is not None:
            return
        entry.cancellation = Cancellation(reason=reason, source=source)
        entry.cancellation_stage = entry.view.stage
        entry.view.reason_code = reason
        entry.view.cancellation_source = source
        self.debug(entry, "run-cancellation-requested")
        entry.cancel_requested.set()
        entry.token.cancel(reason)

    def discard_waiting(self, state: OwnerState, cancellation: Cancellation) -> None:
        """Every validated report not yet relayed becomes ``aborted`` at ``relay``."""
        waiting = state.awaiting_relay
        for report in state.batcher.take_waiting():
            entry = waiting.pop(report.run_id, None)
            if entry is not None:
                self._abort_at_relay(entry, cancellation)

    def _abort_at_relay(self, entry: RunEntry, cancellation: Cancellation) -> None:
        entry.view.content = None
        entry.view.relayed = False
        self.finish_run(
            entry, Phase.ABORTED, stage=Stage.RELAY, reason=cancellation.reason, source=cancellation.source
        )
        self.debug(entry, "report-delivery-discarded")

    # --- settlement ----------------------------------------------------------------------------------

    def finish_run(
        self,
        entry: RunEntry,
        phase: Phase,
        *,
        stage: Stage | None = None,
        reason: ReasonCode | None = None,
        source: CancellationSource | None = None,
        error: dict[str, Any] | None = None,
        **fields: Any,
    ) -> bool:
        """Record the run's one outcome; later calls are ignored."""
        if entry.settled:
            return False
        entry.settled = True
        view = entry.view
        view.phase = phase
        if stage is not None:
            view.stage = stage
        view.reason_code = reason
        view.cancellation_source = source
        if error is not None:
            view.error = redact_value(error, entry.holdout_keys)  # type: ignore[assignment]
        for key, value in fields.items():
            setattr(view, key, value)
        view.finished_at = iso(self.now())
        entry.owner.last_run = view
        self.debug(entry, "run-finished")
        self.update_card(entry.owner, entry.cycle)
        for listener in list(self.settle_listeners):
            try:
                listener(entry)
            except Exception:
                self.logger.exception("settle listener failed")
        return True

    # --- relay ----------------------------------------------------------------------------------------

    def enqueue_report(self, entry: RunEntry, report: PendingReport) -> bool:
        if not entry.owner.batcher.add(report):
            return False
        entry.owner.awaiting_relay[entry.view.run_id] = entry
        return True

    async def _deliver(self, state: OwnerState, reports: list[PendingReport]) -> None:
        waiting = state.awaiting_relay
        entries = {r.run_id: waiting.pop(r.run_id) for r in reports if r.run_id in waiting}
        if self.stopped or state.released or self.host.agents.get(state.root_id) is not state.root:
            cancellation = (
                Cancellation(reason=ReasonCode.PLUGIN_DISPOSED, source=CancellationSource.PLUGIN_LIFECYCLE)
                if self.stopped
                else Cancellation(reason=ReasonCode.ROOT_DISPOSED, source=CancellationSource.ROOT_LIFECYCLE)
            )
            for entry in entries.values():
                self._abort_at_relay(entry, cancellation)
            return
        current: list[PendingReport] = []
        for report in reports:
            entry = entries.get(report.run_id)
            if report.epoch != state.epoch or (state.paused and not report.manual):
                if entry is not None:
                    self._abort_at_relay(
                        entry, Cancellation(reason=ReasonCode.STALE_EPOCH, source=CancellationSource.RUNTIME)
                    )
                continue
            current.append(report)
        if not current:
            return
        ordered = order_by_severity(current)
        try:
            message = build_relay(ordered)
            root = state.root
            if root.status == "running":
                root.steer(message)
            else:
                root.followup(message)
        except Exception as exc:
            error = safe_error(exc) if not isinstance(exc, HoldoutLeak) else {"name": "HoldoutLeak", "message": str(exc)}
            for report in ordered:
                entry = entries.get(report.run_id)
                if entry is not None:
                    entry.view.relayed = False
                    self.finish_run(entry, Phase.FAILED, stage=Stage.RELAY, reason=ReasonCode.REPORT_DELIVERY_FAILED, error=error)
                    self.debug(entry, "report-delivery-failed")
            raise
        for report in ordered:
            entry = entries.get(report.run_id)
            if entry is not None:
                self.finish_run(entry, Phase.REPORT, stage=Stage.RELAY, relayed=True)
                self.debug(entry, "report-delivered")

    # --- governance: budgets, journals, coordination, value loop -------------------------------

    def dispose_seconds(self) -> float:
        return DISPOSE_SECONDS

    def _ledger(self, state: OwnerState) -> BudgetLedger | None:
        """The root's ledger, persisting only while a budget is configured."""
        ledger = state.ledger
        if ledger is not None:
            s = self.settings()
            ledger.persist = s.sessionShadowHardBudgetChars is not None or s.sessionShadowSoftBudgetChars is not None
        return ledger

    def spend(self, state: OwnerState, chars: int, entry: RunEntry, kind: str) -> None:
        """Count characters against the session budget, write-ahead when persisted."""
        ledger = self._ledger(state)
        if ledger is not None and ledger.error is None:
            try:
                ledger.debit(f"{entry.view.run_id}:{kind}", chars, self._iso_now)
            except OSError as exc:
                ledger.error = f"the Shadow budget state could not be written ({type(exc).__name__})"
                self.logger.warning("dsh-shadow-mind: %s", ledger.error)
        state.spent_chars += chars

    def commit_user_window(self, state: OwnerState, seq: int) -> None:
        """The real user message that opened the budget window was committed."""
        ledger = self._ledger(state)
        if ledger is not None and ledger.error is None:
            try:
                ledger.mark_user_seq(seq, self._iso_now)
            except OSError as exc:
                ledger.error = f"the Shadow budget state could not be written ({type(exc).__name__})"

    def record_child_telemetry(self, entry: RunEntry, child_events: Any) -> None:
        entry.view.deliberation_chars = deliberation_chars(child_events)
        telemetry = tool_telemetry(child_events)
        entry.view.tools = {
            "calls": telemetry.calls,
            "by_name": dict(telemetry.by_name),
            "invalid_args": telemetry.invalid_args,
            "invalid_args_by_tool": dict(telemetry.invalid_args_by_tool),
        }

    def quality_metadata(self, entry: RunEntry, result: Any, failure: Any) -> None:
        if not entry.definition.debug:
            return
        definition = entry.definition
        view = entry.view
        self.journal.write(
            definition.id,
            redact_value({
                "event": "quality-metadata",
                "time": iso(self.now()),
                "run_id": view.run_id,
                "root_session_id": entry.owner.root_id,
                "child_session_id": view.child_session_id,
                "captured_through_seq": view.captured_through_seq,
                "prompt_chars": entry.prompt_chars,
                "timeout_seconds": definition.timeout_seconds or self.settings().defaultShadowTimeoutSeconds,
                "capture": definition.capture,
                "context": definition.context,
                "think_first": definition.think_first,
                "tool_names": list(dict.fromkeys(["read", "grep", "glob", *definition.tools])),
                "stop_reason": result.stop_reason if result is not None else None,
                "error": safe_error(failure[2])["message"] if failure else None,
                "deliberation_chars": view.deliberation_chars or 0,
                "tools": view.tools,
                "independence": view.independence,
                "route": view.route,
                "budget_tier": str(entry.budget_tier),
                "reasoning_effort": entry.escalated_effort or definition.reasoning_effort,
            }, entry.holdout_keys),  # type: ignore[arg-type]
        )

    def debug_quality(self, entry: RunEntry, **fields: Any) -> None:
        if entry.definition.debug:
            self.journal.write(entry.definition.id, {"event": "quality-metadata", "time": iso(self.now()), "run_id": entry.view.run_id, **fields})

    def on_degenerate_output(self, entry: RunEntry) -> None:
        coordination.on_degenerate_output(self, entry)

    def record_review(self, entry: RunEntry, verdict: str, refs: tuple[int, ...]) -> None:
        coordination.record_review(self, entry, verdict, refs)

    def reset_governance(self, state: OwnerState) -> None:
        """Real user input arrived: a fresh budget window and no stale coordination."""
        state.cooldowns.clear()
        state.pending_escalations.clear()
        state.spent_chars = 0
        ledger = self._ledger(state)
        if ledger is not None:
            try:
                ledger.open_window(state.root.session.seq, self._iso_now)
            except OSError as exc:
                ledger.error = f"the Shadow budget state could not be written ({type(exc).__name__})"
        state.review_window.clear()
        state.pending_challenges.clear()

    def reset_coordination(self, state: OwnerState) -> None:
        """Pause and resume clear cooldowns and reserved escalations."""
        state.cooldowns.clear()
        state.pending_escalations.clear()

    def recent_reviews(self, state: OwnerState) -> list[dict[str, Any]]:
        return coordination.recent_reviews(state)

    def value_loop_stats(self, state: OwnerState) -> list[dict[str, Any]]:
        return value.stats(state)

    def settings_notes(self) -> list[str]:
        """Heals applied to the settings document (never silent)."""
        for descriptor in self.host.settings.describe():
            if descriptor.namespace == SETTINGS_NAMESPACE:
                return [*descriptor.notes, *descriptor.problems]
        return []

    def budget_error(self, state: OwnerState) -> str | None:
        return state.ledger.error if state.ledger is not None else None

    def capture_challenges(self, state: OwnerState, event: SessionEvent) -> None:
        try:
            value.capture(self, state, event)
        except Exception:
            self.logger.exception("value-loop capture failed")

    def evaluate_challenges(self, state: OwnerState, event: SessionEvent) -> None:
        try:
            value.evaluate(self, state, event)
        except Exception:
            self.logger.exception("value-loop evaluation failed")

    def debug(self, entry: RunEntry, event: str, **extra: Any) -> None:
        if not entry.definition.debug:
            return
        time = iso(self.now())
        if event in LIFECYCLE_EVENTS:
            record = lifecycle_record(entry, event, time)
        else:
            record = {
                "event": event,
                "time": time,
                "run_id": entry.view.run_id,
                "root_session_id": entry.owner.root_id,
                "child_session_id": entry.view.child_session_id,
                "captured_through_seq": entry.view.captured_through_seq,
                **extra,
            }
        self.journal.write(entry.definition.id, redact_value(record, entry.holdout_keys))  # type: ignore[arg-type]

    def update_card(self, state: OwnerState, cycle: Cycle) -> None:
        """Refresh the process-local card anchored at the cycle's watermark."""
        if not cycle.scheduling and not cycle.runs and not cycle.failure:
            return
        try:
            self.host.client.upsert_card(
                Card(
                    session_id=state.root_id,
                    anchor_seq=cycle.captured_through_seq,
                    key=f"shadow-mind:{cycle.captured_through_seq}",
                    kind="shadow-mind-review",
                    data={**cycle.to_json(), "paused": state.paused},
                )
            )
        except Exception:
            self.logger.exception("updating the Shadow card failed")

    # --- drain and teardown ------------------------------------------------------------------------

    def _busy(self, state: OwnerState) -> bool:
        return state.work.count > 0 or state.batcher.busy or bool(state.active)

    async def drain_owner(self, state: OwnerState) -> None:
        while True:
            await state.work.wait_idle()
            await state.batcher.drain()
            if not self._busy(state):
                return

    async def _headless_drain(self, state: OwnerState) -> None:
        try:
            with trio.move_on_after(self.settings().headlessDrainTimeoutSeconds) as scope:
                await self.drain_owner(state)
            if scope.cancelled_caught:
                self.cancel_owner(state, ReasonCode.HEADLESS_DRAIN_TIMEOUT, CancellationSource.HEADLESS)
                await self.drain_owner(state)
        finally:
            state.draining = False

    async def release_owner(self, state: OwnerState) -> None:
        if state.released:
            return
        try:
            await self.drain_owner(state)
            state.released = True
            for failure in await state.batcher.dispose():
                self.logger.warning("dsh-shadow-mind: delivery failed while releasing: %s", failure)
        finally:
            state.released = True
            if self.owners.get(state.root_id) is state:
                del self.owners[state.root_id]

    async def teardown(self) -> None:
        """Plugin disposal: cancel every owner's work and wait to quiescence."""
        self.stopped = True
        for state in list(self.owners.values()):
            self.cancel_owner(state, ReasonCode.PLUGIN_DISPOSED, CancellationSource.PLUGIN_LIFECYCLE)
        for state in list(self.owners.values()):
            try:
                await self.release_owner(state)
            except Exception:
                self.logger.exception("releasing Shadow state for %s failed", state.root_id)
        if self._provider_disposer is not None:
            self._provider_disposer()
            self._provider_disposer = None

    # --- lookups -----------------------------------------------------------------------------------

    def default_definition(self) -> ShadowDefinition:
        return self.registry.default_definition()


def turn_used_tools(session: Session, turn_end: SessionEvent) -> bool:
    """Whether the turn that ``turn_end`` closes committed at least one tool result."""
    turn = turn_end.data.get("turn")
    events = session.events
    for index in range(min(turn_end.seq, len(events)) - 1, -1, -1):
        event = events[index]
        if event.type == EventTypes.TOOL_RESULT and event.data.get("turn") == turn:
            return True
        if event.type == EventTypes.TURN_START:
            return False
    return False


__all__ = ["DEFAULT_SHADOW_ID", "ShadowRuntime", "turn_used_tools"]
