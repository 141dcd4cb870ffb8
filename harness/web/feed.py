"""The live feed: session events, streamed text, cards, notices and approval
prompts fanned out to the page's SSE streams, one bounded channel each.

Durable events come from the log (a stream starts by replaying the events
after the seq the page already has); cards, notices and approval prompts are
process-local and pushed live (a stream also opens with the current cards,
the recent notices and the pending approvals, see ``WebClient.stream``). A
subscriber too slow to keep up is dropped: the page reconnects and
resynchronises from the log.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import trio

from hookspecs import hookimpl
from hookspecs.values import Card, EventTypes, Notice, SessionEvent, StreamDelta, TextDelta

from .notices import RecentNotices
from .payloads import clean, event_payload

#: items queued per subscriber before it is dropped
BACKLOG = 2000

Item = dict[str, Any]


class Feed:
    """A host plugin (session events and stream frames) and a client-service listener."""

    def __init__(self) -> None:
        self._subscribers: dict[str, set[trio.MemorySendChannel[Item]]] = {}
        #: a card's page item and a session's cards; set once the host (and so its card views) exists
        self.card_item: Callable[[Card], Item] | None = None
        self.cards_of: Callable[[str], list[Card]] | None = None
        self.notices = RecentNotices()

    def subscribe(self, session_id: str) -> tuple[trio.MemoryReceiveChannel[Item], Callable[[], None]]:
        send, receive = trio.open_memory_channel[Item](BACKLOG)
        self._subscribers.setdefault(session_id, set()).add(send)

        def unsubscribe() -> None:
            self._subscribers.get(session_id, set()).discard(send)
            send.close()

        return receive, unsubscribe

    def publish(self, session_id: str | None, item: Item) -> None:
        """To the session's subscribers (``None``: to every subscriber)."""
        if session_id is None:
            targets = [s for subs in self._subscribers.values() for s in subs]
        else:
            targets = list(self._subscribers.get(session_id, ()))
        for send in targets:
            try:
                send.send_nowait(item)
            except (trio.WouldBlock, trio.ClosedResourceError, trio.BrokenResourceError):
                send.close()  # the stream ends; the page reconnects and replays from the log
                for subs in self._subscribers.values():
                    subs.discard(send)

    @hookimpl
    def dsh_session_event(self, session: Any, event: SessionEvent) -> None:
        if event.type == EventTypes.ASSISTANT_CHUNK:
            return  # text arrives as stream deltas; the message follows durably
        payload = event_payload(event)
        if payload is not None:
            self.publish(session.id, {"kind": "event", "event": payload})

    @hookimpl
    def dsh_agent_stream(self, agent: Any, frame: Any) -> None:
        if isinstance(frame, StreamDelta) and isinstance(frame.chunk, TextDelta):
            self.publish(agent.id, {"kind": "delta", "text": clean(frame.chunk.text, 8000)})

    @hookimpl
    def dsh_settings_updated(self, namespace: str, value: Any, previous: Any) -> None:
        """Card views may read settings (Shadow Mind's collapse preference): push them again."""
        if self.card_item is None or self.cards_of is None:
            return
        for session_id in [s for s, subs in self._subscribers.items() if subs]:
            for card in self.cards_of(session_id):
                self.publish(session_id, self.card_item(card))

    def client_item(self, item: Card | Notice) -> None:
        if isinstance(item, Notice):
            self.publish(item.session_id, {"kind": "notice", **self.notices.add(item)})
        elif self.card_item is not None:
            self.publish(item.session_id, self.card_item(item))
