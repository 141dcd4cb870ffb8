"""The host's optional-service directory (``host.services``) and process events
(``host.emit``); see :mod:`hookspecs.stores`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from hookspecs.errors import DshError

from .hooks import HookRunner


class ServiceDirectoryImpl:
    """Implements :class:`hookspecs.stores.ServiceDirectory`."""

    def __init__(self) -> None:
        self._services: dict[str, object] = {}

    def get(self, name: str) -> Any:
        return self._services.get(name)

    def provide(self, name: str, service: object) -> Callable[[], None]:
        if name in self._services:
            raise DshError(f"service {name!r} is already provided", code="DUPLICATE_SERVICE")
        self._services[name] = service

        def withdraw() -> None:
            if self._services.get(name) is service:
                del self._services[name]

        return withdraw


def emit_process_event(runner: HookRunner, name: str, payload: Mapping[str, Any]) -> None:
    """Broadcast one process event to ``dsh_process_event`` observers (contained)."""
    runner.notify("dsh_process_event", None, name=name, payload=dict(payload))
