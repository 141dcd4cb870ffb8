"""The host's LLM registry: adapters by provider name, and request routing."""

from __future__ import annotations

from collections.abc import AsyncIterator

from hookspecs.errors import DshError, LlmError
from hookspecs.protocols import Disposer, LlmAdapter
from hookspecs.values.cancel import CancelToken
from hookspecs.values.llm import LlmRequest, ModelInfo, StreamChunk

from .routes import parse_route, provider_name_problem


class LlmService:
    """Implements :class:`hookspecs.protocols.LlmService`.

    Providers are listed in registration order. An adapter whose ``models()``
    is empty accepts any model id; otherwise only the listed ids route.
    """

    def __init__(self) -> None:
        self._adapters: dict[str, LlmAdapter] = {}

    # --- registry ---------------------------------------------------------------

    def register_adapter(self, adapter: LlmAdapter) -> Disposer:
        """Add ``adapter`` under ``adapter.provider``; the disposer removes it.

        Raises ``DshError`` ``INVALID_PROVIDER`` for a name that cannot start a
        route and ``DUPLICATE_PROVIDER`` when the name is taken.
        """
        provider = adapter.provider
        problem = provider_name_problem(provider)
        if problem is not None:
            raise DshError(f"LLM provider name {provider!r} {problem}", code="INVALID_PROVIDER")
        if provider in self._adapters:
            raise DshError(f"LLM provider {provider!r} is already registered", code="DUPLICATE_PROVIDER")
        self._adapters[provider] = adapter

        def dispose() -> None:
            # Idempotent, and never removes a later adapter that reused the name.
            if self._adapters.get(provider) is adapter:
                del self._adapters[provider]

        return dispose

    def adapter(self, provider: str) -> LlmAdapter | None:
        return self._adapters.get(provider)

    def providers(self) -> list[str]:
        return list(self._adapters)

    def models(self, provider: str) -> list[ModelInfo]:
        """The models ``provider`` lists; raises ``LlmError`` ``UNKNOWN_PROVIDER``."""
        return list(self._require_adapter(provider).models())

    def model_info(self, provider: str, model: str) -> ModelInfo | None:
        """What ``provider`` lists for ``model``; None when either is unknown or
        the adapter lists nothing about it (use :meth:`resolve` to validate)."""
        adapter = self._adapters.get(provider)
        if adapter is None:
            return None
        return next((info for info in adapter.models() if info.id == model), None)

    def resolve(self, route: str, *, where: str = "model") -> tuple[str, str]:
        """Parse ``provider/model`` and check both exist.

        Raises ``LlmError`` with code ``INVALID_ROUTE`` (malformed; the message
        names ``where``), ``UNKNOWN_PROVIDER`` or ``UNKNOWN_MODEL``.
        """
        try:
            provider, model = parse_route(route, where=where)
        except ValueError as exc:
            raise LlmError(str(exc), code="INVALID_ROUTE") from None
        self._require_model(provider, model)
        return provider, model

    # --- streaming --------------------------------------------------------------

    async def stream(self, request: LlmRequest, cancel: CancelToken) -> AsyncIterator[StreamChunk]:
        """Delegate to the adapter for ``request.provider``.

        Routing errors are raised on the first iteration, like adapter errors, so
        one ``try`` around the ``async for`` catches every ``LlmError``.
        """
        adapter = self._require_model(request.provider, request.model)
        inner = adapter.stream(request, cancel)
        try:
            async for chunk in inner:
                yield chunk
        finally:
            # Close the adapter's generator now rather than at garbage collection.
            aclose = getattr(inner, "aclose", None)
            if aclose is not None:
                await aclose()

    # --- helpers ----------------------------------------------------------------

    def _require_adapter(self, provider: str) -> LlmAdapter:
        adapter = self._adapters.get(provider)
        if adapter is None:
            known = ", ".join(self._adapters) or "none"
            raise LlmError(f"unknown LLM provider {provider!r} (registered: {known})", code="UNKNOWN_PROVIDER")
        return adapter

    def _require_model(self, provider: str, model: str) -> LlmAdapter:
        adapter = self._require_adapter(provider)
        listed = [info.id for info in adapter.models()]
        if listed and model not in listed:
            raise LlmError(
                f"provider {provider!r} has no model {model!r} (known: {', '.join(listed)})",
                code="UNKNOWN_MODEL",
            )
        return adapter
