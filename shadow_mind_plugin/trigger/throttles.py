"""The trigger stage's throttles as a port (:class:`~..core.ports.Throttles`):
the coordination stage installs stagnation cooldowns and reserves effort
escalations, the run stage takes a reserved escalation when it admits a run;
both live in the trigger stage's state, which only this package touches."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..core.owner import OwnerState


class ThrottleKeeper:
    def reserve_escalation(self, state: OwnerState, shadow_id: str, effort: str) -> None:
        state.trigger.reserve_escalation(shadow_id, effort)

    def take_escalation(self, state: OwnerState, shadow_id: str) -> str | None:
        return state.trigger.pending_escalations.pop(shadow_id, None)

    def install_cooldown(self, state: OwnerState, shadow_id: str, until: float, patterns: tuple[str, ...]) -> None:
        state.trigger.install_cooldown(shadow_id, until, patterns)
