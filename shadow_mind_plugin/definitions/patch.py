"""Apply a partial update to the default definition (``save_default`` with a mapping).

A patch uses the file spelling (snake_case frontmatter keys plus ``prompt``).
An absent key keeps the current value; ``None`` clears the optional overrides
``run_with_model``, ``reasoning_effort`` and ``timeout_seconds``. Values are
checked by the same rules as a definition file.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from .errors import DefinitionError
from .model import ShadowDefinition
from .parse import FIELD_KEYS, definition_from_fields
from .serialize import definition_metadata

PATCH_KEYS: Final = FIELD_KEYS | {"prompt"}
CLEARABLE_KEYS: Final = frozenset({"run_with_model", "reasoning_effort", "timeout_seconds"})


def apply_patch(current: ShadowDefinition, patch: Mapping[str, Any], path: Path) -> ShadowDefinition:
    """``current`` with ``patch`` merged over it, validated; ``path`` is where it will live."""
    unknown = sorted(str(k) for k in patch if k not in PATCH_KEYS)
    if unknown:
        raise DefinitionError(f"unknown definition field(s): {', '.join(unknown)}", source=path.name)
    fields = definition_metadata(current)
    prompt = current.prompt
    for key, value in patch.items():
        if key == "prompt":
            if not isinstance(value, str):
                raise DefinitionError("prompt must be a string", source=path.name)
            prompt = value
        elif value is None and key in CLEARABLE_KEYS:
            fields.pop(key, None)
        else:
            fields[key] = list(value) if isinstance(value, tuple) else value
    return definition_from_fields(fields, prompt, path)
