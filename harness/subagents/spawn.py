"""The stock ``spawn`` provider: a fresh in-process child per request."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from hookspecs.values import Capabilities, StopReasons, SubagentRequest

if TYPE_CHECKING:
    from .run import InProcessRun
    from .toolkit import SubagentToolkitImpl


class SpawnProvider:
    name = "spawn"

    def __init__(self, toolkit: SubagentToolkitImpl) -> None:
        self._toolkit = toolkit

    @property
    def capabilities(self) -> Mapping[str, bool]:
        return {
            Capabilities.OUTPUT_SCHEMA: True,
            Capabilities.DEPTH_LIMIT: True,
            Capabilities.TOOL_FILTER: True,
            Capabilities.PERSONA: True,
            Capabilities.AGENT_OPTIONS: True,
        }

    @property
    def stop_reasons(self) -> frozenset[str]:
        return frozenset({StopReasons.NO_STRUCTURED_OUTPUT})

    async def start(self, request: SubagentRequest) -> InProcessRun:
        return await self._toolkit.start_in_process(request, provider=self.name)
