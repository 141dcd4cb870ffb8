"""A scripted model that writes what its process has imported when the first
request reaches it, to the file ``$FIRST_REQUEST_MODULES`` names: what a run
loads before its first model request, apart from what its end loads
(``tests/harness/test_run_path_imports.py``). Profile row:
``{id: llm, name: "tests.harness.first_request:RecordingLlmPlugin", config: {script: ...}}``.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator

from harness.llm.scripted import ScriptedAdapter, ScriptedLlmConfig, ScriptedLlmPlugin
from hookspecs.values import CancelToken, LlmRequest, StreamChunk

OUT_ENV = "FIRST_REQUEST_MODULES"


def _record(out: str) -> None:
    with open(out, "w", encoding="utf-8") as handle:
        json.dump(sorted(sys.modules), handle)


class _RecordingAdapter(ScriptedAdapter):
    async def stream(self, request: LlmRequest, cancel: CancelToken) -> AsyncIterator[StreamChunk]:
        out = os.environ.get(OUT_ENV)
        if out and not self.requests:
            _record(out)  # before anything else happens: a quick, small write
        async for chunk in super().stream(request, cancel):
            yield chunk


class RecordingLlmPlugin(ScriptedLlmPlugin):
    def __init__(self, config: ScriptedLlmConfig) -> None:
        super().__init__(config)
        self.adapter = _RecordingAdapter(self.adapter.script, provider=config.provider, chunk_size=config.chunk_size)
