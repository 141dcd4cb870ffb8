"""Run the ``harness`` command in a subprocess and report which modules it imported.

Start-up cost is asserted by behaviour, never by wall time: a command that
does not chat must not have imported the terminal chat, a hook that admits no
review must not have imported the host, the web stack or the HTTP client.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from .cli_env import cli_env

REPO = Path(__file__).resolve().parents[1]

#: runs ``harness.cli.main`` as the console script does, then writes ``sys.modules``
#: of every process it ran in (at exit, so a command that calls ``sys.exit`` is
#: seen whole; and at ``os._exit``, so the Stop hook's forked worker, which does
#: the hook's work and leaves without atexit handlers, is seen too)
_WRAPPER = """
import atexit, json, os, sys
out = sys.argv.pop(1)
def dump():
    with open(f"{out}.{os.getpid()}", "w") as handle:
        handle.write(json.dumps(sorted(sys.modules)))
atexit.register(dump)
real_exit = os._exit
def exit_dumped(status):
    dump()
    real_exit(status)
os._exit = exit_dumped
sys.argv[0] = "harness"
from harness.cli import main
sys.exit(main())
"""

#: what a command that only parses, lists or answers a Stop without a review never needs
HEAVY = (
    "harness.cli.chat",
    "harness.cli.chat_input",
    "harness.cli.markdown",
    "rich",
    "harness.web",
    "harness.host",
    "harness.llm.openai_compat",
    "httpx",
    "h11",
    "starlette",
    "hypercorn",
)


def imported_by(
    tmp: Path, *args: str, home: Path, stdin: bytes = b"", env: dict[str, str] | None = None
) -> tuple[subprocess.CompletedProcess[bytes], set[str]]:
    out = tmp / f"modules-{len(list(tmp.glob('modules-*')))}.json"
    run = subprocess.run(
        [sys.executable, "-c", _WRAPPER, str(out), *args],
        cwd=REPO,
        env=cli_env(DSH_HOME=str(home), **(env or {})),
        input=stdin,
        capture_output=True,
        timeout=120,
        check=False,
    )
    modules: set[str] = set()
    for each in tmp.glob(f"{out.name}.*"):
        modules |= set(json.loads(each.read_text()))
    return run, modules


async def imported_by_a_served_run(tmp: Path) -> tuple[subprocess.CompletedProcess[bytes], set[str], int]:
    """``harness run`` of one prompt with an ``openai-compatible`` root agent (a
    scripted loopback server), the tool subagent and the Shadow Mind bundle:
    the run, the modules it imported and how many requests the server saw."""
    import trio

    from .harness.openai import shapes
    from .harness.openai.server import Reply, ScriptedServer

    server = ScriptedServer(default=Reply.sse(shapes.text_stream(["Done."])))
    async with trio.open_nursery() as nursery:
        await server.start(nursery)
        profile = tmp / "profile.yml"
        profile.write_text(
            f"- id: local\n  name: openai-compatible\n  config:\n    provider: local\n"
            f"    base_url: {server.base_url}\n    models: [{{id: m}}]\n"
            "- id: agent-loop\n  name: agent-loop\n  config: {model: local/m}\n"
            "- id: tool-subagent\n  name: tool-subagent\n- bundle: shadow-mind\n"
        )
        work = tmp / "work"
        work.mkdir()
        argv = ("run", "--profile", str(profile), "--cwd", str(work), "--json", "hi")
        run, modules = await trio.to_thread.run_sync(
            lambda: imported_by(tmp, *argv, home=tmp / "home", env={"NO_PROXY": "127.0.0.1"})
        )
        nursery.cancel_scope.cancel()
    return run, modules, len(server.requests)


def heavy_in(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if any(m == h or m.startswith(h + ".") for h in HEAVY))
