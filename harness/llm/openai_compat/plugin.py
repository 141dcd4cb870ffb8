"""The ``openai-compatible`` plugin: one adapter per profile row."""

from __future__ import annotations

import gc
from collections.abc import AsyncIterator, Callable, Mapping
from typing import TYPE_CHECKING, Any

from hookspecs import hookimpl
from hookspecs.protocols import Host, LlmAdapter
from hookspecs.values.cancel import CancelToken
from hookspecs.values.llm import LlmRequest, ModelInfo, StreamChunk

from .config import OpenAICompatibleConfig, parse_config

if TYPE_CHECKING:
    from .adapter import OpenAICompatibleAdapter


class LazyAdapter:
    """The row's adapter as the host sees it, without the HTTP client.

    ``provider`` and ``models()`` answer from the config alone; the
    :class:`~.adapter.OpenAICompatibleAdapter` (and with it the HTTP client) is built at
    the first request, so a process that never calls the model (a Stop hook
    whose turn admits no review, ``--help``) never imports it.
    """

    def __init__(self, config: OpenAICompatibleConfig) -> None:
        self._config = config
        self._models = tuple(spec.info() for spec in config.models)
        self._adapter: OpenAICompatibleAdapter | None = None

    @property
    def provider(self) -> str:
        return self._config.provider

    @property
    def config(self) -> OpenAICompatibleConfig:
        return self._config

    def models(self) -> tuple[ModelInfo, ...]:
        return self._models

    def stream(self, request: LlmRequest, cancel: CancelToken) -> AsyncIterator[StreamChunk]:
        # the real adapter's own generator is returned: no extra hop per chunk
        return self.loaded().stream(request, cancel)

    def loaded(self) -> OpenAICompatibleAdapter:
        """The real adapter, built on first use."""
        if self._adapter is None:
            # the adapter and its HTTP client are built once and kept:
            # collecting while they are imported walks them for no garbage
            paused = gc.isenabled()
            gc.disable()
            try:
                from .adapter import OpenAICompatibleAdapter
            finally:
                if paused:
                    gc.enable()
            self._adapter = OpenAICompatibleAdapter(self._config)
        return self._adapter

    async def aclose(self) -> None:
        if self._adapter is not None:
            await self._adapter.aclose()


class OpenAICompatiblePlugin:
    """Registers an :class:`OpenAICompatibleAdapter` under ``config.provider``
    (behind :class:`LazyAdapter`, so the HTTP client loads at the first request).

    The host builds it with the structured ``config``; a plain mapping is
    accepted too (validated by :func:`parse_config`). Several rows may use this
    plugin, one per provider name.
    """

    config_schema = OpenAICompatibleConfig

    def __init__(self, config: OpenAICompatibleConfig | Mapping[str, Any]) -> None:
        if not isinstance(config, OpenAICompatibleConfig):
            config = parse_config(config)
        self.config = config
        self.adapter = LazyAdapter(config)

    @hookimpl
    def dsh_register_llm_adapters(self, register: Callable[[LlmAdapter], None]) -> None:
        register(self.adapter)

    @hookimpl
    async def dsh_plugin_teardown(self, host: Host) -> None:
        await self.adapter.aclose()
