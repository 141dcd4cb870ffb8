"""Parse one definition document: Markdown with a YAML frontmatter block.

The rules (and their messages) follow the reference registry exactly; the
first broken rule is reported. Errors name the field; :class:`DefinitionError`
adds the file name.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final, NoReturn

from ruamel.yaml import YAML
from ruamel.yaml.constructor import SafeConstructor

from hookspecs.values.wire import describe_yaml_error

from ..routes import js_trim, normalize_route
from ..vocabulary import DEFAULT_ACTIVATION_PROBABILITY
from .errors import DefinitionError
from .model import (
    CAPTURE_VALUES,
    CONTEXT_VALUES,
    REVIEW_ON_CHECK_VALUES,
    REVIEWER_VALUES,
    SHADOW_ID_PATTERN_TEXT,
    TOOL_NAME_PATTERN,
    TOOL_NAME_PATTERN_TEXT,
    ShadowDefinition,
    is_shadow_id,
)

__all__ = [
    "DefinitionError",
    "FIELD_KEYS",
    "LEGACY_KEYS",
    "definition_from_fields",
    "load_frontmatter",
    "parse_definition",
    "split_document",
]

FIELD_KEYS: Final = frozenset(
    {
        "id",
        "name",
        "enabled",
        "debug",
        "activation_probability",
        "active_for_models",
        "run_with_model",
        "reasoning_effort",
        "timeout_seconds",
        "tools",
        "capture",
        "context",
        "think_first",
        "holdout",
        "reviewer",
        "review_on_check",
    }
)
#: Keys of removed features: still accepted (so old files keep loading), ignored.
LEGACY_KEYS: Final = frozenset({"agent_preset", "pre_filter", "boost_filter", "boost_factor"})

_OPEN: Final = "---\n"
_CLOSE: Final = "\n---\n"
_ABSENT: Final = object()
#: The frontmatter starts on the document's second line.
_YAML_LINE_OFFSET: Final = 2


class _Rule(Exception):
    """A broken rule; converted to DefinitionError where the file is known."""


def _fail(reason: str) -> NoReturn:
    raise _Rule(reason)


class _FrontmatterConstructor(SafeConstructor):
    """Safe constructor that keeps timestamps as the strings they were written as
    (YAML 1.2 core-schema behaviour), so ``name: 2024-05-01`` is a name, not a date.
    A subclass, so the shared SafeConstructor stays untouched."""


_FrontmatterConstructor.add_constructor(
    "tag:yaml.org,2002:timestamp",
    lambda self, node: self.construct_scalar(node),
)


def parse_definition(source: str, source_path: Path) -> ShadowDefinition:
    """Validate a whole document; ``source_path`` gives the default id (its
    stem) and is recorded, resolved, on the result."""
    label = Path(source_path).name
    try:
        frontmatter, body = _split(source)
        fields = _load_yaml(frontmatter)
        return _build(fields, body, Path(source_path))
    except _Rule as rule:
        raise DefinitionError(str(rule), source=label) from None


def definition_from_fields(fields: Mapping[str, Any], prompt: str, source_path: Path) -> ShadowDefinition:
    """Validate already-loaded frontmatter ``fields`` (file spelling: snake_case
    keys) and a prompt with exactly the document rules; used by saves."""
    try:
        return _build(fields, prompt, Path(source_path))
    except _Rule as rule:
        raise DefinitionError(str(rule), source=Path(source_path).name) from None


def split_document(source: str) -> tuple[str, str]:
    """``(frontmatter_yaml, body)`` of a document; line endings normalized."""
    try:
        return _split(source)
    except _Rule as rule:
        raise DefinitionError(str(rule)) from None


def load_frontmatter(text: str) -> Any:
    """Safe-load frontmatter YAML (plain dicts, lists and scalars)."""
    try:
        return _load_yaml(text)
    except _Rule as rule:
        raise DefinitionError(str(rule)) from None


def load_value(text: str) -> Any:
    """One YAML value typed outside a file (a ``/shadow`` argument: ``true``,
    ``0.5``, ``[read, grep]``), read with exactly the frontmatter's rules;
    ``DefinitionError`` gives the problem and its column on one line."""
    try:
        return _load_yaml(text, what="", first_line=1 if "\n" in text else None)
    except _Rule as rule:
        raise DefinitionError(str(rule)) from None


def _load_yaml(text: str, *, what: str = "invalid YAML frontmatter: ", first_line: int | None = _YAML_LINE_OFFSET) -> Any:
    yaml = YAML(typ="safe", pure=True)  # a fresh loader: YAML objects are not thread-safe
    yaml.Constructor = _FrontmatterConstructor
    try:
        return yaml.load(text)
    except Exception as exc:  # ruamel's errors, and plain errors its constructors leak (`!!int a`, deep nesting)
        _fail(what + describe_yaml_error(exc, first_line=first_line))


def _split(source: str) -> tuple[str, str]:
    normalized = source.replace("\r\n", "\n")
    if not normalized.startswith(_OPEN):
        _fail("definition must start with YAML frontmatter")
    closing = normalized.find(_CLOSE, len(_OPEN))
    if closing < 0:
        _fail("definition frontmatter needs a closing --- line")
    return normalized[len(_OPEN) : closing], normalized[closing + len(_CLOSE) :]


def _build(fields: Any, body: str, source_path: Path) -> ShadowDefinition:
    if not isinstance(fields, dict):
        _fail("frontmatter must be a YAML mapping")
    unknown = [str(k) for k in fields if k not in FIELD_KEYS and k not in LEGACY_KEYS]
    if unknown:
        _fail(f"unknown frontmatter field(s): {', '.join(sorted(unknown))}")

    id_ = _optional_string(fields, "id") or source_path.name.removesuffix(".md")
    if not is_shadow_id(id_):
        _fail(f"id must match {SHADOW_ID_PATTERN_TEXT}")
    name = _optional_string(fields, "name") or id_
    if "\r" in name or "\n" in name:
        _fail("name must be a single line")
    prompt = js_trim(body.replace("\r\n", "\n"))
    if not prompt:
        _fail("Markdown body must be non-empty")

    # the reference uses `??` here, so an explicit null also means "default"
    probability = fields.get("activation_probability")
    if probability is None:
        probability = DEFAULT_ACTIVATION_PROBABILITY
    if not _is_finite_number(probability) or not 0 <= probability <= 1:
        _fail("activation_probability must be a finite number from 0 through 1")
    timeout = fields.get("timeout_seconds", _ABSENT)
    if timeout is not _ABSENT and (not _is_finite_number(timeout) or timeout <= 0):
        _fail("timeout_seconds must be a positive finite number")
    tools = _string_array(fields, "tools")
    for tool in tools:
        if TOOL_NAME_PATTERN.fullmatch(tool) is None:
            _fail(f"tool {json.dumps(tool, ensure_ascii=False)} must match {TOOL_NAME_PATTERN_TEXT}")
    active_for_models = _string_array(fields, "active_for_models")

    run_with_model = _optional_string(fields, "run_with_model")
    if run_with_model is not None:
        try:
            run_with_model = normalize_route(run_with_model, "run_with_model")
        except ValueError as exc:
            _fail(str(exc))
    reasoning_effort = _optional_string(fields, "reasoning_effort")

    return ShadowDefinition(
        id=id_,
        name=name,
        enabled=_optional_bool(fields, "enabled", True),
        debug=_optional_bool(fields, "debug", False),
        activation_probability=float(probability),
        active_for_models=active_for_models,
        run_with_model=run_with_model,
        reasoning_effort=reasoning_effort,
        timeout_seconds=None if timeout is _ABSENT else float(timeout),
        tools=tools,
        capture=_choice(fields, "capture", CAPTURE_VALUES),
        context=_choice(fields, "context", CONTEXT_VALUES),
        think_first=_optional_bool(fields, "think_first", False),
        holdout=_optional_bool(fields, "holdout", False),
        reviewer=_choice(fields, "reviewer", REVIEWER_VALUES),
        review_on_check=_choice(fields, "review_on_check", REVIEW_ON_CHECK_VALUES),
        prompt=prompt,
        source_path=source_path.resolve(),
    )


def _is_finite_number(value: Any) -> bool:
    # bool is an int subclass in Python; YAML `true` is not a number
    if type(value) is int:
        try:
            float(value)  # JS would read a huge integer as Infinity
        except OverflowError:
            return False
        return True
    return type(value) is float and math.isfinite(value)


def _optional_string(fields: Mapping[str, Any], key: str) -> str | None:
    if key not in fields:
        return None
    value = fields[key]
    if not isinstance(value, str) or not js_trim(value):
        _fail(f"{key} must be a non-empty string")
    return js_trim(value)


def _optional_bool(fields: Mapping[str, Any], key: str, default: bool) -> bool:
    if key not in fields:
        return default
    value = fields[key]
    if type(value) is not bool:  # YAML 1.2: `yes`/`on` are strings
        _fail(f"{key} must be a boolean")
    return value


def _string_array(fields: Mapping[str, Any], key: str) -> tuple[str, ...]:
    if key not in fields:
        return ()
    value = fields[key]
    if not isinstance(value, list) or any(not isinstance(v, str) or not js_trim(v) for v in value):
        _fail(f"{key} must be an array of non-empty strings")
    entries = tuple(js_trim(v) for v in value)
    if len(set(entries)) != len(entries):
        _fail(f"{key} must not contain duplicates")
    return entries


def _choice(fields: Mapping[str, Any], key: str, values: tuple[str, ...]) -> Any:
    if key not in fields:
        return values[0]
    value = fields[key]
    if not isinstance(value, str) or value not in values:
        _fail(f"{key} must be one of {', '.join(values)}")
    return value
