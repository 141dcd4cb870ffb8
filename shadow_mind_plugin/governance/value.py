"""The value loop on live sessions: relayed challenges are classified later as
adopted, rejected or ignored. It only observes; it never changes scheduling."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import attrs

from hookspecs.values import SessionEvent

from ..core.clock import iso
from ..settings import ShadowMindSettings
from ..vocabulary import ValueClassification
from .value_loop import ChallengeObserver, capture_challenges

if TYPE_CHECKING:
    from ..core.owner import OwnerState


@attrs.frozen(kw_only=True)
class ValueContext:
    settings: ShadowMindSettings
    now: Callable[[], float]
    journal: Callable[[dict[str, Any]], None]


def _counts(state: OwnerState, shadow_id: str) -> dict[str, int]:
    return state.governance.value_stats.setdefault(
        shadow_id, {"challenges": 0, "adopted": 0, "rejected": 0, "ignored": 0}
    )


def capture(ctx: ValueContext, state: OwnerState, event: SessionEvent) -> None:
    if not ctx.settings.value_loop_enabled:
        return
    pending = state.governance.pending_challenges
    events = state.root.session.events
    for challenge in capture_challenges(event):
        if challenge.run_id in pending:
            continue
        observer = ChallengeObserver(challenge)
        # up to the relay only the cited events count: feed those (a seq is its log index),
        # not the whole log, then the relay itself so later feeds start after it
        wanted = [seq for seq in sorted(set(challenge.refs)) if 0 <= seq < min(event.seq, len(events))]
        cited = [events[seq] for seq in wanted]
        if all(cite.seq == seq for cite, seq in zip(cited, wanted, strict=True)):
            observer.feed([*cited, event])
        else:  # a log whose seqs are not its indexes: read it up to the relay
            observer.feed(events[: event.seq + 1])
        pending[challenge.run_id] = observer
        _counts(state, challenge.shadow_id)["challenges"] += 1


def evaluate(ctx: ValueContext, state: OwnerState, turn_end: SessionEvent) -> None:
    settings = ctx.settings
    if not settings.value_loop_enabled:
        return
    pending = state.governance.pending_challenges
    if not pending:
        return
    events = state.root.session.events
    for run_id, observer in list(pending.items()):
        observer.feed(events[observer.observed_through_seq + 1 : turn_end.seq + 1])
        classification = observer.classify(settings.value_loop_window_turns)
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
        ctx.journal(
            {
                "time": iso(ctx.now()),
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
    for shadow_id, counts in sorted(state.governance.value_stats.items()):
        decided = counts["adopted"] + counts["rejected"]
        row: dict[str, Any] = {"shadow_id": shadow_id, **counts}
        if decided:
            row["hit_rate"] = counts["adopted"] / decided
        out.append(row)
    return out
