"""Client hooks: what a plugin adds to user interfaces."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from .markers import hookspec

if TYPE_CHECKING:
    from .values.client import ClientContribution


@hookspec
def dsh_register_client(register: Callable[[ClientContribution], None]) -> None:
    """Contribute settings tabs and card renderers.

    When: once at host start, before ``dsh_plugin_setup``.

    Arguments: ``register(contribution)`` — a
    :class:`~hookspecs.values.client.SettingsTab` (a form rendered from the
    namespace's settings schema and layout hints, or from the tab's own
    ``load``/``save``) or a :class:`~hookspecs.values.client.CardRenderer`
    (terminal text, an optional ``CardView`` view model, an optional restore
    from durable events) or a :class:`~hookspecs.values.client.Stylesheet`
    (plain CSS for rich clients). Cards themselves are pushed at run time with
    ``host.client.upsert_card``. Contributions are data; no plugin ships UI code.

    Return: nothing.

    Semantics: register hook.

    Timing: synchronous and quick.
    """
