"""Client contributions: settings tabs, cards anchored to the log, notices.

Cards and notices are process-local presentation state; they never become
session events. Everything a plugin contributes is data the host's client
renders (terminal text, or the web client's view models and forms): a plugin
ships no user-interface code. ``docs/web.md`` describes the format.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Final, Literal, TypeAlias

import attrs


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


# --- card view models ---------------------------------------------------------------------------


@attrs.frozen(kw_only=True)
class CardAction:
    """A button on a card. Clicking it runs ``command`` (a slash-command line)
    on the card's session through the host's command registry, exactly as if
    the person had typed it."""

    label: str
    command: str
    enabled: bool = True


@attrs.frozen(kw_only=True)
class CardSection:
    """One part of a card (Shadow Mind: one reviewer run).

    ``body`` is Markdown: the client renders it with raw HTML disabled and
    unsafe links dropped. ``refs`` are session seqs the section cites (shown as
    links that scroll to those entries); ``meta`` are the label/value facts a
    person reads first (a verdict, a severity); ``details`` are internals they
    rarely need (a capture seq, a stage, a provider's stop reason), shown
    behind a disclosure; ``started_at`` (ISO 8601) lets the client show the
    elapsed time while ``busy``; ``child_session`` links to another session. A
    section with no body, meta, refs or actions is a one-line outcome (a
    review that found nothing to add) and clients show it compactly.
    """

    heading: str
    phase: str = ""
    phase_label: str = ""
    body: str = ""
    busy: bool = False
    started_at: str | None = None
    refs: tuple[int, ...] = ()
    meta: tuple[tuple[str, str], ...] = ()
    details: tuple[tuple[str, str], ...] = ()
    child_session: str | None = None
    actions: tuple[CardAction, ...] = ()


@attrs.frozen(kw_only=True)
class CardView:
    """What the web client shows for a card: a title, an optional banner, the
    sections and card-level actions. ``collapsible`` bodies start collapsed
    when ``collapsed_by_default``."""

    title: str
    banner: str = ""
    sections: tuple[CardSection, ...] = ()
    actions: tuple[CardAction, ...] = ()
    collapsible: bool = False
    collapsed_by_default: bool = False


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


# --- settings forms -----------------------------------------------------------------------------

Widget: TypeAlias = Literal["switch", "slider", "select", "text", "textarea", "number", "lines"]


@attrs.frozen(kw_only=True)
class FormOption:
    """A select's choice. With ``when``, it is offered only while the field the
    hint ``depends_on`` holds one of those values (``""`` stands for null)."""

    value: str
    label: str
    disabled: bool = False
    when: tuple[str, ...] = ()


@attrs.frozen(kw_only=True)
class FieldHint:
    """Layout for one field of a settings form.

    ``section`` groups fields (``"advanced"`` is a disclosure); ``scale``
    multiplies the stored number for display (100 shows a probability as a
    percentage); ``immediate`` fields save on change instead of with Save;
    ``depends_on`` names the field whose value filters this select's options
    (a value no longer offered is cleared).
    """

    label: str = ""
    widget: Widget | None = None
    section: str = "main"
    help: str = ""
    minimum: float | None = None
    maximum: float | None = None
    step: float | None = None
    scale: float = 1.0
    placeholder: str = ""
    options: tuple[FormOption, ...] = ()
    immediate: bool = False
    order: int = 100
    depends_on: str = ""


@attrs.frozen(kw_only=True)
class FormField:
    """A rendered field: its key, current value, whether ``null`` is allowed and its layout."""

    key: str
    value: Any
    hint: FieldHint
    nullable: bool = False


@attrs.frozen(kw_only=True)
class FormPreset:
    """A choice that fills several fields at once (nothing persists until Save)."""

    id: str
    label: str
    values: Mapping[str, Any]


@attrs.frozen(kw_only=True)
class SettingsForm:
    fields: tuple[FormField, ...]
    presets: tuple[FormPreset, ...] = ()
    notes: tuple[str, ...] = ()


#: field key -> problem; empty when the save went through
FieldErrors: TypeAlias = Mapping[str, str]


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


def field_named(message: str, keys: Sequence[str]) -> str:
    """The field a problem message names (the earliest of ``keys`` mentioned as
    a whole word), else ``""`` (a problem of the whole form). Lets a
    ``SettingsTab.save`` place its validators' messages at their fields."""
    best: tuple[int, str] | None = None
    for key in keys:
        found = re.search(rf"(?<![\w-]){re.escape(key)}(?![\w-])", message)
        if found and (best is None or found.start() < best[0]):
            best = (found.start(), key)
    return best[1] if best else ""
