"""The pluggy markers for the ``dsh`` project.

Every hook name starts with ``dsh_``; host and plugins share one project name so
``PluginManager("dsh")`` validates implementations against these specs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, TypeVar

import pluggy

_F = TypeVar("_F", bound=Callable[..., object])

#: The pluggy project name shared by specs, implementations and the host.
PROJECT_NAME = "dsh"

#: Marks a do-nothing function in this package as a hook specification.
hookspec = pluggy.HookspecMarker(PROJECT_NAME)

#: Marks a plugin method as an implementation of a ``dsh_*`` hook.
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)

#: Entry-point group whose names resolve profile rows to plugin classes.
PLUGINS_ENTRY_POINT_GROUP = "dsh.plugins"

#: Entry-point group whose values name YAML patch files that insert profile rows.
BUNDLES_ENTRY_POINT_GROUP = "dsh.bundles"

#: ``attrs.field(metadata={CONFIG_PATH: True})`` marks a plugin config field as a
#: file path: the host resolves a relative value against the directory of the
#: profile or patch file that set the row's config (``~`` is expanded first).
CONFIG_PATH: Final = "dsh.path"

#: The attribute :func:`event_types` sets on a ``dsh_session_event`` implementation.
EVENT_TYPES_ATTRIBUTE: Final = "dsh_event_types"


def event_types(*types: str) -> Callable[[_F], _F]:
    """Declare the event types a ``dsh_session_event`` implementation wants.

    A host may then skip calling it for other events (the reference host does:
    the hook runs for every event of every session, on the loop's hot path). A
    host that ignores the declaration calls it for every event, so the
    implementation must still check ``event.type`` itself.
    """
    wanted = frozenset(types)

    def mark(fn: _F) -> _F:
        setattr(fn, EVENT_TYPES_ATTRIBUTE, wanted)
        return fn

    return mark
