"""Settings namespaces: schema, operations and the descriptors forms read.

A schema field's *key* — its name in ``settings.yaml``, profile config, ops,
descriptors and error messages — is its explicit attrs ``alias`` when it has
one, else its attribute name (:func:`settings_key`). That lets a schema keep
snake_case attributes behind user-facing keys in another style::

    max_report_chars: int = attrs.field(default=4000, alias="maxReportChars")
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal, TypeAlias

import attrs

#: Cross-field problems of a resolved value; a non-empty list rejects a write.
SettingsCheck: TypeAlias = Callable[[Any], Sequence[str]]

#: Repairs a resolved value; returns the healed value and one note per repair.
SettingsHeal: TypeAlias = Callable[[Any], "tuple[Any, Sequence[str]]"]


@attrs.frozen(kw_only=True)
class SettingsSpec:
    """A settings namespace.

    :param namespace: lowercase kebab-case; when it equals a profile row id, that
        row's ``config`` is the namespace's base layer.
    :param schema: an attrs class whose every field has a default; per-field
        validators run on every layer. Documents name fields by
        :func:`settings_key` (an explicit ``alias``, else the attribute name).
    :param check: cross-field rules; writes (``mutate``) that break them are
        rejected with the returned messages.
    :param heal: applied to the resolved value when a hand-edited document breaks
        a cross-field rule; its notes are reported by ``describe()``.
    :param secrets: fields redacted by ``describe(redact_secrets=True)``, by key
        (an aliased field's attribute name is accepted too).
    """

    namespace: str
    schema: type
    title: str = ""
    description: str = ""
    check: SettingsCheck | None = attrs.field(default=None, eq=False)
    heal: SettingsHeal | None = attrs.field(default=None, eq=False)
    applies: Literal["live", "restart"] = "live"
    secrets: tuple[str, ...] = ()


@attrs.frozen(kw_only=True)
class SettingsOp:
    """One write: ``set`` a field to ``value`` or ``unset`` it (back to base/default).

    ``path`` starts with the field's key (:func:`settings_key`).
    """

    op: Literal["set", "unset"]
    path: tuple[str, ...]
    value: Any = None

    @classmethod
    def set(cls, field: str, value: Any) -> SettingsOp:
        return cls(op="set", path=(field,), value=value)

    @classmethod
    def unset(cls, field: str) -> SettingsOp:
        return cls(op="unset", path=(field,))


@attrs.frozen(kw_only=True)
class SettingsDescriptor:
    """Everything a form needs to render and edit one namespace.

    Every mapping is keyed by field keys (:func:`settings_key`). ``value`` is
    the resolved JSON value; ``base`` the profile layer; ``user``
    the user document's section (fields present there count as overridden);
    ``revision`` fences writes; ``notes`` lists heals applied to the resolved
    value and ``problems`` user-document fields ignored because they are invalid.
    """

    namespace: str
    title: str
    description: str
    schema: dict[str, Any]
    value: dict[str, Any]
    base: dict[str, Any]
    user: dict[str, Any]
    revision: str
    applies: Literal["live", "restart"]
    notes: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()


def settings_key(field: attrs.Attribute[Any]) -> str:
    """The key naming a schema field in settings documents: its explicit
    ``alias`` (``attrs.field(alias="maxReportChars")``), else its attribute name.

    An alias attrs derived by itself (``_private`` -> ``private``) does not count.
    """
    alias = field.alias
    if not alias:
        return field.name
    # attrs >= 25.4 records whether the alias was given; older ones derive it by stripping underscores
    derived = getattr(field, "alias_is_default", alias == field.name.lstrip("_"))
    return field.name if derived else alias
