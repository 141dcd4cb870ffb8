"""Schema fields as documents see them: their keys and their defaults.

A field's key is its explicit attrs ``alias``, else its name
(:func:`hookspecs.values.settings.settings_key`). :func:`use_keys` teaches the
settings converter to read and write those keys, nested classes included;
classes without aliases keep cattrs' stock handling.

attrs validators run inside ``__init__``, where cattrs loses which field
failed (``invalid value @ $``); :func:`validator_problem` runs one field's
validator alone, so settings and profile-row config both name the field.

:func:`keyed_converter` is the one converter of both: a settings namespace's
schema is often also its plugin row's ``config_schema``, and cattrs generates
(compiles) a class's structuring code once per converter.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any

import attrs
import cattrs
from cattrs.errors import AttributeValidationNote
from cattrs.gen import make_dict_structure_fn, make_dict_unstructure_fn, override

from hookspecs.values.settings import settings_key
from hookspecs.values.wire import make_converter


def renames(cls: type) -> dict[str, str]:
    """``{attribute name: key}`` for the fields of ``cls`` whose key is not their name."""
    return {field.name: key for field in attrs.fields(cls) if (key := settings_key(field)) != field.name}


@functools.cache
def keyed_converter() -> cattrs.Converter:
    """The process's converter for settings documents and plugin ``config``
    blocks: strict (:func:`~hookspecs.values.wire.make_converter`), keyed by
    field key (:func:`use_keys`). Shared, so each schema's structuring code is
    generated once per process, not once per host and once more per use; nothing
    registers further hooks on it."""
    converter = make_converter()
    use_keys(converter)
    return converter


def use_keys(converter: cattrs.Converter) -> None:
    """Structure and unstructure attrs classes by field key.

    Each class's hooks are made once: cattrs forgets the hooks it cached
    whenever it makes one for a mapping or a tuple, and would otherwise call
    these factories (and generate and compile the code) again.
    """
    structures: dict[type, Callable[[Any, Any], Any]] = {}
    unstructures: dict[type, Callable[[Any], Any]] = {}

    def aliased(tp: Any) -> bool:
        return isinstance(tp, type) and attrs.has(tp) and bool(renames(tp))

    def structure_hook(cls: type) -> Any:
        made = structures.get(cls)
        if made is not None:
            return made
        keys = renames(cls)
        structure: Callable[[Any, Any], Any] = make_dict_structure_fn(cls, converter, **_overrides(keys))

        def by_key(data: Any, tp: Any) -> Any:
            try:
                return structure(data, tp)
            except cattrs.ClassValidationError as exc:
                _name_keys_in_paths(exc, keys)
                raise

        structures[cls] = by_key
        return by_key

    def unstructure_hook(cls: type) -> Any:
        made = unstructures.get(cls)
        if made is None:
            made = unstructures[cls] = make_dict_unstructure_fn(cls, converter, **_overrides(renames(cls)))
        return made

    converter.register_structure_hook_factory(aliased, structure_hook)
    converter.register_unstructure_hook_factory(aliased, unstructure_hook)


def _overrides(keys: dict[str, str]) -> dict[str, Any]:
    return {name: override(rename=key) for name, key in keys.items()}


def _name_keys_in_paths(exc: cattrs.ClassValidationError, keys: dict[str, str]) -> None:
    """cattrs records the failing *attribute* of each error, and error paths are
    built from that; make them name the key instead."""
    for error in exc.exceptions:
        notes = getattr(error, "__notes__", None)
        if notes:
            error.__notes__ = [
                AttributeValidationNote(str(note), keys[note.name], note.type)
                if isinstance(note, AttributeValidationNote) and note.name in keys
                else note
                for note in notes
            ]


def default_of(field: attrs.Attribute[Any], instance: Any = attrs.NOTHING) -> Any:
    """The field's default value; a factory taking ``self`` needs ``instance``
    (without one the result is ``attrs.NOTHING``)."""
    default: Any = field.default
    if not isinstance(default, attrs.Factory):  # type: ignore[arg-type]
        return default
    if default.takes_self:
        return attrs.NOTHING if instance is attrs.NOTHING else default.factory(instance)
    return default.factory()


def probe_of(cls: type) -> Any:
    """An uninitialised ``cls`` holding each field's default: what validators
    get as ``instance`` when a field is checked before any real instance exists
    (stock validators ignore it)."""
    probe: Any = object.__new__(cls)
    for field in attrs.fields(cls):
        object.__setattr__(probe, field.name, default_of(field, probe))
    return probe


def validator_problem(field: attrs.Attribute[Any], key: str, value: Any, probe: Any) -> str | None:
    """What ``field``'s validator says about an already structured ``value``,
    with the attribute named ``key`` (validators name the attribute they get)."""
    if field.validator is None:
        return None
    attribute = field if key == field.name else field.evolve(name=key)
    try:
        field.validator(probe, attribute, value)
    except Exception as exc:  # stock validators raise ValueError/TypeError; custom ones anything
        return str(exc) or type(exc).__name__
    return None


def validator_problems(converter: cattrs.Converter, cls: type, data: Mapping[str, Any]) -> list[str]:
    """``'<why> @ $.<key>'`` for each key of ``data`` whose value has its field's
    type but fails the field's validator (type errors are left to cattrs, which
    already names their path)."""
    fields = {settings_key(field): field for field in attrs.fields(attrs.resolve_types(cls))}
    probe = None
    problems: list[str] = []
    for key, raw in data.items():
        field = fields.get(key) if isinstance(key, str) else None
        if field is None or field.validator is None:
            continue
        try:
            value = converter.structure(raw, field.type)
        except Exception:
            continue
        probe = probe_of(cls) if probe is None else probe
        problem = validator_problem(field, key, value, probe)
        if problem is not None:
            problems.append(f"{problem} @ $.{key}")
    return problems
