"""The pluggy markers for the ``dsh`` project.

Every hook name starts with ``dsh_``; host and plugins share one project name so
``PluginManager("dsh")`` validates implementations against these specs.
"""

from __future__ import annotations

import pluggy

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
