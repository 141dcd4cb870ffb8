"""Degenerate-output watchdog throughput: characters per second through
``DegenerateOutputGuard.observe_chunk`` against plain string concatenation of
the same stream.

The stream is ~5 MB of varied, non-degenerate prose (English sentences, code
identifiers and paths, some Chinese and accented text), cut into chunks of
10–30 characters like a model's deltas, alternating text and reasoning
channels, with a step boundary every ~40 000 characters (as a real child
calls tools), so the guard must never fire.

Variants, interleaved (same stream, same per-chunk call shape):

* ``concat``   — a sink whose ``observe_chunk(text, kind)`` does plain string
  concatenation of the stream (``buf = buf + text``, cut back to the last 128
  characters when it passes 256, as the guard does, so it stays linear);
* ``watchdog`` — ``DegenerateOutputGuard.observe_chunk`` (UTF-16 units, both
  budgets, the tail and the repetition check);
* ``list``     — for reference, a sink that only appends each chunk to a list.

Target: watchdog/concat time ratio <= 3. The primary sample is the process's
CPU time (the loop is single-threaded and CPU-bound, and CPU time is far less
disturbed by a busy machine than wall time); wall time is reported alongside.
A bare ``s += chunk`` loop (no call per chunk) is printed for scale.
Run: ``python bench/watchdog_throughput.py`` (``--mb N --reps R``,
``--profile`` to cProfile one watchdog pass).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import compare, fmt_seconds, profile

from shadow_mind_plugin.run.watchdog import DegenerateOutputGuard, resolve_reasoning_budget

TARGET = 3.0
BOUNDARY_EVERY = 40_000  # characters between simulated tool calls

WORDS = (
    "the a of to and in is that for it as with on be by this are or from at an not which have but "
    "parser token tree walk build node span error recovery bracket input output value index module "
    "import function class method return yield buffer stream chunk report review anchor window "
    "budget signal event session header turn step message reply cache queue thread socket packet "
    "frame layer model route vendor schema field record journal status phase stage reason code "
    "epoch cycle batch relay literal secret test suite assertion fixture failure success retry "
    "timeout deadline cancel scope nursery task worker pool lock mutex channel sender receiver "
    "file path directory workspace config setting profile option default value range bound limit "
    "because however although therefore meanwhile instead otherwise finally first second next "
    "quickly carefully roughly exactly probably clearly simply usually often rarely never always "
    "check verify confirm compare measure compute render format parse serialize validate reject "
    "naïve café résumé façade coördinate"
).split()
CJK = "数据 变量 函数 测试 解析器 错误 恢复 会话 消息 报告 审查 窗口 预算 信号 模型 路由".split()
IDENTS = "src/parser.py lib/utils.ts README.md parse_tokens() self.buffer ctx.agents tool_call_id len(tokens)".split()


def make_stream(total_chars: int, seed: int = 1) -> list[tuple[str, str]]:
    """(chunk, kind) pairs of varied prose."""
    rng = random.Random(seed)
    parts: list[str] = []
    size = 0
    while size < total_chars:
        roll = rng.random()
        if roll < 0.08:
            sentence = "".join(rng.sample(CJK, rng.randint(4, 9))) + "。"
        else:
            n = rng.randint(6, 22)
            words = []
            for _ in range(n):
                pool = IDENTS if rng.random() < 0.05 else WORDS
                words.append(rng.choice(pool))
            sentence = " ".join(words).capitalize() + rng.choice([". ", ". ", "? ", ":\n", ".\n\n"])
        parts.append(sentence)
        size += len(sentence)
    text = "".join(parts)[:total_chars]
    chunks: list[tuple[str, str]] = []
    i = 0
    kind = "reasoning"
    while i < len(text):
        step = rng.randint(10, 30)
        if rng.random() < 0.002:
            kind = "text" if kind == "reasoning" else "reasoning"
        chunks.append((text[i : i + step], kind))
        i += step
    return chunks


class ConcatSink:
    """The baseline: same call per chunk, plain string concatenation."""

    def __init__(self) -> None:
        self.buf = ""

    def observe_chunk(self, text: str, kind: str) -> None:
        buf = self.buf + text
        if len(buf) > 256:
            buf = buf[-128:]
        self.buf = buf

    def observe_boundary(self) -> None:
        pass


class ListSink:
    """Reference: same call per chunk, only keeps the chunk."""

    def __init__(self) -> None:
        self.parts: list[str] = []

    def observe_chunk(self, text: str, kind: str) -> None:
        self.parts.append(text)

    def observe_boundary(self) -> None:
        pass


def drive(consumer: Any, chunks: list[tuple[str, str]]) -> dict[str, float]:
    """Feed the stream with a step boundary every BOUNDARY_EVERY characters."""
    observe = consumer.observe_chunk
    boundary = consumer.observe_boundary
    seen = 0
    wall, cpu = time.perf_counter(), time.process_time()
    for text, kind in chunks:
        observe(text, kind)
        seen += len(text)
        if seen >= BOUNDARY_EVERY:
            boundary()
            seen = 0
    return {"seconds": time.process_time() - cpu, "wall": time.perf_counter() - wall}


def run_watchdog(chunks: list[tuple[str, str]]) -> dict[str, float]:
    guard = DegenerateOutputGuard(resolve_reasoning_budget("high"))
    sample = drive(guard, chunks)
    if guard.fired:
        raise SystemExit(f"the guard fired on prose ({guard.reason}); the stream is not realistic")
    return sample


def bare_loop(chunks: list[tuple[str, str]]) -> float:
    start = time.perf_counter()
    buf = ""
    for text, _ in chunks:
        buf += text
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=5.0, help="stream size in millions of characters")
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    chunks = make_stream(int(args.mb * 1_000_000))
    chars = sum(len(c) for c, _ in chunks)
    if args.profile:
        profile(lambda: run_watchdog(chunks))
        return
    print(f"stream: {chars:,} chars in {len(chunks):,} chunks (mean {chars / len(chunks):.1f})")
    bare = min(bare_loop(chunks) for _ in range(3))
    print(f"  bare `s += chunk` loop: {fmt_seconds(bare)}  {chars / bare:>14,.0f} chars/s (no call per chunk)")
    common: dict[str, Any] = {"reps": args.reps, "units": chars, "unit": "chars"}
    compare(
        "list",
        lambda: drive(ListSink(), chunks),
        "watchdog",
        lambda: run_watchdog(chunks),
        title="for reference: watchdog vs appending chunks to a list (CPU time)",
        **common,
    )
    comparison = compare(
        "concat",
        lambda: drive(ConcatSink(), chunks),
        "watchdog",
        lambda: run_watchdog(chunks),
        target=TARGET,
        title="watchdog vs plain string concatenation (CPU time)",
        **common,
    )
    print(f"\nwatchdog: {chars / comparison.b.median:,.0f} chars/s (CPU); ratio vs concat {comparison.ratio:.2f}"
          f" (target <= {TARGET:g}) {'OK' if comparison.ok else 'OVER'}")


if __name__ == "__main__":
    main()
