"""Reviewer definitions: parsing, canonical files, the ``shadow-minds`` store,
the holdout sidecar, journals and the packaged starters."""

from __future__ import annotations

from .errors import DefinitionError, HoldoutKeyError
from .model import (
    CAPTURE_VALUES,
    CONTEXT_VALUES,
    Catalog,
    DefinitionDiagnostic,
    ShadowDefinition,
    is_shadow_id,
)
from .parse import definition_from_fields, parse_definition
from .registry import ShadowRegistry
from .seed import DEFAULT_PROMPT, builtin_default
from .serialize import serialize_definition
from .starters import list_starters, load_starter

__all__ = [
    "CAPTURE_VALUES",
    "CONTEXT_VALUES",
    "DEFAULT_PROMPT",
    "Catalog",
    "DefinitionDiagnostic",
    "DefinitionError",
    "HoldoutKeyError",
    "ShadowDefinition",
    "ShadowRegistry",
    "builtin_default",
    "definition_from_fields",
    "is_shadow_id",
    "list_starters",
    "load_starter",
    "parse_definition",
    "serialize_definition",
]
