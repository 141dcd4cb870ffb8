"""The value loop: relayed challenges are classified later as adopted,
rejected or ignored. It only observes; it never changes scheduling."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hookspecs.values import SessionEvent

from ..governance.value_loop import ChallengeObserver, capture_challenges
from ..vocabulary import ValueClassification
from .clock import iso

if TYPE_CHECKING:
    from .runtime import ShadowRuntime
    from .state import OwnerState


def _counts(state: OwnerState, shadow_id: str) -> dict[str, int]:
    return state.value_stats.setdefault(shadow_id, {"challenges": 0, "adopted": 0, "rejected": 0, "ignored": 0})


def capture(rt: ShadowRuntime, state: OwnerState, event: SessionEvent) -> None:
    if not rt.settings().valueLoopEnabled:
        return
    pending = state.pending_challenges
    events = state.root.session.events
    for challenge in capture_challenges(event):
        if challenge.run_id in pending:
            continue
        observer = ChallengeObserver(challenge)
        observer.feed(events[: event.seq + 1])  # the refs point at earlier events
        pending[challenge.run_id] = observer
        _counts(state, challenge.shadow_id)["challenges"] += 1


def evaluate(rt: ShadowRuntime, state: OwnerState, turn_end: SessionEvent) -> None:
    settings = rt.settings()
    if not settings.valueLoopEnabled:
        return
    pending = state.pending_challenges
    if not pending:
        return
    events = state.root.session.events
    for run_id, observer in list(pending.items()):
        observer.feed(events[observer.observed_through_seq + 1 : turn_end.seq + 1])
        classification = observer.classify(settings.valueLoopWindowTurns)
        if classification is None:
            continue
        del pending[run_id]
        challenge = observer.challenge
        counts = _counts(state, challenge.shadow_id)
        key = {
            ValueClassification.ADOPTED: "adopted",
            ValueClassification.REJECTED: "rejected",
            ValueClassification.IGNORED: "ignored",
        }[classification]
        counts[key] += 1
        rt.journal.value_loop(
            {
                "time": iso(rt.now()),
                "root_session_id": state.root_id,
                "shadow_id": challenge.shadow_id,
                "run_id": challenge.run_id,
                "classification": str(classification),
                "relayed_at_seq": challenge.relayed_at_seq,
                "refs": list(challenge.refs),
                "observed_through_seq": turn_end.seq,
            }
        )


def stats(state: OwnerState) -> list[dict[str, Any]]:
    out = []
    for shadow_id, counts in sorted(state.value_stats.items()):
        decided = counts["adopted"] + counts["rejected"]
        row: dict[str, Any] = {"shadow_id": shadow_id, **counts}
        if decided:
            row["hit_rate"] = counts["adopted"] / decided
        out.append(row)
    return out
