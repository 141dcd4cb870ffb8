"""The person's own messages in a root session, and what they said not to touch.

The checks read the person's words across the whole session; these are the
only events they need from before the last person message unless a check asks
for more, so a long log's view reads them alone (:func:`earlier_people`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import compress
from operator import attrgetter
from typing import Any, Final, TypeAlias

import attrs

from hookspecs.values import EventTypes, SessionEvent

from ..event_render import message_of, visible_text
from ..projection_tail import newest_index
from .protect import protected_in

#: the person's own messages; relays, hooks, delegations and checkpoints are not
PERSON: Final = "user"
_TYPE: Final = attrgetter("type")


@attrs.frozen(kw_only=True)
class Said:
    seq: int
    text: str


#: the person's messages, and ``(target, message)`` for what they said not to touch and have not lifted since
People: TypeAlias = tuple[tuple[Said, ...], tuple[tuple[str, Said], ...]]


def user_message(seq: int, data: Mapping[str, Any]) -> tuple[str, Said | None]:
    """Its visible text, and what the person said when it is theirs."""
    message = message_of(data)
    text = visible_text(message.get("content"))
    source = message.get("source")
    theirs = text and isinstance(source, Mapping) and source.get("kind") == PERSON
    return text, Said(seq=seq, text=text) if theirs else None


def person(event: SessionEvent) -> Said | None:
    if event.type != EventTypes.USER_MESSAGE:
        return None
    return user_message(event.seq, event.data if isinstance(event.data, dict) else {})[1]


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


#: the person's messages and every target they named, protected or lifted (in the order first named)
Earlier: TypeAlias = tuple[tuple[Said, ...], dict[str, tuple[bool, Said]]]


def earlier_people(events: Sequence[SessionEvent], stop: int) -> Earlier:
    """The person's messages in ``events[:stop]`` and the protection state they leave."""
    earlier = events[:stop]
    # the type filter at C speed: a long log is mostly streamed chunks and tool traffic
    messages = compress(earlier, map(EventTypes.USER_MESSAGE.__eq__, map(_TYPE, earlier)))
    people = [said for event in messages if (said := person(event)) is not None]
    protected: dict[str, tuple[bool, Said]] = {}
    for said in people:
        protect(protected, said)
    return tuple(people), protected
