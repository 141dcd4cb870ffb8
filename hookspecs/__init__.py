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

from types import ModuleType

from . import client, compaction, llm, plugin, process, session, settings, subagent, tool
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
from .markers import BUNDLES_ENTRY_POINT_GROUP, PLUGINS_ENTRY_POINT_GROUP, PROJECT_NAME, event_types, hookimpl, hookspec
from .scrub import scrub_text

#: Every module holding hook specifications, in documentation order.
SPEC_MODULES: tuple[ModuleType, ...] = (plugin, session, tool, settings, subagent, llm, client, process, compaction)

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
