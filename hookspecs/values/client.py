"""Client contributions: settings tabs, cards anchored to the log, notices.

Cards and notices are process-local presentation state; they never become
session events. Everything a plugin contributes is data the host's client
renders (terminal text, or the web client's view models and forms): a plugin
ships no user-interface code. ``docs/web.md`` describes the format.

What a plugin registers at every start (a card renderer, a settings tab, a
stylesheet) is here; what only a rich client builds from them (card view
models, settings forms) is in :mod:`hookspecs.values.client_views`, loaded
when a client first shows one.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, Literal, TypeAlias

import attrs

if TYPE_CHECKING:
    from .client_views import CardView, FieldErrors, FieldHint, SettingsForm


@attrs.frozen(kw_only=True)
class Card:
    """A keyed card shown under the event with durable ``anchor_seq``.

    Upserting the same ``(session_id, key)`` replaces the card's data.
    """

    session_id: str
    anchor_seq: int
    key: str
    kind: str
    data: dict[str, Any]
    visibility: Literal["visible", "hidden"] = "visible"


@attrs.frozen(kw_only=True)
class Notice:
    """A transient line for the person at the client."""

    level: Literal["info", "warning", "error"]
    text: str
    session_id: str | None = None


@attrs.frozen(kw_only=True)
class CardRenderer:
    """How cards of ``kind`` show.

    ``render`` turns a card into terminal text; ``view`` (optional) into a
    :class:`CardView` for richer clients; ``restore`` (optional) rebuilds cards
    from a session's durable events (a client that opens a session after a
    restart calls it: what it returns is upserted unless a live card with the
    same key exists).
    """

    kind: str
    render: Callable[[Card], str] = attrs.field(eq=False)
    view: Callable[[Card], CardView] | None = attrs.field(default=None, eq=False)
    restore: Callable[[str, Sequence[Any]], list[Card]] | None = attrs.field(default=None, eq=False)


@attrs.frozen(kw_only=True)
class SettingsTab:
    """A settings page for one namespace.

    Without ``load``/``save`` the client builds the form from the namespace's
    settings schema (the one ``--dump-config`` shows) and ``hints``, and saves
    through the settings service. A plugin whose page also edits data stored
    elsewhere gives ``load`` (the form, fresh each time) and ``save`` (a patch
    keyed by field key -> field errors; it validates and writes through the
    plugin's own code paths).
    """

    plugin: str
    namespace: str
    title: str
    order: int = 100
    intro: str = ""
    hints: Mapping[str, FieldHint] = attrs.field(factory=dict, eq=False)
    load: Callable[[], Awaitable[SettingsForm]] | None = attrs.field(default=None, eq=False)
    save: Callable[[Mapping[str, Any]], Awaitable[FieldErrors]] | None = attrs.field(default=None, eq=False)


#: The largest stylesheet one plugin may add, in characters.
MAX_STYLESHEET_CHARS: Final = 16_384
#: What a plugin stylesheet may not contain: nothing is fetched, nothing leaves
#: the style sheet, no script-like CSS.
_CSS_REFUSED: Final = ("</", "<!--", "@import", "url(", "image-set(", "expression(", "behavior:", "-moz-binding")


def _check_css(instance: Any, attribute: Any, value: Any) -> None:
    if not isinstance(value, str):
        raise TypeError(f"css must be a string, not {type(value).__name__}")
    if len(value) > MAX_STYLESHEET_CHARS:
        raise ValueError(f"css has {len(value)} characters; at most {MAX_STYLESHEET_CHARS} are allowed")
    lowered = "".join(value.lower().split())
    for refused in _CSS_REFUSED:
        if "".join(refused.split()) in lowered:
            raise ValueError(f"css may not contain {refused!r}")


@attrs.frozen(kw_only=True)
class Stylesheet:
    """A small stylesheet a plugin adds to rich clients (the web page loads it
    after its own). Plain CSS: no imports, no ``url(...)``, no markup, at most
    :data:`MAX_STYLESHEET_CHARS`. Scope rules to your own cards
    (``.card[data-kind="your-kind"] ...``); the host's page does not change for
    it, and a terminal client ignores it."""

    plugin: str
    css: str = attrs.field(validator=_check_css)


ClientContribution: TypeAlias = SettingsTab | CardRenderer | Stylesheet
