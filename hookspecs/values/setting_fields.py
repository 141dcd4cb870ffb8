"""One declarative description per settings field: validation, messages and JSON Schema come from it.

A settings class subclasses :class:`Settings` and declares each
field with :func:`setting`: the wire name (``alias``), default, description and
bounds, in one call. Its annotation gives the kind (``bool``, ``int``,
``float``, ``str``, ``tuple[str, ...]`` or a ``Literal`` of strings; ``| None``
when the default is ``None``)::

    class Limits(Settings):
        max_report_chars: int = setting(alias="maxReportChars", default=0, minimum=0,
                                        description="Reports longer than this are cut. 0: no limit.")

From that description come the field's validator (and its one-line message,
which names the key), the JSON Schema keywords forms read
(:meth:`SettingField.json_keywords`) and, through ``settings_key``, the key
documents use. Each subclass is made an ``attrs.frozen(kw_only=True)`` class;
type checkers know the alias as the constructor keyword (PEP 681).
"""

from __future__ import annotations

import math
import re
import types
import typing
from collections.abc import Mapping
from typing import Any, ClassVar, Final, Literal, TypeVar, dataclass_transform

import attrs

from ..scrub import scrub_text
from .wire import describe_value

T = TypeVar("T")
S = TypeVar("S")

Kind = Literal["boolean", "integer", "number", "string", "strings", "choice"]

#: the metadata key holding a field's :class:`SettingField`
SETTING: Final = "setting"
#: how much of a refused value a message repeats
_SHOWN_LIMIT: Final = 80


@attrs.frozen(kw_only=True)
class SettingField:
    """What one settings field is: the single source of its checks, messages and schema.

    :param key: the wire name (documents, forms, tools, messages).
    :param kind: from the annotation; ``choices`` too, for a ``Literal``.
    :param optional: ``None`` is accepted (the default is ``None``).
    :param finite: numbers only: NaN and infinities are refused. ``False`` passes
        them on (for a caller that replaces them, or a seed).
    :param non_empty: strings only: a blank string is refused.
    :param pattern: strings only: a regular expression the whole string must match,
        and ``shape``, what such a string is (``a provider/model route``).
    :param why_minimum: said after the bound when a value is below ``minimum``.
    :param unbounded: why a number has no bounds (a seed); numbers need bounds or this.
    :param removed: the field is gone; any value but ``None`` is refused with this advice.
    """

    key: str
    kind: Kind
    description: str
    optional: bool = False
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[str, ...] = ()
    finite: bool = True
    non_empty: bool = False
    pattern: str = ""
    shape: str = ""
    why_minimum: str = ""
    unbounded: str = ""
    removed: str = ""

    def requirement(self) -> str:
        """What a valid value is, as a message says it (``an integer >= 1``)."""
        if self.kind == "boolean":
            return "true or false"
        if self.kind == "choice":
            return "one of " + ", ".join(repr(choice) for choice in self.choices)
        if self.kind == "strings":
            return "a list of strings"
        if self.kind == "string":
            return self.shape or ("a non-empty string" if self.non_empty else "a string")
        noun = "an integer" if self.kind == "integer" else "a finite number" if self.finite else "a number"
        low, high = self.minimum, self.maximum
        if low is not None and high is not None:
            return f"{noun} from {_number(low)} to {_number(high)}"
        if low is not None:
            return f"{noun} >= {_number(low)}"
        return f"{noun} <= {_number(high)}" if high is not None else noun

    def problem(self, value: object) -> str | None:
        """Why ``value`` is refused, in one line naming the key; None when it is valid."""
        if value is None and (self.optional or self.removed):
            return None
        if self.removed:
            return f"{self.key} was removed: {self.removed}"
        if not self.has_kind(value):
            return self._refusal(value)
        if self.kind == "choice" and value not in self.choices:
            return self._refusal(value)
        if self.kind == "string" and self.non_empty and not str(value).strip():
            return self._refusal(value)
        if self.kind == "string" and self.pattern and not re.fullmatch(self.pattern, str(value)):
            return self._refusal(value)
        if self.kind in ("integer", "number"):
            return self._bounds_problem(typing.cast(float, value))
        return None

    def json_keywords(self) -> dict[str, Any]:
        """The JSON Schema keywords of the description and bounds (the type comes from the annotation)."""
        out: dict[str, Any] = {"description": self.description}
        if self.minimum is not None:
            out["minimum"] = self.minimum
        if self.maximum is not None:
            out["maximum"] = self.maximum
        if self.kind == "string" and self.non_empty:
            out["minLength"] = 1
        if self.kind == "string" and self.pattern:
            out["pattern"] = f"^(?:{self.pattern})$"  # JSON Schema patterns match anywhere
        return out

    def has_kind(self, value: object) -> bool:
        """Whether ``value`` has the field's type (bounds aside)."""
        if self.kind == "boolean":
            return isinstance(value, bool)
        if self.kind in ("string", "choice"):
            return isinstance(value, str)
        if self.kind == "strings":
            return isinstance(value, tuple) and all(isinstance(item, str) for item in value)
        if isinstance(value, bool):  # an int to Python, never a number setting
            return False
        return isinstance(value, int) if self.kind == "integer" else isinstance(value, int | float)

    def _bounds_problem(self, value: float) -> str | None:
        if not math.isfinite(value):
            return self._refusal(value) if self.finite else None
        if self.minimum is not None and value < self.minimum:
            return self._refusal(value, why=self.why_minimum)
        if self.maximum is not None and value > self.maximum:
            return self._refusal(value)
        return None

    def _refusal(self, value: object, *, why: str = "") -> str:
        # a number as written (YAML's 0 reaches a float field as 0.0); anything else described, bounded
        number = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
        shown = _number(typing.cast(float, value)) if number else scrub_text(describe_value(value), limit=_SHOWN_LIMIT)
        return f"{self.key} must be {self.requirement()}{f' ({why})' if why else ''}, got {shown}"


