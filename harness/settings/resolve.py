"""Layer resolution for one namespace: defaults < base < user, validated strictly.

Errors name ``<namespace>.<key>``: cattrs reports type errors with a path, but
attrs validators run inside ``__init__`` where the field is lost, so each field
is first structured and validated on its own. Layers are keyed by field keys
(an explicit alias, else the attribute name; see ``.fields``).
"""

from __future__ import annotations

import types
import typing
from collections.abc import Mapping, Sequence
from typing import Any

import attrs
import cattrs

from hookspecs.errors import SettingsError
from hookspecs.values.settings import SettingsSpec, settings_key
from hookspecs.values.wire import describe_errors, structure

from .fields import probe_of, validator_problem


class InvalidSettings(SettingsError):
    """A layer has invalid fields; ``problems`` lists each as ``<ns>.<field>: why``."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems: tuple[str, ...] = tuple(problems)
        super().__init__("; ".join(self.problems))


@attrs.frozen(kw_only=True)
class Resolved:
    """A resolved value (healed), its heal notes and the ignored unknown user fields."""

    value: Any
    notes: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()


class Resolver:
    """Resolves one namespace; built once at registration."""

    def __init__(self, spec: SettingsSpec, converter: cattrs.Converter) -> None:
        self.spec = spec
        self.namespace = spec.namespace
        self._converter = converter
        #: the schema's fields by key
        self.fields: dict[str, attrs.Attribute[Any]] = {settings_key(field): field for field in attrs.fields(spec.schema)}
        by_name = {field.name: key for key, field in self.fields.items()}
        #: ``spec.secrets`` as keys (an aliased field may be named by its attribute)
        self.secrets: tuple[str, ...] = tuple(
            secret if secret in self.fields else by_name.get(secret, secret) for secret in spec.secrets
        )

    def check_layer(self, layer: Mapping[str, Any], *, allow_unknown: bool) -> tuple[dict[str, Any], list[str]]:
        """Validate each field of ``layer`` alone; returns the known fields and the
        unknown-field notices. Raises ``InvalidSettings`` naming every bad field."""
        known: dict[str, Any] = {}
        unknown: list[str] = []
        errors: list[str] = []
        for key, raw in layer.items():
            if key not in self.fields:
                if allow_unknown:
                    unknown.append(f"unknown field {self.namespace}.{key} ignored")
                else:
                    errors.append(f"{self.namespace}.{key}: unknown field")
                continue
            errors.extend(self._field_errors(key, raw))
            known[key] = raw
        if errors:
            raise InvalidSettings(errors)
        return known, unknown

    def build(self, base: Mapping[str, Any], user: Mapping[str, Any]) -> Resolved:
        """Merge field by field and build the schema instance (no heal, no check).

        ``base`` must already be checked; unknown ``user`` fields are ignored and
        reported in ``problems``.
        """
        user_known, unknown = self.check_layer(user, allow_unknown=True)
        merged = {**base, **user_known}
        value = structure(self._converter, merged, self.spec.schema, where=self.namespace, error=SettingsError)
        return Resolved(value=value, problems=tuple(unknown))

    def settle(self, base: Mapping[str, Any], user: Mapping[str, Any]) -> Resolved:
        """``build``, then heal, then the cross-field check: for layers nobody
        validated on the way in (a hand-edited file, a profile row). A value that
        heal cannot bring within ``check`` is invalid."""
        built = self.build(base, user)
        value, notes = self.heal(built.value)
        self.raise_on_check(value)
        return Resolved(value=value, notes=notes, problems=built.problems)

    def heal(self, value: Any) -> tuple[Any, tuple[str, ...]]:
        if self.spec.heal is None:
            return value, ()
        try:
            healed, notes = self.spec.heal(value)
        except Exception as exc:  # a plugin bug must not take the document down with it
            raise SettingsError(f"{self.namespace}: heal failed: {exc!r}") from exc
        return healed, tuple(f"{self.namespace}: {note}" for note in notes)

    def check(self, value: Any) -> list[str]:
        if self.spec.check is None:
            return []
        try:
            problems = list(self.spec.check(value))
        except Exception as exc:
            raise SettingsError(f"{self.namespace}: check failed: {exc!r}") from exc
        return [f"{self.namespace}: {problem}" for problem in problems]

    def raise_on_check(self, value: Any) -> None:
        problems = self.check(value)
        if problems:
            raise InvalidSettings(problems)

    def unstructure(self, value: Any) -> dict[str, Any]:
        out = self._converter.unstructure(value)
        assert isinstance(out, dict)
        return out

    def _field_errors(self, key: str, raw: Any) -> list[str]:
        field = self.fields[key]
        where = f"{self.namespace}.{key}"
        tp: Any = field.type  # resolved at registration
        try:
            value = self._converter.structure(raw, tp)
        except Exception as exc:  # cattrs raises plain errors and exception groups
            if "not in literal" in str(exc):  # a bare Literal error does not say what is allowed
                return [f"{where}: invalid value; expected one of {_literal_options(tp)}"]
            return [_qualify(where, message) for message in describe_errors(exc)]
        if field.validator is None:
            return []
        problem = validator_problem(field, key, value, probe_of(self.spec.schema))
        return [] if problem is None else [f"{where}: {problem}"]


def _qualify(where: str, message: str) -> str:
    """``'<why> @ $.a[1]'`` -> ``'<where>.a[1]: <why>'``."""
    why, sep, path = message.rpartition(" @ $")
    if not sep:
        return f"{where}: {message}"
    return f"{where}{path}: {why}"


def _literal_options(tp: Any) -> str:
    """The allowed values of a ``Literal`` field (also inside ``Literal[...] | None``)."""
    union = typing.get_origin(tp) in (typing.Union, types.UnionType)
    members = typing.get_args(tp) if union else (tp,)
    options = [opt for member in members if typing.get_origin(member) is typing.Literal for opt in typing.get_args(member)]
    return ", ".join(repr(option) for option in options)
