"""The ``openai-compatible`` plugin answers ``provider`` and ``models()`` from its
config and builds the HTTP adapter (httpx) at the first request (issue 20,
item 2): a process that never calls the model never imports it."""

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
print("httpx" in sys.modules, "harness.llm.openai_compat.adapter" in sys.modules)
real = adapter.loaded()
print("httpx" in sys.modules, real is adapter.loaded(), real.models() == adapter.models())
"""


def test_models_answer_without_httpx_and_the_adapter_is_built_once() -> None:
    run = subprocess.run(
        [sys.executable, "-c", _PROBE], cwd=REPO, env=cli_env(), capture_output=True, timeout=120, check=False
    )
    assert run.returncode == 0, run.stderr.decode()[-2000:]
    assert run.stdout.decode().splitlines() == ["p ['m'] 1000", "False False", "True True True"]
