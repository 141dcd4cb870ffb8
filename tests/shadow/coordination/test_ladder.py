"""Escalation ladder and the stagnation action (docs/shadow-mind.md §7 "Stagnation, cooldown and escalation")."""

from __future__ import annotations

import pytest

from shadow_mind_plugin.coordination.ladder import StagnationAction, next_effort, stagnation_action

LADDER = ("low", "medium", "high")


@pytest.mark.parametrize(
    ("current", "expected"),
    [
        (None, "low"),
        ("ultra", "low"),  # not on the ladder → first rung
        ("low", "medium"),
        ("medium", "high"),
        ("high", None),  # top rung
    ],
)
def test_next_effort(current: str | None, expected: str | None) -> None:
    assert next_effort(current, LADDER) == expected


def test_empty_ladder_has_no_rung() -> None:
    assert next_effort(None, ()) is None
    assert next_effort("low", []) is None


def test_single_rung_ladder() -> None:
    assert next_effort(None, ["max"]) == "max"
    assert next_effort("max", ["max"]) is None


def test_oscillation_escalates_when_enabled() -> None:
    action = stagnation_action(["oscillation"], escalation_enabled=True, current_effort="low", ladder=LADDER)
    assert action == StagnationAction(kind="escalate", reasoning_effort="medium")


def test_oscillation_at_top_rung_cools_down() -> None:
    action = stagnation_action(["oscillation"], escalation_enabled=True, current_effort="high", ladder=LADDER)
    assert action == StagnationAction(kind="cooldown")


def test_escalation_disabled_cools_down() -> None:
    action = stagnation_action(["oscillation"], escalation_enabled=False, current_effort=None, ladder=LADDER)
    assert action.kind == "cooldown" and action.reasoning_effort is None


def test_other_patterns_cool_down() -> None:
    for pattern in ("spinning", "no-drift", "diminishing"):
        action = stagnation_action([pattern], escalation_enabled=True, current_effort=None, ladder=LADDER)
        assert action.kind == "cooldown"


def test_oscillation_among_others_still_escalates() -> None:
    action = stagnation_action(
        ["spinning", "oscillation", "diminishing"], escalation_enabled=True, current_effort=None, ladder=LADDER
    )
    assert action == StagnationAction(kind="escalate", reasoning_effort="low")
