"""The reference host's LLM runtime: routes, the adapter registry and the
scripted provider used by tests and demos."""

from __future__ import annotations

from .routes import format_route, parse_route
from .script import ScriptError
from .scripted import ScriptedAdapter, ScriptedLlmConfig, ScriptedLlmPlugin
from .service import LlmService

__all__ = [
    "LlmService",
    "ScriptError",
    "ScriptedAdapter",
    "ScriptedLlmConfig",
    "ScriptedLlmPlugin",
    "format_route",
    "parse_route",
]
