"""Plugin loading: a plugin manager factory, name resolution, config, registration.

Plugin class contract (see ``docs/profiles.md``):

* a profile row's ``name`` resolves to a class or factory: first an entry point in
  group ``dsh.plugins``, else a ``module:attr`` path;
* an optional ``config_schema`` attribute names a frozen, kw_only attrs class; the
  row's ``config`` is structured into it strictly (unknown keys and coercions are
  errors), keyed by field key (``hookspecs.values.settings_key``: an explicit
  alias, else the name), and the plugin is built as ``cls(config=<schema instance>)``;
* without ``config_schema`` the plugin is built as ``cls()`` and a non-empty
  ``config`` is an error;
* the instance is registered as ``pm.register(instance, name=row.id)``.

Nothing here scans entry points for plugins to load: only names a profile asks for
are resolved, so tests never pick up whatever is installed in site-packages.
"""

from __future__ import annotations

import importlib
import inspect
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import attrs
import pluggy

import hookspecs
from hookspecs.errors import PluginError, ProfileError
from hookspecs.markers import CONFIG_PATH, PLUGINS_ENTRY_POINT_GROUP, PROJECT_NAME
from hookspecs.values.settings import settings_key
from hookspecs.values.wire import describe_errors, structure

from .entry_points import entry_points
from .profiles import ProfileRow
from .settings.fields import keyed_converter, validator_problems

#: Comma-separated row ids or plugin names that must not be loaded.
DISABLED_PLUGINS_ENV = "DSH_DISABLED_PLUGINS"

LoadStatus = Literal["loaded", "disabled", "blocked"]


@attrs.frozen(kw_only=True)
class LoadedPlugin:
    """What ``load_plugins`` did with one built-in or profile row."""

    #: The registration name: the row id (or the built-in's name).
    row_id: str
    #: The row's ``name`` (entry point or ``module:attr``), or the built-in's name.
    plugin_name: str
    #: The registered object; ``None`` unless ``status == "loaded"``.
    instance: object | None
    #: The profile layer that last touched the row; ``"builtin"`` for built-ins.
    layer: str
    #: ``"loaded"``, ``"disabled"`` (``disabled: true``) or ``"blocked"`` (``DSH_DISABLED_PLUGINS``).
    status: LoadStatus = "loaded"
    #: Names of the hooks the instance implements, sorted.
    hooks: tuple[str, ...] = ()


class HookWrapperRefused(pluggy.PluginValidationError):
    """A plugin marks an implementation ``wrapper=True`` or ``hookwrapper=True``.

    The host walks hook implementations itself (pluggy cannot await), so a
    pluggy wrapper would never run; it is refused instead of being skipped.
    """


class DshPluginManager(pluggy.PluginManager):
    """A pluggy manager that refuses hook wrappers and counts registrations, so the
    host's hook runner can cache implementation lists between changes (hooks fire
    on every event)."""

    generation: int = 0
    #: the name being registered, for the refusal's message (pluggy discovers
    #: implementations before it records the name)
    _registering: str | None = None

    def register(self, plugin: object, name: str | None = None) -> str | None:
        self._registering = name or (self.get_canonical_name(plugin) if plugin is not None else None)
        try:
            result = super().register(plugin, name)
        finally:
            self._registering = None
        self.generation += 1
        return result

    def unregister(self, plugin: object | None = None, name: str | None = None) -> Any:
        result = super().unregister(plugin, name)
        self.generation += 1
        return result

    def parse_hookimpl_opts(self, plugin: object, name: str) -> Any:
        # refused during pluggy's own discovery (which validates every attribute
        # before changing any state): a second pass over dir(plugin) cost each
        # registration, and reviewers register plugins per child
        opts = super().parse_hookimpl_opts(plugin, name)
        if opts is None:
            return None
        kind = "wrapper" if opts.get("wrapper") else "hookwrapper" if opts.get("hookwrapper") else None
        if kind is not None:
            plugin_name = self._registering or self.get_canonical_name(plugin)
            hook = opts.get("specname") or name
            raise HookWrapperRefused(
                plugin,
                f"plugin {plugin_name!r} implements hook {hook!r} as a pluggy wrapper ({kind}=True), "
                "which this host never calls (it walks hook implementations itself); use a plain @hookimpl",
            )
        return opts


def make_plugin_manager() -> pluggy.PluginManager:
    """A fresh ``PluginManager("dsh")`` with every hookspec module; no plugins."""
    pm = DshPluginManager(PROJECT_NAME)
    for module in hookspecs.SPEC_MODULES:
        pm.add_hookspecs(module)
    return pm


def installed_plugin_names() -> list[str]:
    """Entry-point names in group ``dsh.plugins`` (nothing is imported)."""
    return sorted({ep.name for ep in entry_points(group=PLUGINS_ENTRY_POINT_GROUP)})


