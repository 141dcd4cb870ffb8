"""Settings hooks."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from .markers import hookspec

if TYPE_CHECKING:
    from .values.settings import SettingsSpec


@hookspec
def dsh_register_settings(register: Callable[[SettingsSpec], None]) -> None:
    """Declare settings namespaces.

    When: once at host start, before the settings document is loaded and before
    ``dsh_plugin_setup``.

    Arguments: ``register(spec)`` — adds one
    :class:`~hookspecs.values.settings.SettingsSpec`. A duplicate or malformed
    namespace fails the start.

    Return: nothing.

    Semantics: register hook.

    Timing: synchronous and quick.
    """


@hookspec
def dsh_settings_updated(namespace: str, value: Any, previous: Any) -> Awaitable[None] | None:
    """A namespace's resolved value changed.

    When: after a ``mutate`` or a reload of a hand-edited document changed the
    resolved value (deep comparison); never when only formatting or comments
    changed.

    Arguments: ``namespace``; ``value`` — the new resolved value; ``previous`` —
    the old one.

    Return: nothing (``None``, or an awaitable the host runs in the background, never awaited).

    Semantics: observer.

    Timing: must not block.
    """
