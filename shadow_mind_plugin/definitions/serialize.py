"""The canonical on-disk form of a definition.

Sorted keys; ``id``, ``name``, ``enabled``, ``debug`` and
``activation_probability`` always present; every other key only when it says
something (non-empty list, set override, non-default enum, true flag); then a
blank line and the trimmed prompt. The text is re-parsed before it is returned,
so nothing invalid or lossy is ever written.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError
from ruamel.yaml.representer import SafeRepresenter

from ..routes import js_trim
from .errors import DefinitionError
from .model import ShadowDefinition
from .parse import parse_definition

#: Whole floats below this are written as integers (``timeout_seconds: 30``);
#: larger ones keep float notation to stay short.
_INT_LIMIT = 10**15


class _Representer(SafeRepresenter):
    """Double-quotes strings holding NEL/LS/PS: with ``allow_unicode`` the emitter
    would otherwise write them raw inside a plain or single-quoted scalar, where
    the loader folds them as line breaks (the value would not read back)."""


def _represent_str(representer: SafeRepresenter, data: str) -> Any:
    style = '"' if any(ch in data for ch in _YAML_BREAKS) else None
    return representer.represent_scalar("tag:yaml.org,2002:str", data, style=style)


_YAML_BREAKS = ("\x85", "\u2028", "\u2029")
_Representer.add_representer(str, _represent_str)


def definition_metadata(definition: ShadowDefinition) -> dict[str, Any]:
    """The frontmatter mapping (file spelling) of ``definition``."""
    meta: dict[str, Any] = {
        "id": definition.id,
        "name": definition.name,
        "enabled": definition.enabled,
        "debug": definition.debug,
        "activation_probability": _number(definition.activation_probability),
    }
    if definition.active_for_models:
        meta["active_for_models"] = list(definition.active_for_models)
    if definition.run_with_model is not None:
        meta["run_with_model"] = definition.run_with_model
    if definition.reasoning_effort is not None:
        meta["reasoning_effort"] = definition.reasoning_effort
    if definition.timeout_seconds is not None:
        meta["timeout_seconds"] = _number(definition.timeout_seconds)
    if definition.tools:
        meta["tools"] = list(definition.tools)
    if definition.capture != "full":
        meta["capture"] = definition.capture
    if definition.context != "standard":
        meta["context"] = definition.context
    if definition.think_first:
        meta["think_first"] = True
    if definition.holdout:
        meta["holdout"] = True
    if definition.reviewer != "model":
        meta["reviewer"] = definition.reviewer
    if definition.review_on_check != "off":
        meta["review_on_check"] = definition.review_on_check
    return dict(sorted(meta.items()))


def render_definition(definition: ShadowDefinition) -> str:
    """The canonical text, without validation (see :func:`serialize_definition`)."""
    yaml = YAML(typ="safe", pure=True)
    yaml.Representer = _Representer
    yaml.default_flow_style = False
    yaml.allow_unicode = True
    yaml.width = 1 << 16  # never fold long names/routes over several lines
    yaml.indent(mapping=2, sequence=4, offset=2)
    buffer = io.StringIO()
    try:
        yaml.dump(definition_metadata(definition), buffer)
    except YAMLError as exc:  # a value of a type YAML cannot represent
        raise DefinitionError(f"definition cannot be written as YAML: {exc}", source=f"{definition.id}.md") from None
    return f"---\n{buffer.getvalue().rstrip()}\n---\n\n{js_trim(definition.prompt)}\n"


def serialize_definition(definition: ShadowDefinition) -> str:
    """The canonical text of ``definition``; raises :class:`DefinitionError` when
    the definition breaks a parse rule. ``parse(serialize(d)) == d`` whenever
    ``d`` is already normalized (e.g. came from the parser)."""
    label = Path(f"{definition.id}.md")
    # validate (this also normalizes: trimmed strings, floats), then write the
    # parsed value, as the reference does
    parsed = parse_definition(render_definition(definition), label)
    text = render_definition(parsed)
    if parse_definition(text, label) != parsed:  # guards against a lossy YAML dump
        raise DefinitionError("definition does not survive serialization unchanged", source=label.name)
    return text


def _number(value: float) -> int | float:
    if isinstance(value, float) and value.is_integer() and abs(value) < _INT_LIMIT:
        return int(value)
    return value
