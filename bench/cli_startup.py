"""What starting the ``harness`` command costs (issue 20, item 7).

Each row is one command run as a process, the way a person starts it, side
by side with ``python -c pass`` in one run, interleaved rep by rep, medians
compared:

* ``python -c pass``: the interpreter's own start, the unit of the ratios;
* the libraries alone: ``python -c`` importing what ``harness run`` cannot
  start without (trio, attrs, cattrs, pluggy, ruamel.yaml, h11), then
  ``os._exit(0)`` as the killed ``run`` sample has no teardown either. Not a
  target: it shows how much of ``run``'s ratio is the libraries' own import
  and how much is this project's code and work;
* ``harness --help``: parse the arguments, print the usage, exit;
* ``harness run`` to its first model request: a one-prompt ``harness run``
  (``--json``) with a profile that routes the root agent to an
  ``openai-compatible`` provider at a loopback server (the scripted server of
  ``tests/harness/openai/server.py``, run in this process), the tool
  subagent and the Shadow Mind bundle, as ``examples/profiles/deepseek.yml``
  sets up. The sample ends when the request arrives at the server: the
  process is killed there, so its CPU time is what it spent from ``exec`` to
  the request (parse, profile, plugins, host, session, adapter, the request
  itself), and the wall time is taken from spawn to arrival;
* ``harness run`` whole: the same command answered with one short streamed
  reply, run to its exit (the turn, the session's fsync, the drain, the exit).

Columns: CPU (user + system, ``getrusage(RUSAGE_CHILDREN)``) and wall time,
each with its ratio to ``python -c pass``. Bytecode is cached: a private
``PYTHONPYCACHEPREFIX`` is warmed by one untimed run of every row (this
environment may set ``PYTHONDONTWRITEBYTECODE``); ``--uncached`` adds the
same rows with an empty cache and no writes.

Target: ``harness run`` to its first model request at most 8x ``python -c
pass``. Run::

    python bench/cli_startup.py [--reps 5] [--uncached]
"""

from __future__ import annotations

import argparse
import os
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import trio

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from tests.harness.openai import shapes  # noqa: E402
from tests.harness.openai.server import Reply, ScriptedServer  # noqa: E402

KEY_ENV = "BENCH_STARTUP_KEY"
#: what ``harness run`` imports from other projects before its first request
LIBRARIES = "import os, trio, attrs, cattrs, pluggy, ruamel.yaml, h11; os._exit(0)"
TARGET = 8.0
PROFILE = """
- id: local
  name: openai-compatible
  config:
    provider: local
    base_url: {base_url}
    api_key_env: {key}
    retry_base_seconds: 0
    models: [{{id: m, context_window: 64000}}]
- id: agent-loop
  name: agent-loop
  config: {{model: local/m}}
- id: tool-subagent
  name: tool-subagent
- bundle: shadow-mind
"""


class Row:
    """One command; ``until_request`` ends each sample when the server sees a request."""

    def __init__(self, name: str, argv: list[str], *, until_request: bool = False) -> None:
        self.name, self.argv, self.until_request = name, argv, until_request
        self.cpu: list[float] = []
        self.wall: list[float] = []


class ArrivalServer(ScriptedServer):
    """The scripted server, noting when each request arrived."""

    def __init__(self) -> None:
        super().__init__(default=Reply.sse(shapes.text_stream(["Done", "."]), framing="chunked"))
        self.arrived = trio.Event()
        self.at = 0.0

    def _take(self) -> Reply:
        self.at = time.perf_counter()
        self.arrived.set()
        return super()._take()


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


async def sample(row: Row, env: dict[str, str], server: ArrivalServer, cwd: Path) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one run of ``row``."""
    server.arrived = trio.Event()
    before = _children_cpu()
    start = time.perf_counter()
    process = await trio.lowlevel.open_process(
        row.argv, env=env, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    try:
        with trio.fail_after(120):
            if row.until_request:
                await server.arrived.wait()
                end = server.at
                process.send_signal(signal.SIGKILL)
                await process.wait()
            else:
                code = await process.wait()
                end = time.perf_counter()
                if code != 0:
                    raise SystemExit(f"{row.name} exited {code}")
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    return _children_cpu() - before, end - start


def environments(root: Path, uncached: bool) -> dict[str, dict[str, str]]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("DSH_", "PYTHON"))}
    base = {k: v for k, v in base.items() if k.lower() not in ("http_proxy", "https_proxy", "all_proxy")}
    base.update({"DSH_HOME": str(root / "home"), KEY_ENV: "sk-bench-startup-0123456789abcdef"})
    (root / "pyc-cached").mkdir()
    envs = {"cached": {**base, "PYTHONPYCACHEPREFIX": str(root / "pyc-cached")}}
    if uncached:
        (root / "pyc-empty").mkdir()
        envs["not cached"] = {**base, "PYTHONPYCACHEPREFIX": str(root / "pyc-empty"), "PYTHONDONTWRITEBYTECODE": "1"}
    return envs


async def measure(args: argparse.Namespace) -> list[tuple[str, Row]]:
    with tempfile.TemporaryDirectory(prefix="bench-startup-") as tmp:
        root = Path(tmp)
        work = root / "work"
        work.mkdir()
        envs = environments(root, args.uncached)
        async with trio.open_nursery() as nursery:
            server = ArrivalServer()
            await server.start(nursery)
            profile = root / "profile.yml"
            profile.write_text(PROFILE.format(base_url=server.base_url, key=KEY_ENV))
            harness = [sys.executable, "-m", "harness"]
            run = [*harness, "run", "--profile", str(profile), "--cwd", str(work), "--json", "hi"]
            rows = [
                Row("python -c pass", [sys.executable, "-c", "pass"]),
                Row("the libraries alone (import, no work)", [sys.executable, "-c", LIBRARIES]),
                Row("harness --help", [*harness, "--help"]),
                Row("harness run, to its first model request", run, until_request=True),
                Row("harness run, whole", run),
            ]
            table = [(mode, Row(row.name, row.argv, until_request=row.until_request)) for mode in envs for row in rows]
            for mode, row in table:  # warm the cached mode's bytecode (and the page cache)
                await sample(row, envs[mode], server, work)
            for rep in range(args.reps):
                for mode, row in table if rep % 2 == 0 else table[::-1]:
                    cpu, wall = await sample(row, envs[mode], server, work)
                    row.cpu.append(cpu)
                    row.wall.append(wall)
                print(f"rep {rep + 1}/{args.reps} done", file=sys.stderr, flush=True)
            nursery.cancel_scope.cancel()
        return table


def report(table: list[tuple[str, Row]]) -> None:
    median: Callable[[list[float]], float] = statistics.median
    floors = {mode: row for mode, row in table if row.name == "python -c pass"}
    print(f"{'case':<44} {'bytecode':<10} {'CPU':>9} {'x pass':>7} {'wall':>9} {'x pass':>7}")
    for mode, row in table:
        floor = floors[mode]
        cpu, wall = median(row.cpu), median(row.wall)
        cpu_x, wall_x = cpu / median(floor.cpu), wall / median(floor.wall)
        verdict = ""
        if row.until_request and mode == "cached":
            verdict = f"  (target <= {TARGET:g}x: {'OK' if cpu_x <= TARGET else 'OVER'})"
        print(f"{row.name:<44} {mode:<10} {cpu:>8.3f}s {cpu_x:>7.1f} {wall:>8.3f}s {wall_x:>7.1f}{verdict}")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--uncached", action="store_true", help="also run every row with no bytecode cache")
    args = parser.parse_args()
    report(trio.run(measure, args))


if __name__ == "__main__":
    main()