def resolve_plugin(name: str, *, where: str) -> type | Callable[..., object]:
    """The class or factory named by an entry point, else by ``module:attr``."""
    for ep in entry_points(group=PLUGINS_ENTRY_POINT_GROUP):
        if ep.name == name:
            try:
                loaded = ep.load()
            except Exception as exc:
                raise PluginError(
                    f"{where}: plugin {name!r} (entry point {ep.value!r}) failed to import: {type(exc).__name__}: {exc}"
                ) from exc
            return _check_factory(loaded, name=name, where=where)
    module_name, sep, attr_path = name.partition(":")
    if not sep:
        installed = ", ".join(installed_plugin_names()) or "(none)"
        raise PluginError(f"{where}: unknown plugin {name!r}; installed plugins: {installed}")
    if not module_name or not attr_path:
        raise PluginError(f"{where}: plugin {name!r}: expected 'module:attr'")
    try:
        obj: Any = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name is not None and (module_name == exc.name or module_name.startswith(exc.name + ".")):
            installed = ", ".join(installed_plugin_names()) or "(none)"
            raise PluginError(
                f"{where}: unknown plugin {name!r}: no module {module_name!r}; installed plugins: {installed}"
            ) from exc
        raise PluginError(f"{where}: plugin {name!r} failed to import: {exc}") from exc
    except Exception as exc:
        raise PluginError(f"{where}: plugin {name!r} failed to import: {type(exc).__name__}: {exc}") from exc
    for part in attr_path.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise PluginError(f"{where}: plugin {name!r}: {module_name!r} has no attribute {attr_path!r}") from None
    return _check_factory(obj, name=name, where=where)


def _check_factory(obj: object, *, name: str, where: str) -> type | Callable[..., object]:
    if inspect.ismodule(obj) or not callable(obj):
        raise PluginError(f"{where}: plugin {name!r} resolves to {obj!r}, not a plugin class or factory")
    return obj


def instantiate_plugin(
    factory: Callable[..., object], config: Mapping[str, Any], *, name: str, where: str, base: Path | None = None
) -> object:
    """Validate ``config`` against ``factory.config_schema`` and build the plugin.

    String fields marked :data:`~hookspecs.markers.CONFIG_PATH` are resolved
    against ``base`` (the directory of the file that set the config) when
    relative. Bad config raises ProfileError (``<where>: field 'config':
    <problem> @ $.path``); a failing constructor raises PluginError.
    """
    schema = getattr(factory, "config_schema", None)
    if schema is None:
        if config:
            raise ProfileError(
                f"{where}: field 'config': plugin {name!r} takes no config (no config_schema); "
                f"unknown field(s): {', '.join(sorted(config))}"
            )
        args: dict[str, object] = {}
    else:
        if not (isinstance(schema, type) and attrs.has(schema)):
            raise PluginError(f"{where}: plugin {name!r}: config_schema must be an attrs class, got {schema!r}")
        config = resolve_paths(schema, config, base)
        args = {"config": _structure_config(schema, config, where=f"{where}: field 'config'")}
    try:
        return factory(**args)
    except Exception as exc:
        raise PluginError(f"{where}: plugin {name!r} failed to start: {type(exc).__name__}: {exc}") from exc


def resolve_paths(schema: type, config: Mapping[str, Any], base: Path | None) -> Mapping[str, Any]:
    """``config`` with its path fields (``~`` expanded) made absolute against ``base``."""
    keys = [settings_key(f) for f in attrs.fields(schema) if f.metadata.get(CONFIG_PATH)]
    resolved = dict(config)
    for key in keys:
        value = resolved.get(key)
        if isinstance(value, str) and value:  # other types fail in structuring, with the field named
            path = Path(value)
            try:
                path = path.expanduser()
            except RuntimeError:  # ~name of no known user: kept as written, so the open names it
                pass
            resolved[key] = str(base / path if base is not None and not path.is_absolute() else path)
    return resolved


def _structure_config(schema: type, config: Mapping[str, Any], *, where: str) -> Any:
    # the settings converter: plugin config (strict, no extra keys) is keyed as in
    # settings documents (an explicit alias, else the name), since a row whose id is
    # a settings namespace is also that namespace's base layer
    converter = keyed_converter()
    try:
        return structure(converter, dict(config), schema, where=where, error=ProfileError)
    except ProfileError as exc:
        # A validator failure inside __init__ reaches cattrs without its field
        # ("invalid value @ $"): name each failing field instead.
        located = validator_problems(converter, schema, config)
        if not located or exc.__cause__ is None:
            raise
        typed = [problem for problem in describe_errors(exc.__cause__) if not problem.endswith(" @ $")]
        raise ProfileError(f"{where}: {'; '.join(typed + located)}") from None


