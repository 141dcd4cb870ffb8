"""What the trigger stage keeps per root: queued turns, throttles and spend."""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING

import attrs

if TYPE_CHECKING:
    from ..core.records import Cycle
    from .ledger import BudgetLedger


@attrs.define(eq=False, kw_only=True)
class PendingTurn:
    """An eligible turn that arrived while a reviewer was running; rolled later."""

    cycle: Cycle
    epoch: int
    seq: int


@attrs.define(eq=False, kw_only=True)
class Cooldown:
    until: float
    patterns: tuple[str, ...]


@attrs.define(eq=False, kw_only=True)
class TriggerState:
    pending: deque[PendingTurn] = attrs.field(factory=deque)
    #: stagnation cooldowns per definition (wall-clock ``until``)
    cooldowns: dict[str, Cooldown] = attrs.field(factory=dict)
    #: one reserved higher reasoning effort per definition, used by its next run
    pending_escalations: dict[str, str] = attrs.field(factory=dict)
    #: characters spent since the last real user message (mirrors the ledger)
    spent_chars: int = 0
    #: the persisted character budget (loaded when the owner is created)
    ledger: BudgetLedger | None = None

    def install_cooldown(self, shadow_id: str, until: float, patterns: tuple[str, ...]) -> None:
        self.cooldowns[shadow_id] = Cooldown(until=until, patterns=patterns)

    def reserve_escalation(self, shadow_id: str, effort: str) -> None:
        self.pending_escalations[shadow_id] = effort

    def purge_cooldowns(self, now: float) -> None:
        for shadow_id in [k for k, c in self.cooldowns.items() if c.until <= now]:
            del self.cooldowns[shadow_id]

    def clear_throttles(self) -> None:
        """Pause, resume and real user input clear cooldowns and reserved escalations."""
        self.cooldowns.clear()
        self.pending_escalations.clear()

    def drop_pending(self) -> list[PendingTurn]:
        dropped = list(self.pending)
        self.pending.clear()
        return dropped
