"""User controls behind ``/shadow`` and the management tools: status, cycles,
pause, resume, retry and a forced review. Root agents only."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hookspecs.errors import DshError

from ..vocabulary import DEFAULT_SHADOW_ID, CancellationSource, Phase, ReasonCode
from .clock import iso

if TYPE_CHECKING:
    from hookspecs.protocols import Agent

    from .runtime import ShadowRuntime
    from .state import OwnerState, RunEntry


class ShadowControlError(DshError):
    code = "SHADOW_CONTROL"


def assert_root(agent: Agent) -> None:
    if not agent.is_root:
        raise ShadowControlError(
            "Shadow Mind controls are available only on root agents; run /shadow in the main session"
        )


def status(rt: ShadowRuntime, agent: Agent) -> dict[str, Any]:
    assert_root(agent)
    state = rt.owners.get(agent.id)
    if state is None or state.root is not agent:
        return {
            "paused": False,
            "active": [],
            "pending_schedules": 0,
            "epoch": 0,
            "total_runs": 0,
            "value_loop": [],
            "spent_chars": 0,
            "budget_tier": "standard",
            "cooldowns": [],
            "pending_escalations": [],
            "recent_reviews": [],
            "settings_notes": rt.settings_notes(),
        }
    now = rt.now()
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
            for e in state.active.values()
        ],
        "pending_schedules": len(state.pending),
        "epoch": state.epoch,
        "total_runs": state.total_runs,
        "spent_chars": state.spent_chars,
        "budget_tier": str(rt.budget_tier(state)),
        "budget_state_error": rt.budget_error(state),
        "cooldowns": [
            {"shadow_id": k, "until": iso(c.until), "patterns": list(c.patterns)}
            for k, c in state.cooldowns.items()
            if c.until > now
        ],
        "pending_escalations": sorted(state.pending_escalations),
        "recent_reviews": rt.recent_reviews(state),
        "value_loop": rt.value_loop_stats(state),
        "settings_notes": rt.settings_notes(),
    }
    if state.last_run is not None:
        out["last_run"] = state.last_run.to_json()
    return out


def cycles(rt: ShadowRuntime, agent: Agent) -> list[dict[str, Any]]:
    assert_root(agent)
    state = rt.owners.get(agent.id)
    if state is None:
        return []
    return [cycle.to_json() for cycle in state.cycles.values()]


def pause(rt: ShadowRuntime, agent: Agent) -> dict[str, Any]:
    assert_root(agent)
    state = rt.owner(agent)
    if state is not None and not state.paused:
        state.paused = True
        rt.reset_coordination(state)
        rt.cancel_owner(state, ReasonCode.SHADOW_PAUSED, CancellationSource.USER_COMMAND)
    return status(rt, agent)


def resume(rt: ShadowRuntime, agent: Agent) -> dict[str, Any]:
    assert_root(agent)
    state = rt.owner(agent)
    if state is not None:
        state.paused = False
        rt.reset_coordination(state)
    return status(rt, agent)


def retry(rt: ShadowRuntime, agent: Agent, run_id: str) -> RunEntry:
    """Rerun a failed or aborted run on its original watermark, in the same cycle."""
    assert_root(agent)
    state = rt.owners.get(agent.id)
    found = state.find_run(run_id) if state is not None else None
    if state is None or found is None:
        raise ShadowControlError(f"Shadow run {run_id} was not found for this session; see /shadow cycles")
    cycle, view = found
    if view.phase not in (Phase.FAILED, Phase.ABORTED):
        raise ShadowControlError(f"Shadow run {run_id} is {view.phase}; only failed or aborted runs can be retried")
    if view.shadow_id in state.active:
        raise ShadowControlError(f"Shadow {view.shadow_id} is already running; wait for it or /shadow pause")
    definition = rt.registry.list().get(view.shadow_id)
    if definition is None:
        raise ShadowControlError(f"the Shadow definition {view.shadow_id} no longer exists")
    if not definition.enabled:
        raise ShadowControlError(
            f"the Shadow definition {view.shadow_id} is disabled; enable it before retrying (/shadow set enabled true)"
        )
    entry = rt.launch(state, cycle, state.epoch, view.captured_through_seq, definition, manual=True)
    if entry is None:
        raise ShadowControlError("the Shadow retry could not be admitted for this session")
    return entry


def review_now(rt: ShadowRuntime, agent: Agent) -> list[RunEntry]:
    """Force a review of the latest event, bypassing probability, pause, budget
    and the ``enabled`` flag (never the liveness checks)."""
    assert_root(agent)
    state = rt.owner(agent)
    if state is None:
        raise ShadowControlError("Shadow Mind is stopping; no review can start")
    seq = latest_reviewable_seq(agent)
    if seq is None:
        raise ShadowControlError("this session has no events to review yet; send a message first")
    definition = rt.registry.default_definition()
    cycle = state.cycle_for(seq)
    for turn in list(state.pending):
        if turn.seq == seq:
            state.pending.remove(turn)
            turn.cycle.scheduling = False
    entry = rt.launch(state, cycle, state.epoch, seq, definition, manual=True)
    if entry is None:
        if definition.id in state.active:
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


def active_entries(state: OwnerState) -> list[RunEntry]:
    return list(state.active.values())


__all__ = ["DEFAULT_SHADOW_ID", "ShadowControlError", "assert_root", "cycles", "pause", "resume", "retry", "review_now", "status"]