def blocked_names(environ: Mapping[str, str]) -> frozenset[str]:
    """The row ids and plugin names listed in ``DSH_DISABLED_PLUGINS``."""
    raw = environ.get(DISABLED_PLUGINS_ENV, "")
    return frozenset(part.strip() for part in raw.split(",") if part.strip())


def load_plugins(
    pm: pluggy.PluginManager,
    rows: Sequence[ProfileRow],
    *,
    environ: Mapping[str, str] = os.environ,
    builtins: Sequence[tuple[str, object]] = (),
) -> list[LoadedPlugin]:
    """Register ``builtins`` (name, object), then each enabled row, then ``check_pending``.

    Rows with ``disabled: true`` are not resolved or instantiated; ids or names in
    ``DSH_DISABLED_PLUGINS`` are ``pm.set_blocked`` and skipped. Every outcome is
    reported in the result, in order. On any error, plugins registered by this call
    are unregistered again before the error propagates.
    """
    blocked = blocked_names(environ)
    results: list[LoadedPlugin] = []
    registered: list[str] = []
    where_by_name: dict[str, str] = {}

    def register(obj: object, *, reg_name: str, plugin_name: str, layer: str, where: str) -> None:
        if pm.is_blocked(reg_name):
            results.append(_skipped(reg_name, plugin_name, layer, "blocked"))
            return
        try:
            pm.register(obj, name=reg_name)
        except HookWrapperRefused as exc:
            raise PluginError(f"{where}: {exc}") from exc
        except pluggy.PluginValidationError as exc:
            detail = "; ".join(line.strip() for line in str(exc).splitlines() if line.strip())
            raise PluginError(f"{where}: plugin {plugin_name!r} does not match the hookspecs: {detail}") from exc
        except ValueError as exc:  # name or object already registered
            raise PluginError(f"{where}: plugin {plugin_name!r} cannot be registered as {reg_name!r}: {exc}") from exc
        registered.append(reg_name)
        where_by_name[reg_name] = where
        hooks = tuple(sorted(caller.name for caller in pm.get_hookcallers(obj) or ()))
        results.append(
            LoadedPlugin(row_id=reg_name, plugin_name=plugin_name, instance=obj, layer=layer, hooks=hooks)
        )

    try:
        for name, obj in builtins:
            if name in blocked:
                pm.set_blocked(name)
                results.append(_skipped(name, name, "builtin", "blocked"))
                continue
            register(obj, reg_name=name, plugin_name=name, layer="builtin", where=f"built-in plugin {name!r}")
        for row in rows:
            where = row.origin or f"{row.layer}: row (id {row.id!r})"
            if row.id in blocked or row.name in blocked:
                pm.set_blocked(row.id)
                results.append(_skipped(row.id, row.name, row.layer, "blocked"))
                continue
            if row.disabled:
                results.append(_skipped(row.id, row.name, row.layer, "disabled"))
                continue
            factory = resolve_plugin(row.name, where=where)
            instance = instantiate_plugin(factory, row.config, name=row.name, where=where, base=row.base)
            register(instance, reg_name=row.id, plugin_name=row.name, layer=row.layer, where=where)
        _check_pending(pm, where_by_name)
    except BaseException:
        for name in reversed(registered):
            pm.unregister(name=name)
        raise
    return results


def _skipped(row_id: str, plugin_name: str, layer: str, status: LoadStatus) -> LoadedPlugin:
    return LoadedPlugin(row_id=row_id, plugin_name=plugin_name, instance=None, layer=layer, status=status)


def _check_pending(pm: pluggy.PluginManager, where_by_name: Mapping[str, str]) -> None:
    """``pm.check_pending()``, with an error that names the plugin and the hook."""
    for hook_name in sorted(vars(pm.hook)):
        caller = getattr(pm.hook, hook_name)
        if hook_name.startswith("_") or not isinstance(caller, pluggy.HookCaller) or caller.has_spec():
            continue
        for impl in caller.get_hookimpls():
            if impl.optionalhook:
                continue
            where = where_by_name.get(impl.plugin_name, f"plugin {impl.plugin_name!r}")
            import difflib  # for this error only: not loaded by every start

            specs = [name for name in vars(pm.hook) if not name.startswith("_") and getattr(pm.hook, name).has_spec()]
            close = difflib.get_close_matches(hook_name, specs, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise PluginError(
                f"{where}: plugin {impl.plugin_name!r} implements unknown hook {hook_name!r}{hint} "
                f"(mark it @hookimpl(optionalhook=True) if that is intended)"
            )
    try:
        pm.check_pending()
    except pluggy.PluginValidationError as exc:
        name = pm.get_name(exc.plugin) or repr(exc.plugin)
        detail = "; ".join(line.strip() for line in str(exc).splitlines() if line.strip())
        raise PluginError(f"{where_by_name.get(name, f'plugin {name!r}')}: {detail}") from exc
