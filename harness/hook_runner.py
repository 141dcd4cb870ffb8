"""The hook runner: how :class:`harness.hook_facade.HostHooks` walks implementations.

An implementation detail of :mod:`harness.hook_facade`, the host's one way to
call hooks; no other product module imports this one (``tests/test_hook_calls.py``).

pluggy stops at the first exception and cannot await, so the host walks the
implementations itself (in pluggy's call order: LIFO, ``tryfirst``/``trylast``
honoured):

* observers are called one by one, each failure logged and contained; an
  awaitable result runs in the background;
* awaited broadcasts (``turn_stopping``, setup, teardown) await each result;
* chain hooks build a ``call_next`` waterfall ending in the host's default.

Implementations may accept any subset of a hook's arguments. Plugins added to an
agent scope only see agent-related hooks about their own agent.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import pluggy

from hookspecs.markers import EVENT_TYPES_ATTRIBUTE

Spawn = Callable[[Callable[[], Awaitable[Any]], str], None]


class HookRunner:
    """Walks hook implementations with scope filtering and error containment."""

    def __init__(self, pm: pluggy.PluginManager, *, logger: logging.Logger, spawn: Spawn) -> None:
        self.pm = pm
        self.logger = logger
        self._spawn = spawn
        # id(plugin object) -> agent id it is scoped to
        self._scoped: dict[int, str] = {}
        # (hook, scope) -> implementations, valid while the manager's registration
        # generation is unchanged (managers without one are never cached)
        self._cache: dict[tuple[str, str | None], list[pluggy.HookImpl]] = {}
        # (hook, scope, event type) -> implementations that declared they want it
        self._typed: dict[tuple[str, str | None, str], list[pluggy.HookImpl]] = {}
        self._cache_generation = -1

    # --- scoped plugins ------------------------------------------------------------

    def register_scoped(self, plugin: object, agent_id: str, name: str) -> Callable[[], None]:
        self.pm.register(plugin, name=name)
        self._scoped[id(plugin)] = agent_id
        done = False

        def dispose() -> None:
            nonlocal done
            if done:
                return
            done = True
            self._scoped.pop(id(plugin), None)
            if self.pm.is_registered(plugin):
                self.pm.unregister(plugin)

        return dispose

    # --- implementation lookup -------------------------------------------------------

    def impls(self, hook: str, scope: str | None) -> list[pluggy.HookImpl]:
        """Implementations of ``hook`` in call order, filtered by agent scope."""
        generation = getattr(self.pm, "generation", None)
        if generation is not None:
            if generation != self._cache_generation:
                self._cache.clear()
                self._typed.clear()
                self._cache_generation = generation
            cached = self._cache.get((hook, scope))
            if cached is not None:
                return cached
        found_impls = self._collect(hook, scope)
        if generation is not None:
            self._cache[(hook, scope)] = found_impls
        return found_impls

    def _collect(self, hook: str, scope: str | None) -> list[pluggy.HookImpl]:
        caller = getattr(self.pm.hook, hook)
        found = caller.get_hookimpls()
        scoped = self._scoped
        out: list[pluggy.HookImpl] = []
        for impl in reversed(found):
            if impl.hookwrapper or impl.wrapper:
                # the host's manager refuses wrappers at registration; on any
                # other manager they cannot take part in host-walked hooks
                continue
            owner = scoped.get(id(impl.plugin)) if scoped else None
            if owner is not None and owner != scope:
                continue
            out.append(impl)
        return out

    def plugin_name(self, impl: pluggy.HookImpl) -> str:
        return impl.plugin_name or repr(impl.plugin)

    # --- call styles ---------------------------------------------------------------------

    def impls_for_type(self, hook: str, scope: str | None, event_type: str) -> list[pluggy.HookImpl]:
        """:meth:`impls` without those that declared (``hookspecs.markers.event_types``)
        other event types: an observer that watches two types is not called for
        the chunks and steps of every turn."""
        impls = self.impls(hook, scope)
        if getattr(self.pm, "generation", None) is None:
            return [i for i in impls if _wants(i, event_type)]
        key = (hook, scope, event_type)
        cached = self._typed.get(key)
        if cached is None:
            cached = self._typed[key] = [i for i in impls if _wants(i, event_type)]
        return cached

    def notify(self, hook: str, scope: str | None, *, impls: list[pluggy.HookImpl] | None = None, **kwargs: Any) -> None:
        """Observer: call every implementation; contain failures; background awaitables."""
        for impl in self.impls(hook, scope) if impls is None else impls:
            try:
                # map, not a comprehension: no extra frame per call (observers run per event)
                result = impl.function(*map(kwargs.__getitem__, impl.argnames))
            except Exception:
                self.logger.exception("%s in plugin %r failed", hook, self.plugin_name(impl))
                continue
            # observers usually return None; skip the (slow) awaitable check then
            if result is not None and inspect.isawaitable(result):
                self._spawn(_wrap_awaitable(result), f"{hook}:{self.plugin_name(impl)}")

    async def broadcast(
        self, hook: str, scope: str | None, *, contain: bool = True, reverse: bool = False, **kwargs: Any
    ) -> None:
        """Awaited broadcast, serially in call order (``reverse``: the opposite order)."""
        impls = self.impls(hook, scope)
        for impl in reversed(impls) if reverse else impls:
            try:
                result = impl.function(*[kwargs[name] for name in impl.argnames])
                if inspect.isawaitable(result):
                    await result
            except Exception as exc:
                if not contain:
                    raise HookFailed(hook, self.plugin_name(impl), exc) from exc
                self.logger.exception("%s in plugin %r failed", hook, self.plugin_name(impl))

    async def chain(
        self,
        hook: str,
        scope: str | None,
        default: Callable[..., Any],
        *,
        on_error: Callable[[str, BaseException], Any] | None = None,
        **kwargs: Any,
    ) -> Any:
        """Waterfall: each link gets ``call_next(**overrides)``; the end is ``default``.

        A link returning ``None`` passes: the downstream result (calling it if the
        link did not) is used. A link that raises is logged and, unless
        ``on_error`` supplies a result (fail-closed chains), skipped.
        """
        impls = self.impls(hook, scope)

        async def call_at(index: int, arguments: dict[str, Any]) -> Any:
            # a link that passes without calling call_next moves the walk on in
            # this loop (chains run per step: no coroutine per passing link)
            def next_of(at: int, seen: list[Any]) -> Callable[..., Awaitable[Any]]:
                async def call_next(**overrides: Any) -> Any:
                    value = await call_at(at, {**arguments, **overrides})
                    seen.append(value)
                    return value

                return call_next

            while index < len(impls):
                impl = impls[index]
                downstream: list[Any] = []
                full = {**arguments, "call_next": next_of(index + 1, downstream)}
                try:
                    result = impl.function(*map(full.__getitem__, impl.argnames))
                    # a link that passes returns None: skip the (slow) awaitable check then
                    if result is not None and inspect.isawaitable(result):
                        result = await result
                except Exception as exc:
                    name = self.plugin_name(impl)
                    self.logger.exception("%s in plugin %r failed", hook, name)
                    if on_error is not None:
                        return on_error(name, exc)
                    result = None
                if result is not None:
                    return result
                if downstream:
                    return downstream[-1]
                index += 1
            result = default(**arguments)
            return await result if inspect.isawaitable(result) else result

        return await call_at(0, kwargs)

    def collect(self, hook: str, register: Callable[[str, Any], None], **extra: Any) -> None:
        """Run a ``dsh_register_*`` hook; ``register(plugin_name, item)`` receives each
        contribution so errors can name the contributing plugin."""
        for impl in self.impls(hook, None):
            name = self.plugin_name(impl)

            def bound(item: Any, *args: Any, _name: str = name, **kw: Any) -> None:
                register(_name, item, *args, **kw)

            args = {"register": bound, **extra}
            impl.function(*[args[n] for n in impl.argnames])

    def implemented_by(self, plugin: object) -> Sequence[str]:
        callers = self.pm.get_hookcallers(plugin) or []
        return sorted(c.name for c in callers)


class HookFailed(Exception):
    """A hook implementation raised where the host does not contain failures."""

    def __init__(self, hook: str, plugin: str, cause: BaseException) -> None:
        super().__init__(f"{hook} failed in plugin {plugin!r}: {cause}")
        self.hook = hook
        self.plugin = plugin


def _wrap_awaitable(awaitable: Awaitable[Any]) -> Callable[[], Awaitable[Any]]:
    async def run() -> Any:
        return await awaitable

    return run


def _wants(impl: pluggy.HookImpl, event_type: str) -> bool:
    wanted = getattr(impl.function, EVENT_TYPES_ATTRIBUTE, None)
    return wanted is None or event_type in wanted
