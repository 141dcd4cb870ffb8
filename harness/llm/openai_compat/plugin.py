"""The ``openai-compatible`` plugin: one adapter per profile row."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from hookspecs import hookimpl
from hookspecs.protocols import Host, LlmAdapter

from .adapter import OpenAICompatibleAdapter
from .config import OpenAICompatibleConfig, parse_config


class OpenAICompatiblePlugin:
    """Registers an :class:`OpenAICompatibleAdapter` under ``config.provider``.

    The host builds it with the structured ``config``; a plain mapping is
    accepted too (validated by :func:`parse_config`). Several rows may use this
    plugin, one per provider name.
    """

    config_schema = OpenAICompatibleConfig

    def __init__(self, config: OpenAICompatibleConfig | Mapping[str, Any]) -> None:
        if not isinstance(config, OpenAICompatibleConfig):
            config = parse_config(config)
        self.config = config
        self.adapter = OpenAICompatibleAdapter(config)

    @hookimpl
    def dsh_register_llm_adapters(self, register: Callable[[LlmAdapter], None]) -> None:
        register(self.adapter)

    @hookimpl
    async def dsh_plugin_teardown(self, host: Host) -> None:
        await self.adapter.aclose()
