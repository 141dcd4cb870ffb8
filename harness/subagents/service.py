"""The subagent runtime: a provider registry with capability checks.

``start`` checks every capability the request actually uses before the
provider runs, so a provider can never silently ignore part of a request.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from hookspecs.errors import JsonDataError, SubagentError
from hookspecs.protocols import Agent, SubagentProvider, SubagentRun
from hookspecs.values import Capabilities, SubagentRequest, SubagentResult
from hookspecs.values.json import check_json

from ..cleanup import shielded_cleanup
from ..tools.schema import check_object_schema

if TYPE_CHECKING:
    from ..hook_facade import HostHooks
    from .toolkit import SubagentToolkitImpl


def required_capabilities(request: SubagentRequest) -> list[str]:
    """Capability names a request depends on, in a stable order."""
    needed: list[str] = []
    if request.output_schema is not None:
        needed.append(Capabilities.OUTPUT_SCHEMA)
    if request.max_depth is not None:
        needed.append(Capabilities.DEPTH_LIMIT)
    if request.tool_filter is not None:
        needed.append(Capabilities.TOOL_FILTER)
    if request.persona is not None:
        needed.append(Capabilities.PERSONA)
    needed.extend(key for key in request.extensions if key not in needed)
    return needed


class SubagentServiceImpl:
    """Implements :class:`hookspecs.protocols.SubagentService`."""

    def __init__(self, hooks: HostHooks, toolkit: SubagentToolkitImpl) -> None:
        self._hooks = hooks
        self._toolkit = toolkit
        self._providers: dict[str, SubagentProvider] = {}

    @property
    def toolkit(self) -> SubagentToolkitImpl:
        return self._toolkit

    def register_provider(self, provider: SubagentProvider) -> Callable[[], None]:
        name = provider.name
        if not isinstance(name, str) or not name:
            raise SubagentError("a subagent provider needs a non-empty name", code="INVALID_PROVIDER")
        if name in self._providers:
            raise SubagentError(f"subagent provider {name!r} is already registered", code="DUPLICATE_PROVIDER")
        self._providers[name] = provider

        def dispose() -> None:
            if self._providers.get(name) is provider:
                del self._providers[name]

        return dispose

    def get(self, name: str) -> SubagentProvider | None:
        return self._providers.get(name)

    def list(self) -> list[SubagentProvider]:
        return [self._providers[n] for n in sorted(self._providers)]

    async def start(self, name: str, request: SubagentRequest) -> SubagentRun:
        provider = self._providers.get(name)
        if provider is None:
            known = ", ".join(sorted(self._providers)) or "none"
            raise SubagentError(f"no subagent provider named {name!r} (registered: {known})", code="NO_PROVIDER")
        if request.cancel is None:
            raise SubagentError("a subagent request needs a cancel token", code="INVALID_REQUEST")
        capabilities = provider.capabilities
        missing = [c for c in required_capabilities(request) if not capabilities.get(c, False)]
        if missing:
            raise SubagentError(
                f"subagent provider {name!r} lacks required capabilities: {', '.join(missing)}",
                code="UNSUPPORTED_CAPABILITY",
            )
        if request.output_schema is not None:
            try:
                check_object_schema(request.output_schema, "output_schema")
            except ValueError as exc:
                raise SubagentError(str(exc), code="INVALID_OUTPUT_SCHEMA") from None
        if request.max_depth is not None and (type(request.max_depth) is not int or request.max_depth < 0):
            raise SubagentError("max_depth must be a non-negative integer", code="INVALID_REQUEST")
        if request.stored_prompt is not None:
            try:
                check_json(request.stored_prompt.reference, "stored_prompt.reference")
            except JsonDataError as exc:
                raise SubagentError(str(exc), code="INVALID_REQUEST") from None
        run = await provider.start(request)
        tracked = TrackedRun(run, request, self._hooks)
        self._hooks.subagent_started(request.parent, tracked, request)
        return tracked


class TrackedRun:
    """Wraps a provider's run so ``dsh_subagent_ended`` fires exactly once."""

    def __init__(self, inner: SubagentRun, request: SubagentRequest, hooks: HostHooks) -> None:
        self._inner = inner
        self._request = request
        self._hooks = hooks
        self._reported = False

    @property
    def id(self) -> str:
        return self._inner.id

    @property
    def local_agent(self) -> Agent | None:
        return self._inner.local_agent

    @property
    def inner(self) -> SubagentRun:
        return self._inner

    async def result(self) -> SubagentResult:
        result = await self._inner.result()
        self._report(result)
        return result

    async def dispose(self) -> None:
        try:
            await self._inner.dispose()
        finally:
            if not self._reported:
                with shielded_cleanup():
                    try:
                        self._report(await self._inner.result())
                    except Exception:
                        pass

    def _report(self, result: SubagentResult) -> None:
        if not self._reported:
            self._reported = True
            self._hooks.subagent_ended(self._request.parent, self, result)
