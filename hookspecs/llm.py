"""LLM adapter registration."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from .markers import hookspec

if TYPE_CHECKING:
    from .protocols import LlmAdapter


@hookspec
def dsh_register_llm_adapters(register: Callable[[LlmAdapter], None]) -> None:
    """Contribute model providers.

    When: once at host start, before ``dsh_plugin_setup``.

    Arguments: ``register(adapter)`` — adds one :class:`~hookspecs.protocols.LlmAdapter`;
    its ``provider`` name becomes the first part of ``provider/model`` routes. A
    duplicate provider name fails the start, naming the plugin that registered it second.

    Return: nothing.

    Semantics: register hook; the host owns validation and duplicates.

    Timing: synchronous and quick; do not perform network I/O here.
    """
