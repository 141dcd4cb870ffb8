"""Plugin lifecycle hooks.

Every hook docstring has the same slots: *When* it fires, *Arguments*,
*Return*, *Semantics* (observer, register, chain or awaited) and *Timing*
(whether it may block).
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TYPE_CHECKING

from .markers import hookspec

if TYPE_CHECKING:
    from .protocols import Host


@hookspec
def dsh_plugin_setup(host: Host) -> Awaitable[None] | None:
    """The host is ready for this plugin.

    When: once per host start, after every ``dsh_register_*`` hook has run and the
    settings document was loaded, before the first agent is created.

    Arguments: ``host`` — the :class:`~hookspecs.protocols.Host`; keep it.

    Return: nothing (``None`` or an awaitable resolving to ``None``).

    Semantics: awaited, in call order. Imperative registrations made here (for
    example ``host.subagents.register_provider`` only when a name is free)
    return disposers; call them in ``dsh_plugin_teardown`` (registrations from
    ``dsh_register_*`` hooks are undone by the host). A raise aborts the host
    start with the plugin named.

    Timing: may await; keep it short — the host waits for every plugin.
    """


@hookspec
def dsh_plugin_teardown(host: Host) -> Awaitable[None] | None:
    """The host is stopping.

    When: once, after every agent was disposed and before the host cancels the
    remaining background tasks and runs the plugins' disposers (LIFO).

    Arguments: ``host`` — the same host passed to ``dsh_plugin_setup``.

    Return: nothing (or an awaitable).

    Semantics: awaited in reverse call order; a plugin should cancel its own work
    and wait until it is quiescent. Exceptions are logged and contained.

    Timing: may await; the host bounds the whole teardown.
    """
