"""The reference host's LLM runtime: routes, the adapter registry and the
scripted provider used by tests and demos.

The names are loaded on first use: the host needs only the service and the
routes, and a profile without the scripted provider must not pay for its
script parser (a few attrs classes and a converter) at every start.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "LlmService",
    "ScriptError",
    "ScriptedAdapter",
    "ScriptedLlmConfig",
    "ScriptedLlmPlugin",
    "format_route",
    "parse_route",
]

_WHERE = {
    "LlmService": "service",
    "ScriptError": "script",
    "ScriptedAdapter": "scripted",
    "ScriptedLlmConfig": "scripted",
    "ScriptedLlmPlugin": "scripted",
    "format_route": "routes",
    "parse_route": "routes",
}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    return getattr(import_module(f"{__name__}.{module}"), name)
