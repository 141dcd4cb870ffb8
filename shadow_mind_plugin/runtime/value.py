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


def _loop(state: OwnerState) -> dict[str, Any]:
    loop = state.extras.get("value_loop")
    if loop is None:
        loop = {"pending": {}}
        state.extras["value_loop"] = loop
    return loop


def _stats(state: OwnerState) -> dict[str, dict[str, int]]:
    return state.extras.setdefault("value_stats", {})


def capture(rt: ShadowRuntime, state: OwnerState, event: SessionEvent) -> None:
    if not rt.settings().valueLoopEnabled:
        return
    pending: dict[str, ChallengeObserver] = _loop(state)["pending"]
    stats = _stats(state)
    events = state.root.session.events
    for challenge in capture_challenges(event):
        if challenge.run_id in pending:
            continue
        observer = ChallengeObserver(challenge)
        observer.feed(events[: event.seq + 1])  # the refs point at earlier events
        pending[challenge.run_id] = observer
        counts = stats.setdefault(challenge.shadow_id, {"challenges": 0, "adopted": 0, "rejected": 0, "ignored": 0})
        counts["challenges"] += 1


def evaluate(rt: ShadowRuntime, state: OwnerState, turn_end: SessionEvent) -> None:
    settings = rt.settings()
    if not settings.valueLoopEnabled:
        return
    loop = state.extras.get("value_loop")
    if not loop or not loop["pending"]:
        return
    events = state.root.session.events
    for run_id, observer in list(loop["pending"].items()):
        observer.feed(events[observer.observed_through_seq + 1 : turn_end.seq + 1])
        classification = observer.classify(settings.valueLoopWindowTurns)
        if classification is None:
            continue
        del loop["pending"][run_id]
        challenge = observer.challenge
        counts = _stats(state).setdefault(challenge.shadow_id, {"challenges": 0, "adopted": 0, "rejected": 0, "ignored": 0})
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
    for shadow_id, counts in sorted(_stats(state).items()):
        decided = counts["adopted"] + counts["rejected"]
        row: dict[str, Any] = {"shadow_id": shadow_id, **counts}
        if decided:
            row["hit_rate"] = counts["adopted"] / decided
        out.append(row)
    return out


def pending_count(state: OwnerState) -> int:
    loop = state.extras.get("value_loop")
    return len(loop["pending"]) if loop else 0
