"""The trigger stage: from an eligible root tool turn to an admitted run.

One roll per eligible turn for the ``default`` definition (probability ×
decay, the coordination stage's :class:`~..core.ports.Review`), or with
``review_on_check`` an evidence check that fires as well as the roll (``any``)
or instead of it (``only``), asked of the run stage (its projector and check
view, :class:`~..core.ports.Evidence`); skipped under a cooldown, an exhausted
budget, the relay bound (the output stage's :class:`~..core.ports.Relays`) or a
root model outside ``active_for_models``; while a reviewer runs
(:meth:`~..core.ports.Launcher.running`), eligible turns wait in a FIFO queue
and are rolled when it ends.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import trio
import trio.lowlevel

from ..governance.safe_errors import safe_error
from ..rng import make_random
from ..routes import root_route
from ..vocabulary import DEFAULT_SHADOW_ID, BudgetTier, ReasonCode, Stage
from .models import model_skip
from .trigger_state import PendingTurn

if TYPE_CHECKING:
    from ..core.context import RuntimeContext
    from ..core.owner import OwnerState
    from ..core.ports import Budget, Evidence, Governance, Launcher, Relays, Review
    from ..core.records import Cycle
    from ..definitions.model import Catalog, ShadowDefinition


class TriggerStage:
    def __init__(
        self,
        ctx: RuntimeContext,
        *,
        budget: Budget,
        governance: Governance,
        launcher: Launcher,
        evidence: Evidence,
        review: Review,
        relays: Relays,
    ) -> None:
        self._ctx = ctx
        self._budget = budget
        self._governance = governance
        self._launcher = launcher
        self._evidence = evidence
        self._review = review
        self._relays = relays
        self._seed = ctx.settings().random_seed
        self.random: Callable[[], float] = make_random(self._seed)
        self._logged_catalog: Catalog | None = None

    def reseed(self, seed: float | None) -> None:
        if seed != self._seed:
            self._seed = seed
            self.random = make_random(seed)

    def on_tool_turn(self, state: OwnerState, seq: int) -> None:
        """A completed root turn that used tools was committed at ``seq``."""
        if state.paused or not self.may_review():
            return
        cycle = self._governance.cycle_for(state, seq)
        cycle.scheduling = True
        self._governance.update_card(state, cycle)
        self._ctx.spawn_work(state, self._schedule_turn, state, cycle, state.epoch, seq, name="shadow-mind:schedule")

    def may_review(self) -> bool:
        """Cheap pre-check: a disabled or never-rolling default creates no cycle,
        card or task (a missing or broken default goes through scheduling, which
        creates or reports it)."""
        default = self._ctx.registry.list().get(DEFAULT_SHADOW_ID)
        if default is None:
            return True
        # a check may start a review that the roll never would
        return default.enabled and (default.activation_probability > 0 or default.review_on_check != "off")

    async def _schedule_turn(self, state: OwnerState, cycle: Cycle, epoch: int, seq: int) -> None:
        try:
            await trio.lowlevel.checkpoint()  # run outside the observer that noticed the turn
            if self._budget.tier(state) == BudgetTier.EXHAUSTED:
                cycle.decline(ReasonCode.BUDGET_EXHAUSTED)
                return
            self._log_catalog_diagnostics()
            if not self._ctx.accepts(state, epoch):
                cycle.decline(ReasonCode.SHADOW_PAUSED if state.paused else ReasonCode.STALE_EPOCH)
                return
            state.trigger.purge_cooldowns(self._ctx.now())
            if self._launcher.running(state) or state.trigger.pending:
                state.trigger.pending.append(PendingTurn(cycle=cycle, epoch=epoch, seq=seq))
                return
            self._try_schedule(state, cycle, epoch, seq)
        except Exception as exc:
            error = safe_error(exc)
            cycle.failure = {"reason_code": str(ReasonCode.SCHEDULING_FAILED), "stage": str(Stage.PREPARE), "error": error}
            cycle.scheduling = False
            self._ctx.logger.warning("dsh-shadow-mind: scheduling failed: %s", error["message"])
        finally:
            self._governance.update_card(state, cycle)

    def _log_catalog_diagnostics(self) -> None:
        catalog = self._ctx.registry.list()
        if catalog is self._logged_catalog:
            return  # unchanged (the registry caches by file stamps): do not repeat warnings
        self._logged_catalog = catalog
        for diagnostic in catalog.diagnostics:
            self._ctx.logger.warning("dsh-shadow-mind: ignored definition %s: %s", diagnostic.path, diagnostic.error)

    def _try_schedule(self, state: OwnerState, cycle: Cycle, epoch: int, seq: int) -> bool:
        """One roll for the default definition; returns whether a run launched."""
        definition = self._ctx.registry.default_definition()
        if not definition.enabled:
            cycle.decline(ReasonCode.SHADOW_DISABLED)
            return False
        if definition.id in state.trigger.cooldowns:
            cycle.decline(ReasonCode.COOLDOWN_ACTIVE)
            return False
        skipped = model_skip(definition.active_for_models, root_route(state.root)) if definition.active_for_models else None
        if skipped is not None:
            cycle.scheduling = False
            cycle.skipped = skipped
            return False
        bound = self._ctx.settings().max_relay_cycles_per_user_message
        relays = self._relays.relays_since_user(state)
        if bound and relays >= bound:
            # relay-driven cycles without real user input: no loop (docs/shadow-mind.md §9)
            cycle.scheduling = False
            cycle.skipped = {
                "reason_code": str(ReasonCode.RELAY_BOUND_REACHED),
                "relays": relays,
                "bound": bound,
            }
            return False
        mode = definition.review_on_check
        rolled = False
        if mode != "only":
            decay = self._review.decay(state, definition.id)
            probability = min(1.0, definition.activation_probability * decay)
            rolled = self.random() < probability  # rolled first, so seeded sequences stay as they were
        check = None
        if not rolled and mode != "off":
            check = self._check_fired(state, definition, seq)
        if not rolled and check is None:
            cycle.decline(ReasonCode.NO_CHECK_FIRED if mode == "only" else ReasonCode.NOT_ROLLED)
            return False
        if self._launcher.running(state):
            state.trigger.pending.append(PendingTurn(cycle=cycle, epoch=epoch, seq=seq))
            return False
        # a person sees that the evidence, not a roll, started it
        return self._launcher.launch(state, cycle, epoch, seq, definition, trigger_check=check) is not None

    def _check_fired(self, state: OwnerState, definition: ShadowDefinition, seq: int) -> str | None:
        """A fault in a check counts as no check firing: the roll's decision stands."""
        try:
            return self._evidence.check_fired(state, definition, seq)
        except Exception as exc:
            self._ctx.logger.warning("dsh-shadow-mind: evidence checks failed at seq %d: %s", seq, type(exc).__name__)
            return None

    def process_pending(self, state: OwnerState) -> None:
        """Drain queued turns in order after a run ends; the roll happens now."""
        pending = state.trigger.pending
        try:
            while not self._launcher.running(state) and pending:
                nxt = pending[0]
                if not self._ctx.accepts(state, nxt.epoch) or self._budget.tier(state) == BudgetTier.EXHAUSTED:
                    pending.popleft()
                    if self._budget.tier(state) == BudgetTier.EXHAUSTED:
                        nxt.cycle.decline(ReasonCode.BUDGET_EXHAUSTED)
                    else:
                        nxt.cycle.decline(ReasonCode.SHADOW_PAUSED if state.paused else ReasonCode.STALE_EPOCH)
                    self._governance.update_card(state, nxt.cycle)
                    continue
                launched = self._try_schedule(state, nxt.cycle, nxt.epoch, nxt.seq)
                if pending and pending[0] is nxt:
                    pending.popleft()
                if launched:
                    break
                nxt.cycle.scheduling = False
                self._governance.update_card(state, nxt.cycle)
        except Exception as exc:
            self._ctx.logger.warning("dsh-shadow-mind: pending-turn drain failed: %s", safe_error(exc)["message"])

    def forget_turn(self, state: OwnerState, seq: int) -> None:
        """A forced review took over the queued turn at ``seq``."""
        for turn in list(state.trigger.pending):
            if turn.seq == seq:
                state.trigger.pending.remove(turn)
                turn.cycle.scheduling = False

    def drop_queued(self, state: OwnerState) -> None:
        """The epoch advanced: queued turns will not be rolled."""
        for turn in state.trigger.drop_pending():
            turn.cycle.decline(ReasonCode.SHADOW_PAUSED if state.paused else ReasonCode.STALE_EPOCH)
            self._governance.update_card(state, turn.cycle)
