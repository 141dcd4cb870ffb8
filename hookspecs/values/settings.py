"""Settings namespaces: schema, operations and the descriptors forms read."""

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
        validators run on every layer.
    :param check: cross-field rules; writes (``mutate``) that break them are
        rejected with the returned messages.
    :param heal: applied to the resolved value when a hand-edited document breaks
        a cross-field rule; its notes are reported by ``describe()``.
    :param secrets: field names redacted by ``describe(redact_secrets=True)``.
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
    """One write: ``set`` a field to ``value`` or ``unset`` it (back to base/default)."""

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

    ``value`` is the resolved JSON value; ``base`` the profile layer; ``user``
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
