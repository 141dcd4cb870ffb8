"""User controls behind ``/shadow`` and the management tools: status, cycles,
pause, resume, retry and a forced review. Root agents only."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs

from hookspecs.errors import DshError

from ..coordination.coordination_stage import recent_reviews
from ..core.clock import iso
from ..governance import value
from ..trigger.models import default_model_skip
from ..vocabulary import CARD_KIND, DEFAULT_SHADOW_ID, CancellationSource, Phase, ReasonCode

if TYPE_CHECKING:
    from hookspecs.protocols import Agent

    from ..core.context import RuntimeContext
    from ..core.owner import OwnerState, RunEntry
    from ..governance.governance_stage import GovernanceStage
    from ..run.run_stage import RunStage
    from ..trigger.budget import BudgetKeeper
    from ..trigger.trigger_stage import TriggerStage
    from .owners import Owners


class ShadowControlError(DshError):
    code = "SHADOW_CONTROL"


def assert_root(agent: Agent) -> None:
    if not agent.is_root:
        raise ShadowControlError(
            "Shadow Mind controls are available only on root agents; run /shadow in the main session"
        )


class Controls:
    """What a person (or the management tools) can ask of the runtime."""

    def __init__(
        self,
        ctx: RuntimeContext,
        *,
        owners: Owners,
        trigger: TriggerStage,
        run: RunStage,
        budget: BudgetKeeper,
        governance: GovernanceStage,
    ) -> None:
        self._ctx = ctx
        self._owners = owners
        self._trigger = trigger
        self._run = run
        self._budget = budget
        self._governance = governance

    def status(self, agent: Agent) -> dict[str, Any]:
        assert_root(agent)
        state = self._owners.states.get(agent.id)
        notes = self._governance.settings_notes()
        if state is None or state.root is not agent:
            persisted = self._budget.peek(agent.id, agent.session.events)
            return {
                "paused": False,
                "active": [],
                "pending_schedules": 0,
                "epoch": 0,
                "total_runs": 0,
                "value_loop": [],
                "spent_chars": persisted.spent_chars,
                "budget_tier": str(self._budget.tier_of(persisted)),
                "budget_state_error": self._budget.error_of(persisted),
                "cooldowns": [],
                "pending_escalations": [],
                "relays_since_user_message": 0,
                "relay_bound": self._ctx.settings().max_relay_cycles_per_user_message,
                "model_skip": default_model_skip(self._ctx.registry.list(), agent),
                "recent_reviews": [],
                "settings_notes": notes,
            }
        now = self._ctx.now()
        trigger = state.trigger
        out: dict[str, Any] = {
            "paused": state.paused,
            "active": [
                {
                    "run_id": e.view.run_id,
                    "shadow_id": e.view.shadow_id,
                    "shadow_name": e.view.shadow_name,
                    "child_session_id": e.view.child_session_id,
                    "captured_through_seq": e.view.captured_through_seq,
                    "stage": str(e.view.stage),
                }
                for e in state.run.active.values()
            ],
            "pending_schedules": len(trigger.pending),
            "epoch": state.epoch,
            "total_runs": state.run.total_runs,
            "spent_chars": trigger.spent_chars,
            "budget_tier": str(self._budget.tier(state)),
            "budget_state_error": self._budget.error(state),
            "cooldowns": [
                {"shadow_id": k, "until": iso(c.until), "patterns": list(c.patterns)}
                for k, c in trigger.cooldowns.items()
                if c.until > now
            ],
            "pending_escalations": sorted(trigger.pending_escalations),
            "relays_since_user_message": state.output.relays_since_user,
            "relay_bound": self._ctx.settings().max_relay_cycles_per_user_message,
            "model_skip": default_model_skip(self._ctx.registry.list(), agent),
            "recent_reviews": recent_reviews(state),
            "value_loop": value.stats(state),
            "settings_notes": notes,
        }
        if state.governance.last_run is not None:
            out["last_run"] = state.governance.last_run.to_json()
        return out

    def cycles(self, agent: Agent) -> list[dict[str, Any]]:
        assert_root(agent)
        state = self._owners.states.get(agent.id)
        if state is None:
            return []
        return [cycle.to_json() for cycle in state.governance.cycles.values()]

    def pause(self, agent: Agent) -> dict[str, Any]:
        assert_root(agent)
        state = self._owners.get(agent)
        if state is not None and not state.paused:
            state.paused = True
            state.trigger.clear_throttles()
            self._owners.cancel(state, ReasonCode.SHADOW_PAUSED, CancellationSource.USER_COMMAND)
            self._refresh_cards(state)
        return self.status(agent)

    def resume(self, agent: Agent) -> dict[str, Any]:
        assert_root(agent)
        state = self._owners.get(agent)
        if state is not None:
            was_paused, state.paused = state.paused, False
            state.trigger.clear_throttles()
            if was_paused:
                self._refresh_cards(state)
        return self.status(agent)

    def _refresh_cards(self, state: OwnerState) -> None:
        """Cards show the pause state (and its Pause / Resume button): redraw them."""
        for cycle in list(state.governance.cycles.values()):
            self._governance.update_card(state, cycle)
        # cards rebuilt from the log after a restart have no cycle here, and show the button too
        client = self._ctx.host.client
        for card in client.cards(state.root_id):
            if card.kind == CARD_KIND and card.data.get("restored") and card.data.get("paused") != state.paused:
                client.upsert_card(attrs.evolve(card, data={**card.data, "paused": state.paused}))

    def retry(self, agent: Agent, run_id: str) -> RunEntry:
        """Rerun a failed or aborted run on its original watermark, in the same cycle."""
        assert_root(agent)
        state = self._owners.states.get(agent.id)
        found = state.governance.find_run(run_id) if state is not None else None
        if state is None or found is None:
            raise ShadowControlError(f"Shadow run {run_id} was not found for this session; see /shadow cycles")
        cycle, view = found
        if view.phase not in (Phase.FAILED, Phase.ABORTED):
            raise ShadowControlError(f"Shadow run {run_id} is {view.phase}; only failed or aborted runs can be retried")
        if view.shadow_id in state.run.active:
            raise ShadowControlError(f"Shadow {view.shadow_id} is already running; wait for it or /shadow pause")
        definition = self._ctx.registry.list().get(view.shadow_id)
        if definition is None:
            raise ShadowControlError(f"the reviewer definition {view.shadow_id} no longer exists")
        if not definition.enabled:
            raise ShadowControlError(
                f"the reviewer definition {view.shadow_id} is disabled; enable it before retrying (/shadow set enabled true)"
            )
        entry = self._run.launch(state, cycle, state.epoch, view.captured_through_seq, definition, manual=True)
        if entry is None:
            raise ShadowControlError("the Shadow retry could not be admitted for this session")
        return entry

    def review_now(self, agent: Agent, shadow_id: str | None = None) -> list[RunEntry]:
        """Force a review of the latest event by the default reviewer definition (or ``shadow_id``),
        bypassing probability, pause, budget and the ``enabled`` flag (never the
        liveness checks)."""
        assert_root(agent)
        state = self._owners.get(agent)
        if state is None:
            raise ShadowControlError("Shadow Mind is stopping; no review can start")
        seq = latest_reviewable_seq(agent)
        if seq is None:
            raise ShadowControlError("this session has no events to review yet; send a message first")
        if shadow_id is None:
            definition = self._ctx.registry.default_definition()
        else:
            found = self._ctx.registry.list().get(shadow_id)
            if found is None:
                raise ShadowControlError(f"no reviewer definition {shadow_id!r}; the list_shadows tool lists them")
            definition = found
        cycle = state.governance.cycle_for(seq)
        self._trigger.forget_turn(state, seq)
        entry = self._run.launch(state, cycle, state.epoch, seq, definition, manual=True)
        if entry is None:
            if definition.id in state.run.active:
                raise ShadowControlError(f"Shadow {definition.id} is already running; wait for it or /shadow pause")
            raise ShadowControlError("the Shadow review could not be admitted for this session")
        return [entry]


def latest_reviewable_seq(agent: Agent) -> int | None:
    """The newest event that is not a slash command's own bookkeeping."""
    events = agent.session.events
    for index in range(len(events) - 1, -1, -1):
        if events[index].type not in ("command/run", "command/done"):
            return events[index].seq
    return None


__all__ = ["DEFAULT_SHADOW_ID", "Controls", "ShadowControlError", "assert_root"]
