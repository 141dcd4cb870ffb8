"""The ``openai-compatible`` plugin answers ``provider`` and ``models()`` from its
config and builds the HTTP adapter (and its HTTP client) at the first request
(issue 20, item 2): a process that never calls the model never imports it."""

from __future__ import annotations

import subprocess
import sys

from ...cli_env import cli_env
from ...cli_modules import REPO

_PROBE = """
import sys, trio
from harness.llm.openai_compat import OpenAICompatiblePlugin
plugin = OpenAICompatiblePlugin({"provider": "p", "base_url": "http://127.0.0.1:9/v1",
                                 "models": [{"id": "m", "context_window": 1000}]})
adapter = plugin.adapter
print(adapter.provider, [m.id for m in adapter.models()], adapter.models()[0].context_window)
trio.run(adapter.aclose)  # nothing built, nothing to close
client = ("harness.llm.http1", "h11")
print(any(m in sys.modules for m in client), "harness.llm.openai_compat.adapter" in sys.modules)
real = adapter.loaded()
print(all(m in sys.modules for m in client), real is adapter.loaded(), real.models() == adapter.models())
print(sorted(m for m in ("httpx", "httpcore", "anyio", "h2") if m in sys.modules))
"""


def test_models_answer_without_the_client_and_the_adapter_is_built_once() -> None:
    run = subprocess.run(
        [sys.executable, "-c", _PROBE], cwd=REPO, env=cli_env(), capture_output=True, timeout=120, check=False
    )
    assert run.returncode == 0, run.stderr.decode()[-2000:]
    # the adapter's client is its own HTTP/1.1 one: httpx and its stack never load
    assert run.stdout.decode().splitlines() == ["p ['m'] 1000", "False False", "True True True", "[]"]
