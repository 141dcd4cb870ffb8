"""The host's settings service: namespaces, layered resolution, the user document.

State per namespace is the profile ``base`` layer, the user section as last
read or written, and the last *good* resolved value; a hand edit that breaks a
namespace never replaces that value, it only shows up in ``problems``.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs
import trio
from ruamel.yaml.comments import CommentedMap

from hookspecs.errors import JsonDataError, SettingsConflictError, SettingsError
from hookspecs.fsutil import write_atomic
from hookspecs.values.json import check_json
from hookspecs.values.settings import SettingsDescriptor, SettingsOp, SettingsSpec, settings_key

from . import document
from .document import Section, canonical_json
from .fields import keyed_converter
from .ops import REDACTED, apply_ops
from .resolve import InvalidSettings, Resolved, Resolver
from .schema_json import schema_for_class
from .yaml_edit import append_key, delete_key, sync_mapping, to_node

_NAMESPACE = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")
_EMPTY = Section(data={})

OnUpdated = Callable[[str, Any, Any], None]


@attrs.define(eq=False)
class _Entry:
    spec: SettingsSpec
    resolver: Resolver
    schema: dict[str, Any]
    base: dict[str, Any]
    user: dict[str, Any]
    value: Any
    notes: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()
    lock: trio.Lock = attrs.field(factory=trio.Lock)


def revision_of(user: Mapping[str, Any]) -> str:
    """Content hash of a user section: stable across restarts and key order."""
    return hashlib.sha256(canonical_json(user).encode("utf-8")).hexdigest()[:16]


class SettingsService:
    """Implements ``hookspecs.protocols.SettingsService`` over one YAML document."""

    def __init__(self, *, path: Path, on_updated: OnUpdated, logger: logging.Logger | None = None) -> None:
        self._path = Path(path)
        self._on_updated = on_updated
        self._log = logger or logging.getLogger(__name__)
        # settings rules never leak into other formats; shared with plugin config,
        # whose structuring code for the same schemas is then generated only once
        self._converter = keyed_converter()
        self._entries: dict[str, _Entry] = {}
        self._sections: dict[str, Section] = {}  # the document as last read or written
        self._document_lock = trio.Lock()  # one read-modify-write of the file at a time

    # --- registration -----------------------------------------------------------------

    def register(self, spec: SettingsSpec, *, base: Mapping[str, Any] | None = None) -> Callable[[], None]:
        """Add a namespace; ``base`` is its profile row config. Returns its disposer."""
        namespace = spec.namespace
        if not isinstance(namespace, str) or not _NAMESPACE.match(namespace):
            raise SettingsError(f"settings namespace {namespace!r} must be lowercase kebab-case (like 'agent-loop')")
        if namespace in self._entries:
            raise SettingsError(f"settings namespace {namespace!r} is already registered")
        _check_schema(spec)
        resolver = Resolver(spec, self._converter)
        try:
            schema = schema_for_class(spec.schema, self._converter, title=spec.title, description=spec.description)
        except TypeError as exc:
            raise SettingsError(f"settings namespace {namespace!r}: field {exc}") from exc
        base_layer = _checked_base(resolver, base)
        entry = _Entry(spec=spec, resolver=resolver, schema=schema, base=base_layer, user={}, value=None)
        section = self._sections.get(namespace, _EMPTY)
        try:
            _commit(entry, section, self._settle(entry, section))
        except SettingsError as exc:
            if section == _EMPTY:
                raise SettingsError(f"settings namespace {namespace!r}: {exc.message}") from exc
            # Registered after the document was read and its section is broken:
            # run on defaults + base, and say why.
            _commit(entry, _EMPTY, self._settle(entry, _EMPTY))
            entry.user = dict(section.data)  # the revision still follows the file
            entry.problems = _problems_of(exc)
            self._warn_invalid(namespace, entry.problems)
        try:
            check_json(resolver.unstructure(entry.value), namespace)
        except JsonDataError as exc:  # e.g. a float('inf') default: no document could hold it
            raise SettingsError(f"settings namespace {namespace!r}: {exc.message}") from exc
        self._entries[namespace] = entry

        def dispose() -> None:
            if self._entries.get(namespace) is entry:
                del self._entries[namespace]

        return dispose

    # --- the document -----------------------------------------------------------------

    def load(self) -> None:
        """Read the document at start-up; any invalid registered namespace fails it.

        Does not fire ``on_updated``: nothing has observed a value yet.
        """
        sections = self._read_sections()
        settled: dict[str, Resolved] = {}
        errors: list[str] = []
        for namespace, entry in self._entries.items():
            try:
                settled[namespace] = self._settle(entry, sections.get(namespace, _EMPTY))
            except SettingsError as exc:
                errors.extend(_problems_of(exc))
        if errors:
            raise SettingsError(f"{self._path}: {'; '.join(errors)}")
        self._sections = sections
        for namespace, resolved in settled.items():
            entry = self._entries[namespace]
            _commit(entry, sections.get(namespace, _EMPTY), resolved)
            self._report(entry)

    def reload(self) -> list[str]:
        """Re-read a hand-edited document; invalid namespaces keep their last good value.

        Returns every problem now recorded (also logged, and in ``describe()``).
        """
        try:
            sections = self._read_sections()
        except SettingsError as exc:
            self._log.warning("settings document not reloaded, keeping every value: %s", exc.message)
            return [exc.message]
        self._sections = sections
        problems: list[str] = []
        changed: list[tuple[str, Any, Any]] = []
        for namespace, entry in self._entries.items():
            section = sections.get(namespace, _EMPTY)
            previous = entry.value
            try:
                _commit(entry, section, self._settle(entry, section))
            except SettingsError as exc:
                entry.user = dict(section.data)  # the revision follows the file, the value does not
                entry.problems = _problems_of(exc)
                self._warn_invalid(namespace, entry.problems)
            else:
                self._report(entry)
            problems.extend(entry.problems)
            if self._differs(entry, previous):
                changed.append((namespace, entry.value, previous))
        for namespace, value, previous in changed:  # after every namespace is consistent
            self._notify(namespace, value, previous)
        return problems

    # --- reads ------------------------------------------------------------------------

    def get(self, namespace: str) -> Any:
        return self._entry(namespace).value

    def revision(self, namespace: str) -> str:
        return revision_of(self._entry(namespace).user)

    def describe(self, *, redact_secrets: bool = True) -> list[SettingsDescriptor]:
        out: list[SettingsDescriptor] = []
        for namespace, entry in self._entries.items():
            secrets = entry.resolver.secrets if redact_secrets else ()
            out.append(
                SettingsDescriptor(
                    namespace=namespace,
                    title=entry.spec.title,
                    description=entry.spec.description,
                    schema=entry.schema,
                    value=_redact(entry.resolver.unstructure(entry.value), secrets),
                    base=_redact(entry.base, secrets),
                    user=_redact(entry.user, secrets),
                    revision=revision_of(entry.user),
                    applies=entry.spec.applies,
                    notes=entry.notes,
                    problems=entry.problems,
                )
            )
        return out

    # --- writes -----------------------------------------------------------------------

    async def mutate(
        self,
        namespace: str,
        ops: Sequence[SettingsOp],
        *,
        expected_revision: str | None = None,
    ) -> Any:
        """Apply ``ops`` to the user section, persist it, and return the new value."""
        entry = self._entry(namespace)
        ops = tuple(ops)
        async with entry.lock:
            if expected_revision is not None and expected_revision != revision_of(entry.user):
                raise SettingsConflictError(
                    f"settings namespace {namespace!r} changed: revision is {revision_of(entry.user)}, "
                    f"the write expected {expected_revision}"
                )
            async with self._document_lock, document.file_lock(self._path):
                root = document.parse(document.read_text(self._path), where=str(self._path))
                section = document.read_section(namespace, root.get(namespace))
                if expected_revision is not None and revision_of(section.data) != expected_revision:
                    raise SettingsConflictError(
                        f"{self._path}: settings namespace {namespace!r} was edited on disk; reload and retry"
                    )
                user, resolved = self._prepare(entry, section, ops)
                if canonical_json(user) != canonical_json(section.data):
                    _write_section(root, namespace, user)
                    await trio.to_thread.run_sync(write_atomic, self._path, document.dump(root))
            previous = entry.value
            self._sections[namespace] = Section(data=user)
            _commit(entry, self._sections[namespace], resolved)
            self._report(entry)
            if self._differs(entry, previous):
                self._notify(namespace, entry.value, previous)
            return entry.value

    def _prepare(self, entry: _Entry, section: Section, ops: tuple[SettingsOp, ...]) -> tuple[dict[str, Any], Resolved]:
        """The new user section and its resolution, or ``SettingsError`` (nothing written)."""
        namespace = entry.spec.namespace
        touched = {op.path[0] for op in ops if op.path}
        unreadable = [why for field, why in section.errors.items() if field == "" or field not in touched]
        if unreadable:
            raise SettingsError(f"{self._path}: {'; '.join(unreadable)}")
        user = apply_ops(
            namespace,
            section.data,
            ops,
            fields=entry.resolver.fields,
            secrets=entry.resolver.secrets,
            resolved=entry.resolver.unstructure(entry.value),
        )
        built = entry.resolver.build(entry.base, user)
        # a write is refused only for cross-field problems it introduces: a
        # hand-edited document that already breaks a rule (and is healed) must
        # not block writes to unrelated fields
        rejected = [p for p in entry.resolver.check(built.value) if p not in self._existing_problems(entry, section)]
        if rejected:
            raise InvalidSettings(rejected)
        value, notes = entry.resolver.heal(built.value)
        return user, Resolved(value=value, notes=notes, problems=built.problems)

    # --- helpers ----------------------------------------------------------------------

    def _existing_problems(self, entry: _Entry, section: Section) -> list[str]:
        """Cross-field problems the current document already has (before healing)."""
        try:
            return list(entry.resolver.check(entry.resolver.build(entry.base, section.data).value))
        except SettingsError:
            return []

    def _entry(self, namespace: str) -> _Entry:
        try:
            return self._entries[namespace]
        except KeyError:
            raise SettingsError(f"unknown settings namespace {namespace!r}") from None

    def _read_sections(self) -> dict[str, Section]:
        root = document.parse(document.read_text(self._path), where=str(self._path))
        return document.sections(root)

    def _settle(self, entry: _Entry, section: Section) -> Resolved:
        if section.errors:
            raise InvalidSettings(list(section.errors.values()))
        return entry.resolver.settle(entry.base, section.data)

    def _differs(self, entry: _Entry, previous: Any) -> bool:
        unstructure = entry.resolver.unstructure
        return canonical_json(unstructure(entry.value)) != canonical_json(unstructure(previous))

    def _notify(self, namespace: str, value: Any, previous: Any) -> None:
        try:
            self._on_updated(namespace, value, previous)
        except Exception:  # the value is committed; one bad observer must not undo that
            self._log.exception("settings observer failed for namespace %r", namespace)

    def _report(self, entry: _Entry) -> None:
        for line in (*entry.notes, *entry.problems):
            self._log.warning("%s: %s", self._path, line)

    def _warn_invalid(self, namespace: str, problems: Sequence[str]) -> None:
        self._log.warning(
            "%s: keeping the last good value of %r: %s", self._path, namespace, "; ".join(problems)
        )


def _check_schema(spec: SettingsSpec) -> None:
    """Reject schemas the service cannot resolve, naming the culprit."""
    where = f"settings namespace {spec.namespace!r}"
    if not (isinstance(spec.schema, type) and attrs.has(spec.schema)):
        raise SettingsError(f"{where}: schema must be an attrs class, got {spec.schema!r}")
    try:
        attrs.resolve_types(spec.schema)
    except Exception as exc:  # NameError for an unresolvable annotation, among others
        raise SettingsError(f"{where}: cannot resolve the schema's annotations: {exc}") from exc
    names: set[str] = set()
    keys: set[str] = set()
    for field in attrs.fields(spec.schema):
        key = settings_key(field)
        if key in keys:
            raise SettingsError(f"{where}: two fields have the key {key!r}")
        names.add(field.name)
        keys.add(key)
        if field.default is attrs.NOTHING:
            raise SettingsError(f"{where}: field {key!r} needs a default")
    unknown = sorted(set(spec.secrets) - keys - names)
    if unknown:
        raise SettingsError(f"{where}: secrets name unknown fields {', '.join(unknown)}")


def _checked_base(resolver: Resolver, base: Mapping[str, Any] | None) -> dict[str, Any]:
    """The profile layer: JSON with only valid, known fields, or ``SettingsError``."""
    namespace = resolver.namespace
    layer = dict(base or {})
    try:
        check_json(layer, f"{namespace}")
        known, _ = resolver.check_layer(layer, allow_unknown=False)
    except (JsonDataError, SettingsError) as exc:
        raise SettingsError(f"profile config for settings namespace {namespace!r}: {exc.message}") from exc
    return known


def _commit(entry: _Entry, section: Section, resolved: Resolved) -> None:
    entry.user = dict(section.data)
    entry.value = resolved.value
    entry.notes = resolved.notes
    entry.problems = resolved.problems


def _problems_of(exc: SettingsError) -> tuple[str, ...]:
    return exc.problems if isinstance(exc, InvalidSettings) else (exc.message,)


def _redact(values: Mapping[str, Any], secrets: Sequence[str]) -> dict[str, Any]:
    # An unset secret stays visible as unset; anything else is hidden.
    return {key: REDACTED if key in secrets and value not in (None, "") else value for key, value in values.items()}


def _write_section(root: CommentedMap, namespace: str, user: Mapping[str, Any]) -> None:
    """Carry ``user`` into the round-trip tree; other namespaces stay untouched."""
    node = root.get(namespace)
    if not user:
        if namespace in root:
            delete_key(root, namespace)  # an emptied section goes, its comments stay
    elif isinstance(node, CommentedMap):
        sync_mapping(node, user)
    elif namespace in root:
        root[namespace] = to_node(user)  # was null (or unreadable and fully replaced)
    else:
        append_key(root, namespace, user)
