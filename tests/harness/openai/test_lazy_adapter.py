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


#: httpx under asyncio, in a process whose adapter imported httpcore first
_ASYNCIO_PROBE = """
import asyncio, socket, sys, threading
from harness.llm.openai_compat.adapter import import_httpcore_without_h2
import_httpcore_without_h2()
import h2, httpx
listener = socket.create_server(("127.0.0.1", 0))
def answer():
    conn, _ = listener.accept()
    conn.recv(65536)
    conn.sendall(b"HTTP/1.1 200 OK\\r\\nContent-Length: 2\\r\\nConnection: close\\r\\n\\r\\nok")
    conn.close()
threading.Thread(target=answer, daemon=True).start()
async def get():
    async with httpx.AsyncClient() as client:
        response = await client.get(f"http://127.0.0.1:{listener.getsockname()[1]}/")
        print(response.status_code, response.text)
asyncio.run(get())
"""


def test_what_httpcore_was_imported_without_still_serves_whoever_needs_it() -> None:
    """anyio, left out of httpcore's import, is there for httpx under asyncio
    later in the process (an embedding tool's), and h2 imports as usual."""
    run = subprocess.run(
        [sys.executable, "-c", _ASYNCIO_PROBE], cwd=REPO, env=cli_env(), capture_output=True, timeout=120, check=False
    )
    assert run.returncode == 0, run.stderr.decode()[-2000:]
    assert run.stdout.decode().splitlines() == ["200 ok"]
