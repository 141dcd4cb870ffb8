"""What rich clients build from client contributions: card view models and
settings forms (the web client's; the terminal shows a card's text).

A plugin returns these from a :class:`~hookspecs.values.client.CardRenderer`'s
``view`` and a :class:`~hookspecs.values.client.SettingsTab`'s ``load``; a host
that never shows a card's view or a settings page never loads them.
``docs/web.md`` describes the format.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Literal, TypeAlias

import attrs

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
