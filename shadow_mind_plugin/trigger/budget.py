"""Character budgets that survive a restart.

Spend (framed prompt characters + accepted report characters since the last
real user message) is kept per root in
``$DSH_HOME/shadow-minds/governance/<sha256(root id)>.json`` — metadata only:
the root id's hash, where the current window opened, the seq of the real user
message that opened it (once committed), the spent characters and recent
debit ids. Every change is written *before* it counts (write-ahead),
atomically. With a budget configured, a state file that cannot be read fails
closed: no automatic review is admitted until it is fixed.

A window opens when real user input *arrives* (the runtime cancels reviews at
that moment); the message's seq is recorded when it is committed. On load, a
committed real user message newer than the recorded one means a window opened
while nobody was counting, so the spend starts again from zero.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from hookspecs.fsutil import write_atomic
from hookspecs.values import EventTypes, SessionEvent

from ..vocabulary import BudgetTier
from .state import TriggerState

if TYPE_CHECKING:
    from ..core.context import RuntimeContext
    from ..core.owner import OwnerState
    from ..core.records import RunEntry

#: under the shadow-minds root: per-root state that must survive a restart
GOVERNANCE_DIR = "governance"
SCHEMA_VERSION = 1
MAX_DEBIT_IDS = 64


class BudgetStateError(Exception):
    """The persisted spend cannot be trusted."""


def root_hash(root_id: str) -> str:
    return hashlib.sha256(root_id.encode("utf-8")).hexdigest()


@attrs.define(eq=False)
class BudgetLedger:
    """One root's spend, mirrored to disk on every change."""

    path: Path
    root_hash: str
    #: without a configured budget nothing depends on the spend surviving a
    #: restart, so the ledger stays in memory (no file writes on the hot path)
    window_marker: int = -1
    last_user_seq: int | None = None
    spent_chars: int = 0
    debit_ids: list[str] = attrs.field(factory=list)
    error: str | None = None
    persist: bool = True

    @classmethod
    def load(cls, directory: Path, root_id: str, events: Any) -> BudgetLedger:
        digest = root_hash(root_id)
        ledger = cls(path=directory / f"{digest}.json", root_hash=digest)
        last_user = last_real_user_seq(events)
        try:
            raw = ledger.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            ledger.last_user_seq = last_user
            return ledger
        except OSError as exc:
            ledger.error = f"the Shadow budget state for this session is unreadable ({type(exc).__name__})"
            return ledger
        try:
            data = json.loads(raw)
            if not isinstance(data, dict) or data.get("schema_version") != SCHEMA_VERSION:
                raise ValueError("unsupported schema")
            if data.get("root_session_hash") != digest:
                raise ValueError("belongs to another session")
            spent = data.get("spent_chars")
            seq = data.get("last_user_seq")
            marker = data.get("window_marker", -1)
            debits = data.get("debit_ids", [])
            if type(spent) is not int or spent < 0 or (seq is not None and type(seq) is not int) or type(marker) is not int:
                raise ValueError("bad fields")
            if not isinstance(debits, list) or not all(isinstance(d, str) for d in debits):
                raise ValueError("bad debit ids")
        except ValueError as exc:
            ledger.error = f"the Shadow budget state for this session is corrupt ({exc}); delete it to reset the budget"
            return ledger
        if last_user is not None and seq is not None and last_user > seq:
            ledger.last_user_seq = last_user  # a newer window opened uncounted
            return ledger
        ledger.window_marker = marker
        ledger.last_user_seq = seq if seq is not None else (last_user if last_user is not None and last_user >= marker else None)
        ledger.spent_chars = spent
        ledger.debit_ids = list(debits)
        return ledger

    def debit(self, debit_id: str, chars: int, now_iso: Callable[[], str]) -> None:
        """Write the new total first, then count it (a crash never loses spend)."""
        if debit_id in self.debit_ids:
            return
        spent = self.spent_chars + chars
        debits = [*self.debit_ids, debit_id][-MAX_DEBIT_IDS:]
        self._write(spent, debits, self.last_user_seq, now_iso)
        self.spent_chars = spent
        self.debit_ids = debits

    def open_window(self, marker: int, now_iso: Callable[[], str]) -> None:
        """Real user input arrived (it will be committed at seq >= ``marker``)."""
        self._write(0, [], None, now_iso, marker=marker)
        self.spent_chars = 0
        self.debit_ids = []
        self.last_user_seq = None
        self.window_marker = marker
        self.error = None

    def mark_user_seq(self, seq: int, now_iso: Callable[[], str]) -> None:
        """The message that opened the window was committed at ``seq``."""
        if self.last_user_seq is not None and seq <= self.last_user_seq:
            return
        self._write(self.spent_chars, self.debit_ids, seq, now_iso)
        self.last_user_seq = seq

    def _write(self, spent: int, debits: list[str], seq: int | None, now_iso: Callable[[], str], *, marker: int | None = None) -> None:
        if not self.persist:
            return
        payload = {
            "schema_version": SCHEMA_VERSION,
            "root_session_hash": self.root_hash,
            "window_marker": self.window_marker if marker is None else marker,
            "last_user_seq": seq,
            "spent_chars": spent,
            "debit_ids": debits,
            "updated_at": now_iso(),
        }
        write_atomic(self.path, json.dumps(payload, separators=(",", ":")) + "\n")


def last_real_user_seq(events: Any) -> int | None:
    for index in range(len(events) - 1, -1, -1):
        event: SessionEvent = events[index]
        if event.type == EventTypes.USER_MESSAGE and is_real_user(event):
            return event.seq
    return None


def is_real_user(event: SessionEvent) -> bool:
    message = event.data.get("message") if isinstance(event.data, dict) else None
    source = message.get("source") if isinstance(message, dict) else None
    return isinstance(source, dict) and source.get("kind") == "user"


class BudgetKeeper:
    """The budget tier of each root and the write-ahead spend behind it."""

    def __init__(self, ctx: RuntimeContext) -> None:
        self._ctx = ctx
        self.directory = ctx.registry.root / GOVERNANCE_DIR

    def load(self, root_id: str, events: Any) -> TriggerState:
        """The trigger state of a root, with its persisted spend."""
        ledger = BudgetLedger.load(self.directory, root_id, events)
        if ledger.error:
            self._ctx.logger.warning("dsh-shadow-mind: %s", ledger.error)
        return TriggerState(ledger=ledger, spent_chars=ledger.spent_chars)

    def tier(self, state: OwnerState) -> BudgetTier:
        s = self._ctx.settings()
        spent = state.trigger.spent_chars
        ledger = state.trigger.ledger
        budgeted = s.session_shadow_hard_budget_chars is not None or s.session_shadow_soft_budget_chars is not None
        if budgeted and ledger is not None and ledger.error:
            return BudgetTier.EXHAUSTED  # unknown spend: fail closed
        if s.session_shadow_hard_budget_chars is not None and spent >= s.session_shadow_hard_budget_chars:
            return BudgetTier.EXHAUSTED
        if s.session_shadow_soft_budget_chars is not None and spent >= s.session_shadow_soft_budget_chars:
            return BudgetTier.FRUGAL
        return BudgetTier.STANDARD

    def error(self, state: OwnerState) -> str | None:
        ledger = state.trigger.ledger
        return ledger.error if ledger is not None else None

    def _ledger(self, state: OwnerState) -> BudgetLedger | None:
        """The root's ledger, persisting only while a budget is configured."""
        ledger = state.trigger.ledger
        if ledger is not None:
            s = self._ctx.settings()
            ledger.persist = s.session_shadow_hard_budget_chars is not None or s.session_shadow_soft_budget_chars is not None
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
