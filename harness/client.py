"""The client service: process-local cards and notices for user interfaces.

Nothing here becomes a session event. Interfaces (the terminal chat, the
headless runner, the web client) subscribe with :meth:`ClientServiceImpl.subscribe`.
A removed card reaches listeners once more, as itself with ``visibility``
``"hidden"``, so every client drops it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import attrs

from hookspecs.errors import DshError
from hookspecs.values import Card, CardRenderer, ClientContribution, Notice, SettingsTab, Stylesheet

if TYPE_CHECKING:
    from hookspecs.values import CardView

Listener = Callable[[Card | Notice], None]


class ClientServiceImpl:
    """Implements :class:`hookspecs.protocols.ClientService`."""

    def __init__(self, logger: Any) -> None:
        self._cards: dict[str, dict[str, Card]] = {}
        self._notices: list[Notice] = []
        self._tabs: dict[str, SettingsTab] = {}
        self._styles: dict[str, Stylesheet] = {}
        self._renderers: dict[str, CardRenderer] = {}
        self._listeners: list[Listener] = []
        self._logger = logger

    def contribute(self, contribution: ClientContribution) -> Callable[[], None]:
        if isinstance(contribution, SettingsTab):
            if contribution.namespace in self._tabs:
                raise DshError(f"settings tab for {contribution.namespace!r} is already registered")
            self._tabs[contribution.namespace] = contribution
            return _remover(self._tabs, contribution.namespace)
        if isinstance(contribution, CardRenderer):
            if contribution.kind in self._renderers:
                raise DshError(f"card renderer for kind {contribution.kind!r} is already registered")
            self._renderers[contribution.kind] = contribution
            return _remover(self._renderers, contribution.kind)
        if isinstance(contribution, Stylesheet):
            if contribution.plugin in self._styles:
                raise DshError(f"a stylesheet of plugin {contribution.plugin!r} is already registered")
            self._styles[contribution.plugin] = contribution
            return _remover(self._styles, contribution.plugin)
        raise DshError(f"unknown client contribution {type(contribution).__name__}")

    def upsert_card(self, card: Card) -> None:
        self._cards.setdefault(card.session_id, {})[card.key] = card
        self._emit(card)

    def remove_card(self, session_id: str, key: str) -> None:
        card = self._cards.get(session_id, {}).pop(key, None)
        if card is not None:
            self._emit(attrs.evolve(card, visibility="hidden"))

    def restore(self, session_id: str, events: Sequence[Any]) -> list[Card]:
        """Cards the renderers rebuild from a session's durable events (after a
        restart); a live card with the same key wins. Returns the session's cards."""
        live = self._cards.setdefault(session_id, {})
        for renderer in list(self._renderers.values()):
            if renderer.restore is None:
                continue
            try:
                restored = renderer.restore(session_id, events)
            except Exception:
                self._logger.exception("card restore for %s failed", renderer.kind)
                continue
            for card in restored:
                if card.session_id == session_id and card.key not in live:
                    live[card.key] = card
        return self.cards(session_id)

    def cards(self, session_id: str) -> list[Card]:
        return sorted(self._cards.get(session_id, {}).values(), key=lambda c: (c.anchor_seq, c.key))

    def notice(self, notice: Notice) -> None:
        self._notices.append(notice)
        del self._notices[:-200]  # keep a bounded history
        self._emit(notice)

    def notices(self) -> list[Notice]:
        return list(self._notices)

    def settings_tabs(self) -> list[SettingsTab]:
        return sorted(self._tabs.values(), key=lambda t: (t.order, t.title))

    def renderer(self, kind: str) -> CardRenderer | None:
        return self._renderers.get(kind)

    def stylesheets(self) -> list[Stylesheet]:
        return [self._styles[name] for name in sorted(self._styles)]

    def render(self, card: Card) -> str:
        renderer = self._renderers.get(card.kind)
        if renderer is None:
            return f"[{card.kind}] {card.data}"
        try:
            return renderer.render(card)
        except Exception:
            self._logger.exception("card renderer for %s failed", card.kind)
            return f"[{card.kind}]"

    def view(self, card: Card) -> CardView:
        """The card's view model; a kind without one shows its terminal text."""
        from hookspecs.values import CardView  # view models load with the first rich client

        renderer = self._renderers.get(card.kind)
        if renderer is not None and renderer.view is not None:
            try:
                return renderer.view(card)
            except Exception:
                self._logger.exception("card view for %s failed", card.kind)
        return CardView(title=card.kind, banner=self.render(card))

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def _emit(self, item: Card | Notice) -> None:
        for listener in list(self._listeners):
            try:
                listener(item)
            except Exception:
                self._logger.exception("client listener failed")


def _remover(registry: dict[str, Any], key: str) -> Callable[[], None]:
    """A disposer dropping ``registry[key]`` (idempotent)."""

    def remove() -> None:
        registry.pop(key, None)

    return remove
