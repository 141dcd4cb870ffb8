"""The counting windows on their own: substantive turns, activity weights,
idempotence, signals, and real user text only."""

from __future__ import annotations

from evolution_review_plugin.signals import Counters, Thresholds, TurnSignals, advance, fold_turn
from hookspecs.values import SessionEvent, create_user_message, message_to_json

T = Thresholds(memory_interval=5, skill_interval=5, min_tool_calls=3, min_user_chars=200, min_agent_chars=500)


def test_a_turn_below_every_bound_counts_nothing_but_is_seen() -> None:
    counters, kind = advance(Counters(), TurnSignals(turn=1, tool_calls=2, user_chars=199, assistant_chars=499), T)
    assert counters == Counters(last_turn=1, tool_calls_total=2) and kind is None


def test_activity_weight_is_the_tool_calls_or_one_for_a_signal() -> None:
    counters, _ = advance(Counters(), TurnSignals(turn=1, tool_calls=4, memory_signal=True), T)
    assert (counters.turns_since_memory, counters.turns_since_skill) == (1, 4)
    counters, kind = advance(counters, TurnSignals(turn=2, user_chars=300), T)
    assert (counters.turns_since_memory, counters.turns_since_skill, kind) == (2, 5, "skill")


def test_counting_is_idempotent_per_turn() -> None:
    once, _ = advance(Counters(), TurnSignals(turn=3, tool_calls=3), T)
    twice, kind = advance(once, TurnSignals(turn=3, tool_calls=3), T)
    assert twice == once and kind is None


def test_fires_do_not_reset_and_both_reached_is_combined() -> None:
    counters = Counters(turns_since_memory=4, turns_since_skill=4, last_turn=1)
    counters, kind = advance(counters, TurnSignals(turn=2, tool_calls=3), T)
    assert kind == "combined" and (counters.turns_since_memory, counters.turns_since_skill) == (7, 7)


def _user(seq: int, text: str, kind: str = "user") -> SessionEvent:
    message = create_user_message(text, {"kind": kind})
    return SessionEvent(type="user/message", seq=seq, time=0, data={"message": message_to_json(message)})


def test_only_real_user_text_counts_and_carries_signals() -> None:
    events = [_user(0, "I prefer tabs, remember this"), _user(1, "don't do that, root cause?", kind="shadow-report")]
    signals = fold_turn(1, events)
    assert signals.user_chars == len("I prefer tabs, remember this")
    assert signals.memory_signal and not signals.skill_signal
