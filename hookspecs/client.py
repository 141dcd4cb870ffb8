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
    :class:`~hookspecs.values.client.SettingsTab` or
    :class:`~hookspecs.values.client.CardRenderer`. Cards themselves are pushed at
    run time with ``host.client.upsert_card``.

    Return: nothing.

    Semantics: register hook.

    Timing: synchronous and quick.
    """
