"""The host contract of DeepSeek-Harness-style agent hosts, for pluggy plugins.

Plugin quickstart::

    # pyproject.toml
    [project.entry-points."dsh.plugins"]
    my-plugin = "my_package:MyPlugin"

    # my_package.py
    from hookspecs import hookimpl

    class MyPlugin:
        def __init__(self, config=None):
            self.config = config

        @hookimpl
        def dsh_session_event(self, session, event):
            if event.type == "turn/end":
                print(session.id, event.data["reason"]["kind"])

A profile row ``{id: mine, name: my-plugin}`` activates it. Implementations may
accept any subset of a hook's arguments. See ``docs/hooks.md`` for every hook.

What counts as a secret or a private path is part of the contract too:
:func:`scrub_text` (``hookspecs.scrub``) is the one scrubber hosts and plugins
apply to text they log, journal or hand across the boundary.

Importing this package has no side effects.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from .lazy import load_name

if TYPE_CHECKING:
    from types import ModuleType

    from . import client, compaction, llm, plugin, process, session, settings, subagent, tool  # noqa: F401
    from .errors import (
        AgentError,
        CommandError,
        DshError,
        JsonDataError,
        LlmError,
        ManualCompactionError,
        PluginError,
        ProfileError,
        SessionError,
        SessionFormatError,
        SettingsConflictError,
        SettingsError,
        SubagentError,
        ToolArgsError,
        ToolError,
    )
    from .markers import (
        BUNDLES_ENTRY_POINT_GROUP,
        PLUGINS_ENTRY_POINT_GROUP,
        PROJECT_NAME,
        event_types,
        hookimpl,
        hookspec,
    )
    from .scrub import scrub_text

    #: Every module holding hook specifications, in documentation order.
    SPEC_MODULES: tuple[ModuleType, ...]

#: where each name of this package lives: importing one submodule (the errors
#: a Stop hook raises) must not load the whole contract (the value types, the
#: spec modules, pluggy), so names load on first use (PEP 562)
_SPEC_MODULE_NAMES = ("plugin", "session", "tool", "settings", "subagent", "llm", "client", "process", "compaction")
_ERRORS = (
    "AgentError",
    "CommandError",
    "DshError",
    "JsonDataError",
    "LlmError",
    "ManualCompactionError",
    "PluginError",
    "ProfileError",
    "SessionError",
    "SessionFormatError",
    "SettingsConflictError",
    "SettingsError",
    "SubagentError",
    "ToolArgsError",
    "ToolError",
)
_MARKERS = (
    "BUNDLES_ENTRY_POINT_GROUP",
    "PLUGINS_ENTRY_POINT_GROUP",
    "PROJECT_NAME",
    "event_types",
    "hookimpl",
    "hookspec",
)
_HOMES: dict[str, str] = {
    **{name: ".errors" for name in _ERRORS},
    **{name: ".markers" for name in _MARKERS},
    "scrub_text": ".scrub",
}


def __getattr__(name: str) -> Any:
    if name == "SPEC_MODULES":
        value: Any = tuple(import_module(f".{module}", __name__) for module in _SPEC_MODULE_NAMES)
    elif name in _SPEC_MODULE_NAMES:
        value = import_module(f".{name}", __name__)
    elif name in _HOMES:
        value = load_name(__name__, _HOMES[name], name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value  # later lookups are plain attribute reads
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


__all__ = [
    "AgentError",
    "BUNDLES_ENTRY_POINT_GROUP",
    "CommandError",
    "DshError",
    "JsonDataError",
    "LlmError",
    "ManualCompactionError",
    "PLUGINS_ENTRY_POINT_GROUP",
    "PROJECT_NAME",
    "PluginError",
    "ProfileError",
    "SPEC_MODULES",
    "SessionError",
    "SessionFormatError",
    "SettingsConflictError",
    "SettingsError",
    "SubagentError",
    "ToolArgsError",
    "ToolError",
    "event_types",
    "hookimpl",
    "hookspec",
    "scrub_text",
]
