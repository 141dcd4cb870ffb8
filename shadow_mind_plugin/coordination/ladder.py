"""The reasoning-effort escalation ladder and the stagnation action (docs/shadow-mind.md §7 "Stagnation, cooldown and escalation").

An oscillating reviewer may get one more rung of reasoning effort instead of a
cooldown; everything else that stagnates cools down.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Literal

import attrs

from ..vocabulary import StagnationPattern


def next_effort(current: str | None, ladder: Sequence[str]) -> str | None:
    """The rung after ``current``.

    Empty ladder → None; ``current`` unset or not on the ladder → the first
    rung; otherwise the following rung, which is None at the top.
    """
    if not ladder:
        return None
    if current is None or current not in ladder:
        return ladder[0]
    index = ladder.index(current) + 1
    return ladder[index] if index < len(ladder) else None


@attrs.frozen(kw_only=True)
class StagnationAction:
    """What to do about detected stagnation: escalate (with the effort to
    reserve for the next run) or cool down."""

    kind: Literal["escalate", "cooldown"]
    reasoning_effort: str | None = None


def stagnation_action(
    patterns: Iterable[str],
    *,
    escalation_enabled: bool,
    current_effort: str | None,
    ladder: Sequence[str],
) -> StagnationAction:
    """Only an ``oscillation`` with escalation enabled and a next
    rung available escalates (and then no cooldown is installed)."""
    if escalation_enabled and StagnationPattern.OSCILLATION in set(patterns):
        nxt = next_effort(current_effort, ladder)
        if nxt is not None:
            return StagnationAction(kind="escalate", reasoning_effort=nxt)
    return StagnationAction(kind="cooldown")
