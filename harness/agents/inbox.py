"""The agent inbox: messages waiting for the next turn or the next step."""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from hookspecs.values import InboxTarget, Message


@attrs.frozen
class InboxItem:
    message: Message
    target: InboxTarget
    wake: bool


@attrs.define(eq=False)
class Inbox:
    """Implements :class:`hookspecs.protocols.Inbox`; the agent owns mutation."""

    _turn: list[InboxItem] = attrs.field(factory=list)
    _step: list[InboxItem] = attrs.field(factory=list)

    @property
    def next_turn(self) -> Sequence[Message]:
        return tuple(item.message for item in self._turn)

    @property
    def next_step(self) -> Sequence[Message]:
        return tuple(item.message for item in self._step)

    @property
    def has_pending(self) -> bool:
        return bool(self._turn or self._step)

    @property
    def wants_turn(self) -> bool:
        """Whether something queued asks to be run now."""
        return any(item.wake for item in self._turn) or any(item.wake for item in self._step)

    @property
    def has_step_items(self) -> bool:
        return bool(self._step)

    def put(self, item: InboxItem) -> None:
        (self._turn if item.target == "next-turn" else self._step).append(item)

    def claim(self, *, first_step: bool) -> list[InboxItem]:
        """All next-step items, plus one next-turn item on a turn's first step."""
        claimed = list(self._step)
        self._step.clear()
        if first_step and self._turn:
            claimed.append(self._turn.pop(0))
        return claimed

    def clear(self) -> list[InboxItem]:
        dropped = self._turn + self._step
        self._turn.clear()
        self._step.clear()
        return dropped
