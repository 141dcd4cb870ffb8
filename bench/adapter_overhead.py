"""How much the openai-compatible adapter costs over reading the same bytes raw.

The loopback test server (``tests/harness/openai/server.py``, imported by
path so the bench and the tests share one server) runs in **another
process** (this script with ``--serve``), as a provider does: its own cost is
in neither timing, so the ratio is what the client side of the adapter costs.
(With the server in the same trio loop, its fixed cost padded both sides and
flattered the ratio.) The server answers every request with the same ~1 MB
SSE answer of realistic DeepSeek-shaped text deltas; per repetition, in
alternating order, the client process times:

* raw: the adapter's own HTTP client, ``harness.llm.http1.Client.send("POST",
  ...)`` + ``aiter_bytes()`` -- reads the bytes and nothing else;
* adapter: ``OpenAICompatibleAdapter.stream(...)`` until the finish chunk --
  the same request and bytes, parsed into stream chunks.

Two framings are measured: ``per-event`` (one HTTP chunk per SSE event, as
providers write them; the headline number) and ``bulk`` (events packed into
16 KiB HTTP chunks: raw reading becomes a handful of large reads, so this is
the worst case for per-event parsing). The ratio is of wall medians; the
client process's CPU medians are shown alongside. Run:
``python bench/adapter_overhead.py [-n 7] [--quick]``.
"""

from __future__ import annotations

import argparse
import functools
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import trio

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from harness.llm import http1  # noqa: E402
from harness.llm.openai_compat import OpenAICompatibleAdapter, parse_config  # noqa: E402
from hookspecs.values.cancel import CancelToken  # noqa: E402
from hookspecs.values.llm import LlmRequest  # noqa: E402
from hookspecs.values.messages import create_user_message  # noqa: E402
from tests.harness.openai import shapes  # noqa: E402
from tests.harness.openai.server import Reply, ScriptedServer  # noqa: E402

TARGET_BYTES = 1_000_000
PIECES = ["The", " quick", " brown", " fox", " jumps", " over", " the", " lazy", " dog", ".", "\n"]


def sse_events(target: int) -> list[bytes]:
    objs = [shapes.chunk(role="assistant", content="")]
    size = 0
    i = 0
    while size < target:
        event = shapes.event(shapes.chunk(content=PIECES[i % len(PIECES)]))
        objs.append(shapes.chunk(content=PIECES[i % len(PIECES)]))
        size += len(event)
        i += 1
    objs.append(shapes.chunk(content="", finish="stop"))
    objs.append(shapes.chunk(choices=False, usage=shapes.usage(10, i)))
    return shapes.events(objs)


def pack(events: list[bytes], size: int) -> list[bytes]:
    out: list[bytes] = []
    current: list[bytes] = []
    length = 0
    for event in events:
        current.append(event)
        length += len(event)
        if length >= size:
            out.append(b"".join(current))
            current, length = [], 0
    if current:
        out.append(b"".join(current))
    return out


Sample = tuple[float, float]  # wall, client CPU


async def time_raw(client: http1.Client, url: str) -> Sample:
    wall, cpu = time.perf_counter(), time.process_time()
    headers = {"content-type": "application/json"}
    response = await client.send("POST", url + "/chat/completions", headers=headers, content=b'{"model": "m", "stream": true}')
    try:
        async for _block in response.aiter_bytes():
            pass
    finally:
        await response.aclose()
    return time.perf_counter() - wall, time.process_time() - cpu


async def time_adapter(adapter: OpenAICompatibleAdapter, request: LlmRequest) -> Sample:
    wall, cpu = time.perf_counter(), time.process_time()
    async for _chunk in adapter.stream(request, CancelToken()):
        pass
    return time.perf_counter() - wall, time.process_time() - cpu


def framed(name: str, target: int) -> list[bytes]:
    events = sse_events(target)
    return events if name == "per-event" else pack(events, 16 * 1024)


async def serve(name: str, target: int) -> None:
    """The ``--serve`` side: answer every request with the framing's body;
    prints the port, stops when stdin closes (the bench process went away)."""
    async with trio.open_nursery() as nursery:
        server = ScriptedServer(default=Reply.sse(framed(name, target)))
        await server.start(nursery)
        print(server.port, flush=True)
        await trio.to_thread.run_sync(sys.stdin.read)
        nursery.cancel_scope.cancel()


def start_server(name: str, target: int) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, __file__, "--serve", name, "--bytes", str(target)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline().strip()
    if not line.isdigit():
        proc.kill()
        raise SystemExit(f"the {name} server process did not start (it printed {line!r})")
    return proc, f"http://127.0.0.1:{line}/v1"


def stop_server(proc: subprocess.Popen[str]) -> None:
    assert proc.stdin is not None
    proc.stdin.close()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def median_of(samples: list[Sample], index: int) -> float:
    return statistics.median(s[index] for s in samples)


async def run(repetitions: int, target: int) -> dict[str, float]:
    events = sse_events(target)
    request = LlmRequest(provider="bench", model="m", system="", messages=(create_user_message("go"),))
    ratios: dict[str, float] = {}
    print(
        f"SSE body: {sum(len(e) for e in events) / 1e6:.2f} MB, {len(events)} events; server in another process; "
        f"{repetitions} repetitions (median, alternating order)"
    )
    for name in ("per-event", "bulk"):
        proc, url = start_server(name, target)
        try:
            adapter = OpenAICompatibleAdapter(parse_config({"provider": "bench", "base_url": url}), trust_env=False)
            client = http1.Client(trust_env=False)
            sides: list[Callable[[], Awaitable[Sample]]] = [
                functools.partial(time_raw, client, url),
                functools.partial(time_adapter, adapter, request),
            ]
            for side in sides:  # warm up both paths (connections, imports, caches)
                await side()
            samples: list[list[Sample]] = [[], []]
            for rep in range(repetitions):
                for k in (0, 1) if rep % 2 == 0 else (1, 0):
                    samples[k].append(await sides[k]())
            await client.aclose()
            await adapter.aclose()
        finally:
            stop_server(proc)
        raw, ours = samples
        ratios[name] = median_of(ours, 0) / median_of(raw, 0)
        print(
            f"{name:>9}: raw client {median_of(raw, 0) * 1000:7.1f} ms (cpu {median_of(raw, 1) * 1000:6.1f} ms) | "
            f"adapter {median_of(ours, 0) * 1000:7.1f} ms (cpu {median_of(ours, 1) * 1000:6.1f} ms) | "
            f"ratio {ratios[name]:.2f}x (cpu {median_of(ours, 1) / median_of(raw, 1):.2f}x)"
        )
    return ratios


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("-n", "--repetitions", type=int, default=7)
    parser.add_argument("--bytes", type=int, default=TARGET_BYTES, help="size of the SSE answer")
    parser.add_argument("--quick", action="store_true", help="a 100 kB answer, 2 repetitions (a smoke run)")
    parser.add_argument("--serve", choices=("per-event", "bulk"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        trio.run(serve, args.serve, args.bytes)
        return
    if args.quick:
        args.bytes, args.repetitions = 100_000, 2
    ratios = trio.run(run, args.repetitions, args.bytes)
    verdict = "within" if ratios["per-event"] <= 1.5 else "above"
    print(f"per-event ratio {ratios['per-event']:.2f}x: {verdict} the 1.5x target")
    print(
        f"bulk ratio {ratios['bulk']:.2f}x: raw reading is a few large reads, so the adapter's "
        "per-event JSON parsing (stdlib json) dominates"
    )


if __name__ == "__main__":
    main()
