"""The budget keeper: each root's budget tier (standard, frugal, exhausted)
and the write-ahead spend behind it (:mod:`.ledger`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from ..vocabulary import BudgetTier
from .ledger import BudgetLedger
from .trigger_state import TriggerState

if TYPE_CHECKING:
    from hookspecs.values import SessionEvent

    from ..core.context import RuntimeContext
    from ..core.owner import OwnerState, RunEntry
    from ..settings import ShadowMindSettings

#: under the shadow-minds root: per-root state that must survive a restart
GOVERNANCE_DIR = "governance"


class BudgetKeeper:
    """The budget tier of each root and the write-ahead spend behind it."""

    def __init__(self, ctx: RuntimeContext) -> None:
        self._ctx = ctx
        self.directory = ctx.registry.root / GOVERNANCE_DIR

    def load(self, root_id: str, events: Sequence[SessionEvent]) -> TriggerState:
        """The trigger state of a root, with its persisted spend (a ledger that
        cannot be trusted is logged once, here)."""
        state = self.peek(root_id, events)
        error = self.error_of(state)
        if error:
            self._ctx.logger.warning("dsh-shadow-mind: %s", error)
        return state

    def peek(self, root_id: str, events: Sequence[SessionEvent]) -> TriggerState:
        """The persisted spend of a root that has no state yet, read without side
        effects (no file is created, nothing is logged): what status shows."""
        ledger = BudgetLedger.load(self.directory, root_id, events)
        return TriggerState(ledger=ledger, spent_chars=ledger.spent_chars)

    def tier(self, state: OwnerState) -> BudgetTier:
        return self.tier_of(state.trigger)

    def tier_of(self, trigger: TriggerState) -> BudgetTier:
        s = self._ctx.settings()
        spent = trigger.spent_chars
        ledger = trigger.ledger
        if _budgeted(s) and ledger is not None and ledger.error:
            return BudgetTier.EXHAUSTED  # unknown spend: fail closed
        if s.session_shadow_hard_budget_chars is not None and spent >= s.session_shadow_hard_budget_chars:
            return BudgetTier.EXHAUSTED
        if s.session_shadow_soft_budget_chars is not None and spent >= s.session_shadow_soft_budget_chars:
            return BudgetTier.FRUGAL
        return BudgetTier.STANDARD

    def error(self, state: OwnerState) -> str | None:
        return self.error_of(state.trigger)

    @staticmethod
    def error_of(trigger: TriggerState) -> str | None:
        ledger = trigger.ledger
        return ledger.error if ledger is not None else None

    def _ledger(self, state: OwnerState) -> BudgetLedger | None:
        """The root's ledger, persisting only while a budget is configured."""
        ledger = state.trigger.ledger
        if ledger is not None:
            ledger.persist = _budgeted(self._ctx.settings())
        return ledger

    def _write(self, ledger: BudgetLedger, change: Callable[[], None], *, warn: bool = False) -> None:
        try:
            change()
        except OSError as exc:
            ledger.error = f"the Shadow budget state could not be written ({type(exc).__name__})"
            if warn:
                self._ctx.logger.warning("dsh-shadow-mind: %s", ledger.error)

    def spend(self, state: OwnerState, chars: int, entry: RunEntry, kind: str) -> None:
        """Count characters against the session budget, write-ahead when persisted."""
        ledger = self._ledger(state)
        if ledger is not None and ledger.error is None:
            self._write(ledger, lambda: ledger.debit(f"{entry.view.run_id}:{kind}", chars, self._ctx.iso_now), warn=True)
        state.trigger.spent_chars += chars

    def commit_user_window(self, state: OwnerState, seq: int) -> None:
        """The real user message that opened the budget window was committed."""
        ledger = self._ledger(state)
        if ledger is not None and ledger.error is None:
            self._write(ledger, lambda: ledger.mark_user_seq(seq, self._ctx.iso_now))

    def open_window(self, state: OwnerState) -> None:
        """Real user input arrived: a fresh budget window."""
        state.trigger.spent_chars = 0
        ledger = self._ledger(state)
        if ledger is not None:
            self._write(ledger, lambda: ledger.open_window(state.root.session.seq, self._ctx.iso_now))


def _budgeted(settings: ShadowMindSettings) -> bool:
    return settings.session_shadow_hard_budget_chars is not None or settings.session_shadow_soft_budget_chars is not None
