"""Evidence checks vs projection on the same root session (issue 24).

The session: the generated root turns of ``bench/projection.py`` (its realistic
mix: streamed ``assistant/chunk`` events, messages, ``read``/``grep``/``glob``/
``bash``/``edit`` calls and results with their output text, ~4% errors), held
in memory as ``SessionEvent`` values, at several sizes (default 1,000, 10,000
and 100,000 events) so the growth is visible.

Side by side in one run, per size, interleaved:

* ``project`` — ``shadow_mind_plugin.projection.project(events, watermark)``:
  what every review already pays from scratch; it renders messages, calls and
  size-only result summaries into the trajectory text.
* ``checks (full)`` — ``check_session(events, watermark, projection.seqs)``:
  one pass over the same events into a ``SessionView`` (tool calls joined with
  their results, output text, exit codes, the person's messages, the text
  corpus of arguments and outputs), then all seven checks and the refs
  allowlist filter.
* ``checks (+100 events)`` — what a runtime keeping a ``ViewBuilder`` per root
  pays after a tool turn: ``extend`` over the last 100 events, ``view()`` and
  all checks (the builder is primed, untimed, on the rest).

Ratios are against ``project``; the issue's bar is that the checks are cheap
enough to run after every tool turn, so ``checks (full)`` should stay within a
small constant factor of ``project`` at every size (no super-linear growth).
Samples are CPU seconds of the measuring thread (``time.thread_time``).

Run::

    python bench/checks.py [--sizes 1000,10000,100000] [--reps 7] [--profile]
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import compare_many
from projection import generate, mix

from hookspecs.values import SessionEvent
from shadow_mind_plugin.checks import ViewBuilder, check_session, run_checks
from shadow_mind_plugin.projection import project

GROW = 100


def session(total: int) -> list[SessionEvent]:
    pairs = itertools.islice(generate(), total)
    return [SessionEvent(type=t, seq=i, time=1.7e12 + 37.0 * i, data=d) for i, (t, d) in enumerate(pairs)]


def cpu(fn: Callable[[], object]) -> dict[str, float]:
    t, w = time.thread_time(), time.perf_counter()
    fn()
    return {"seconds": time.thread_time() - t, "wall": time.perf_counter() - w}


def incremental(events: list[SessionEvent], watermark: int, allowlist: object) -> dict[str, float]:
    builder = ViewBuilder()
    builder.extend(events[: len(events) - GROW], watermark)  # primed: untimed
    t, w = time.thread_time(), time.perf_counter()
    builder.extend(events, watermark)
    run_checks(builder.view(), allowlist)  # type: ignore[arg-type]
    return {"seconds": time.thread_time() - t, "wall": time.perf_counter() - w}


def measure(size: int, reps: int, *, profiled: bool) -> tuple[int, float, float, float, int]:
    """One size, the three variants interleaved: (size, project, checks, +100 events, findings)."""
    events = session(size)
    watermark = events[-1].seq
    allowlist = project(events, watermark).seqs
    found = check_session(events, watermark, allowlist)
    print(f"\n{size:,} events; mix: {mix(events)}\n  findings on the last turn: {[f.kind.value for f in found]}")
    result = compare_many(
        [
            ("project", lambda: cpu(lambda: project(events, watermark))),
            ("checks (full)", lambda: cpu(lambda: check_session(events, watermark, allowlist))),
            (f"checks (+{GROW} events)", lambda: incremental(events, watermark, allowlist)),
        ],
        reps=reps,
        units=size,
        unit="events",
        title=f"checks vs projection, {size:,} events (cpu seconds)",
    )
    full, step = result["checks (full)"], result[f"checks (+{GROW} events)"]
    if profiled:
        from _common import profile

        profile(lambda: check_session(events, watermark, allowlist), top=20, sort="tottime")
    return size, full.a.median, full.b.median, step.b.median, len(found)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000", help="comma-separated session sizes in events")
    parser.add_argument("--reps", type=int, default=7, help="timed repetitions per variant")
    parser.add_argument("--profile", action="store_true", help="cProfile the checks on the largest session")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s]
    rows = [measure(size, args.reps, profiled=args.profile and size == max(sizes)) for size in sizes]
    print("\nsummary (medians, cpu)")
    print(f"  {'events':>9}  {'project':>10}  {'checks':>10}  {'checks/project':>14}  {'+100 events':>11}")
    for size, proj, full_s, step_s, _ in rows:
        print(f"  {size:>9,}  {proj * 1e3:>7.2f} ms  {full_s * 1e3:>7.2f} ms  {full_s / proj:>14.2f}  {step_s * 1e3:>8.2f} ms")


if __name__ == "__main__":
    main()
