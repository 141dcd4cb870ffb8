"""The person's own messages in a root session.

The evidence checks read what the person said across the whole session and
the window tally (:mod:`.window_tally`) remembers it between hosts, so both
take it from here; this module imports nothing of the checks.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from itertools import compress
from operator import attrgetter
from typing import Any, Final, TypeAlias

import attrs

from hookspecs.values import EventTypes, SessionEvent

from .event_render import message_of, visible_text

#: the person's own messages; relays, hooks, delegations and checkpoints are not
PERSON: Final = "user"
_TYPE: Final = attrgetter("type")


@attrs.frozen(kw_only=True)
class Said:
    seq: int
    text: str


#: what the person said not to touch: ``target -> (still on, the message that last named it)``
Protected: TypeAlias = dict[str, tuple[bool, Said]]
#: the person's messages and the :data:`Protected` state they leave
Earlier: TypeAlias = tuple[tuple[Said, ...], Protected]
#: ``(protected, said)``: fold one message into the state (the checks' rule)
Fold: TypeAlias = Callable[[Protected, Said], None]


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


def people_in(events: Sequence[SessionEvent]) -> list[Said]:
    """The person's messages among ``events``, oldest first."""
    # the type filter at C speed: a long log is mostly streamed chunks and tool traffic
    messages = compress(events, map(EventTypes.USER_MESSAGE.__eq__, map(_TYPE, events)))
    return [said for event in messages if (said := person(event)) is not None]
