"""The host's optional-service directory (``host.services``); see :mod:`hookspecs.stores`.
Process events (``host.emit``) go through :meth:`harness.hook_facade.HostHooks.process_event`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hookspecs.errors import DshError


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