def _number(bound: float) -> str:
    return str(int(bound)) if float(bound).is_integer() else repr(bound)


class _Slot:
    """What :func:`setting` declared, until :class:`Settings` completes it
    from the annotation (attrs copies the metadata mapping, not this object)."""

    def __init__(self, declared: dict[str, Any]) -> None:
        self.declared = declared
        self.described: SettingField | None = None


def evolve_settings(value: S, changes: Mapping[str, Any]) -> S:
    """``attrs.evolve`` for a :class:`Settings` value, ``changes`` by key
    (type checkers do not see such a class as attrs, so ``attrs.evolve`` is refused)."""
    evolved: S = attrs.evolve(typing.cast(Any, value), **changes)
    return evolved


def setting_of(field: attrs.Attribute[Any]) -> SettingField | None:
    """The description of a field declared with :func:`setting`, else None."""
    slot = field.metadata.get(SETTING)
    return slot.described if isinstance(slot, _Slot) else None


def setting_fields(cls: type) -> dict[str, SettingField]:
    """``{attribute name: description}`` of a :class:`Settings` class."""
    return {field.name: described for field in attrs.fields(cls) if (described := setting_of(field)) is not None}


def override_of(base: SettingField) -> Any:
    """Declare a field that overrides ``base`` from another layer: the same key,
    description and bounds, default ``None`` (unset: the other layer's value).
    Its annotation gives its own kind (an ``int | None`` over a ``float`` is whole).
    Type checkers see the attribute name as its keyword, the runtime the key:
    such values are built from documents (or ``evolve_settings``), not by keyword."""
    return setting(
        alias=base.key, default=None, description=base.description, minimum=base.minimum, maximum=base.maximum,
        non_empty=base.non_empty, pattern=base.pattern, shape=base.shape, why_minimum=base.why_minimum,
        unbounded=base.unbounded,
    )  # fmt: skip


def setting(
    *,
    alias: str,
    default: T,
    description: str,
    minimum: float | None = None,
    maximum: float | None = None,
    finite: bool = True,
    non_empty: bool = False,
    pattern: str = "",
    shape: str = "",
    why_minimum: str = "",
    unbounded: str = "",
    removed: str = "",
) -> T:
    """Declare one field of a :class:`Settings` class (parameters: :class:`SettingField`)."""
    declared = dict(
        key=alias, description=description, optional=default is None, minimum=minimum, maximum=maximum,
        finite=finite, non_empty=non_empty, pattern=pattern, shape=shape, why_minimum=why_minimum,
        unbounded=unbounded, removed=removed,
    )  # fmt: skip
    metadata = {SETTING: _Slot(declared), "description": description}
    field: Any = attrs.field(alias=alias, default=default, converter=_as_tuple, validator=_validate, metadata=metadata)
    return typing.cast(T, field)


def _as_tuple(value: object) -> object:
    # lists from Python callers become tuples, so a value stays immutable and hashable
    return tuple(value) if isinstance(value, list) else value


def _validate(_: object, attribute: attrs.Attribute[Any], value: object) -> None:
    described = setting_of(attribute)
    if described is None:
        raise TypeError(f"{attribute.name}: its class does not subclass Settings")
    problem = described.problem(value)
    if problem is not None:
        raise (ValueError if described.has_kind(value) else TypeError)(problem)


@dataclass_transform(frozen_default=True, kw_only_default=True, field_specifiers=(setting,))
class Settings:
    """Base of a settings class: each subclass becomes a frozen attrs class
    (``kw_only``) whose fields are :func:`setting` declarations.

    Subclassing raises ``TypeError`` at import when a field is declared
    otherwise, when an annotation is not a settings kind, or when it allows
    ``None`` other than exactly when the default is ``None``.
    """

    # what attrs adds; declared so type checkers accept these classes in attrs.fields()
    __attrs_attrs__: ClassVar[tuple[Any, ...]]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # in place (no slots): the class being created stays the class
        _complete(attrs.resolve_types(attrs.frozen(kw_only=True, slots=False)(cls)))


def _complete(built: type) -> None:
    for field in attrs.fields(built):
        slot = field.metadata.get(SETTING)
        where = f"{built.__name__}.{field.name}"
        if not isinstance(slot, _Slot):
            raise TypeError(f"{where}: declare it with setting(...)")
        kind, choices, optional = _kind_of(field.type)
        if kind is None:
            raise TypeError(f"{where}: {field.type!r} is not a settings type")
        if optional != slot.declared["optional"]:
            raise TypeError(f"{where}: the annotation must allow None exactly when the default is None")
        slot.described = SettingField(kind=kind, choices=choices, **slot.declared)


_KINDS: Final[dict[Any, Kind]] = {bool: "boolean", int: "integer", float: "number", str: "string"}


def _kind_of(tp: Any) -> tuple[Kind | None, tuple[str, ...], bool]:
    """(kind, choices, optional) of an annotation; kind None when it is no settings type."""
    members = typing.get_args(tp) if typing.get_origin(tp) in (typing.Union, types.UnionType) else (tp,)
    optional = type(None) in members
    rest = [member for member in members if member is not type(None)]
    if len(rest) != 1:
        return None, (), optional
    (only,) = rest
    if only in _KINDS:
        return _KINDS[only], (), optional
    args = typing.get_args(only)
    if typing.get_origin(only) is tuple and args == (str, Ellipsis):
        return "strings", (), optional
    if typing.get_origin(only) is Literal and all(isinstance(arg, str) for arg in args):
        return "choice", tuple(args), optional
    return None, (), optional
