"""The contract pieces the plugin relies on: the host's service directory and
process events (``hookspecs.stores``, ``dsh_process_event``)."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from evolution_review_plugin.memory_store import FileMemoryStore
from hookspecs import hookimpl
from hookspecs.errors import DshError
from hookspecs.stores import MEMORY_SERVICE, SKILLS_SERVICE, process_events_of, services_of

from .helpers import evolution_host

pytestmark = pytest.mark.trio

SCRIPT = "responses:\n  - match: {}\n    repeat: true\n    reply: {text: ok}\n"


async def test_the_plugin_provides_its_stores_and_a_name_is_provided_once(dsh_host: Any) -> None:
    async with evolution_host(dsh_host, SCRIPT) as (host, _):
        services = services_of(host)
        assert services is not None
        plugin = host.pm.get_plugin("evolution-review")
        assert services.get(MEMORY_SERVICE) is plugin.memory and services.get(SKILLS_SERVICE) is plugin.skills
        with pytest.raises(DshError, match="service 'memory' is already provided"):
            services.provide(MEMORY_SERVICE, object())
    assert services_of(object()) is None and process_events_of(object()) is None


class ProvidesMemory:
    def __init__(self, store: FileMemoryStore) -> None:
        self.store = store

    @hookimpl(tryfirst=True)
    def dsh_plugin_setup(self, host: Any) -> None:
        services_of(host).provide(MEMORY_SERVICE, self.store)  # type: ignore[union-attr]


async def test_the_plugin_finds_a_memory_store_another_plugin_provides(dsh_host: Any, tmp_path: Any) -> None:
    store = FileMemoryStore(tmp_path / "elsewhere", caps={"memory": 100, "user": 100})
    rows = ({"id": "evolution-review", "name": "evolution-review"},)
    async with dsh_host(script=SCRIPT, rows=rows, plugins={"provider": ProvidesMemory(store)}) as host:
        assert host.pm.get_plugin("evolution-review").memory is store


class Raises:
    @hookimpl
    def dsh_process_event(self, name: str) -> None:
        raise RuntimeError("observer failed")


async def test_a_failing_process_event_observer_is_contained(dsh_host: Any, caplog: pytest.LogCaptureFixture) -> None:
    async with evolution_host(dsh_host, SCRIPT) as (host, recorder):
        host.pm.register(Raises(), name="raises")
        with caplog.at_level(logging.ERROR):
            host.emit("evolution/test", {"x": 1})
        assert recorder.events == [("evolution/test", {"x": 1})]
        assert any("dsh_process_event" in r.getMessage() for r in caplog.records)
        host.pm.unregister(name="raises")
