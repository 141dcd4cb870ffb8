"""Plain-data views of definitions and settings for people and models.

Holdout keys and source paths never appear here.
"""

from __future__ import annotations

from typing import Any

import attrs

from hookspecs.values import settings_key

from .definitions import ShadowDefinition, serialize_definition
from .settings import ShadowMindSettings


def definition_view(definition: ShadowDefinition) -> dict[str, Any]:
    return {
        "id": definition.id,
        "name": definition.name,
        "enabled": definition.enabled,
        "debug": definition.debug,
        "activation_probability": definition.activation_probability,
        "active_for_models": list(definition.active_for_models),
        "run_with_model": definition.run_with_model,
        "reasoning_effort": definition.reasoning_effort,
        "timeout_seconds": definition.timeout_seconds,
        "tools": list(definition.tools),
        "capture": definition.capture,
        "context": definition.context,
        "think_first": definition.think_first,
        "holdout": definition.holdout,
        "prompt": definition.prompt,
    }


def definition_text(definition: ShadowDefinition) -> str:
    return serialize_definition(definition)


def settings_view(settings: ShadowMindSettings) -> dict[str, Any]:
    """Every setting by its key (``maxReportChars``), in field order."""
    out: dict[str, Any] = {}
    for field in attrs.fields(ShadowMindSettings):
        value = getattr(settings, field.name)
        out[settings_key(field)] = list(value) if isinstance(value, tuple) else value
    return out
