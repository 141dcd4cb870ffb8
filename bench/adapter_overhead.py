"""How much the openai-compatible adapter costs over reading the same bytes raw.

Starts the loopback test server (``tests/harness/openai/server.py``, imported
by path so the bench and the tests share one server), scripts a ~1 MB SSE
answer of realistic DeepSeek-shaped text deltas, and times, per repetition:

* raw: ``httpx.AsyncClient.stream("POST", ...)`` + ``aiter_bytes()``;
* adapter: ``OpenAICompatibleAdapter.stream(...)`` until the finish chunk.

Two framings are measured: ``per-event`` (one HTTP chunk per SSE event, as
providers write them; the headline number) and ``bulk`` (events packed into
16 KiB HTTP chunks: raw reading becomes a handful of large reads, so this is
the worst case for per-event parsing). The server runs in the same trio run,
so its cost is in both timings. Run: ``python bench/adapter_overhead.py``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import httpx
import trio

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

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


async def time_raw(client: httpx.AsyncClient, url: str) -> tuple[float, int]:
    start = time.perf_counter()
    total = 0
    async with client.stream("POST", url + "/chat/completions", json={"model": "m", "stream": True}) as response:
        async for block in response.aiter_bytes():
            total += len(block)
    return time.perf_counter() - start, total


async def time_adapter(adapter: OpenAICompatibleAdapter, request: LlmRequest) -> tuple[float, int]:
    start = time.perf_counter()
    chunks = 0
    async for _chunk in adapter.stream(request, CancelToken()):
        chunks += 1
    return time.perf_counter() - start, chunks


async def run(repetitions: int) -> dict[str, float]:
    events = sse_events(TARGET_BYTES)
    total_bytes = sum(len(e) for e in events)
    framings = {"per-event": events, "bulk": pack(events, 16 * 1024)}
    request = LlmRequest(provider="bench", model="m", system="", messages=(create_user_message("go"),))
    ratios: dict[str, float] = {}
    print(f"SSE body: {total_bytes / 1e6:.2f} MB, {len(events)} events; {repetitions} repetitions (median)")
    async with trio.open_nursery() as nursery:
        for name, body in framings.items():
            server = ScriptedServer(default=Reply.sse(body))
            await server.start(nursery)
            config = parse_config({"provider": "bench", "base_url": server.base_url})
            adapter = OpenAICompatibleAdapter(config, trust_env=False)
            async with httpx.AsyncClient(trust_env=False, timeout=None) as client:
                await time_raw(client, server.base_url)  # warm up both paths
                await time_adapter(adapter, request)
                raw: list[float] = []
                ours: list[float] = []
                for _ in range(repetitions):
                    seconds, _size = await time_raw(client, server.base_url)
                    raw.append(seconds)
                    seconds, chunks = await time_adapter(adapter, request)
                    ours.append(seconds)
            await adapter.aclose()
            ratios[name] = statistics.median(ours) / statistics.median(raw)
            print(
                f"{name:>9}: raw httpx {statistics.median(raw) * 1000:7.1f} ms | "
                f"adapter {statistics.median(ours) * 1000:7.1f} ms ({chunks} chunks) | ratio {ratios[name]:.2f}x"
            )
        nursery.cancel_scope.cancel()
    return ratios


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", "--repetitions", type=int, default=7)
    args = parser.parse_args()
    ratios = trio.run(run, args.repetitions)
    verdict = "within" if ratios["per-event"] <= 1.5 else "above"
    print(f"per-event ratio {ratios['per-event']:.2f}x: {verdict} the 1.5x target")
    print(
        f"bulk ratio {ratios['bulk']:.2f}x: raw reading is a few large reads, so the adapter's "
        "per-event JSON parsing (stdlib json) dominates"
    )


if __name__ == "__main__":
    main()
