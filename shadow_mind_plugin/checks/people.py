"""What the person said not to touch, from their own messages in a root session.

The checks read the person's words across the whole session; these are the
only events they need from before the last person message unless a check asks
for more, so a long log's view reads them alone, or takes them from the
window tally (:mod:`..window_tally`), and derives the protection state here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeAlias

from hookspecs.values import SessionEvent

from ..person_messages import Earlier, Said, person
from ..projection_tail import newest_index
from .protect import protected_in

#: the person's messages, and ``(target, message)`` for what they said not to touch and have not lifted since
People: TypeAlias = tuple[tuple[Said, ...], tuple[tuple[str, Said], ...]]


def protect(protected: dict[str, tuple[bool, Said]], said: Said) -> None:
    """What ``said`` forbids touching; a target named again without the prohibition is lifted."""
    named = set(protected_in(said.text))
    for target in named:
        protected[target] = (True, said)
    for target in protected.keys() - named:
        if target in said.text:
            protected[target] = (False, said)


def unlifted(protected: Mapping[str, tuple[bool, Said]]) -> tuple[tuple[str, Said], ...]:
    return tuple((target, said) for target, (on, said) in protected.items() if on)


def last_person_index(events: Sequence[SessionEvent], stop: int) -> int:
    """The index of the newest person message in ``events[:stop]``, 0 when none."""
    return newest_index(events, stop, _is_person) or 0


def _is_person(event: SessionEvent) -> bool:
    return person(event) is not None


def protection(people: Sequence[Said]) -> Earlier:
    """``people`` and the protection state they leave."""
    protected: dict[str, tuple[bool, Said]] = {}
    for said in people:
        protect(protected, said)
    return tuple(people), protected
