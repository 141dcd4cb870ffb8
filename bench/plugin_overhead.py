"""Shadow Mind's cost on root turns: when it never reviews, and at the shipped default.

Scripted root tool turns (the user asks, the model calls ``read`` on a small
file, the tool runs, the model answers; ~22 session events, 2 model requests
per turn) on hosts side by side in one trio loop, one root agent each:

* ``absent``       — no Shadow Mind rows;
* ``shadow p=0``   — the Shadow Mind bundle (rows ``shadow-mind-runtime`` and
  ``tool-shadow-mind``, as ``tests/shadow/helpers.shadow_rows``) with
  ``$DSH_HOME/shadow-minds/default.md`` at ``activation_probability: 0``: every
  completed tool turn is eligible; the runtime's turn-end observer reads the
  definition catalog (a directory scan at most once per
  ``CATALOG_SCAN_SECONDS``), sees the default never rolls, and stops there:
  no owner state, card or task is made, no reviewer launched; its other hooks
  (inbox, status, pre-step) run on every turn and leave at their first check;
  The ``managementTools`` setting is at its default (off): the root's
  requests carry no management tools (docs/shadow-mind.md says why);
* ``shadow default`` — the same bundle with ``default.md`` at the shipped
  ``activation_probability`` (``DEFAULT_ACTIVATION_PROBABILITY``, 0.7) and a
  fixed ``randomSeed``: about that share of turns starts a reviewer child
  (trajectory projection, framed prompt, the child's own agent and log, its
  one model request), whose scripted reply is an instant ``structured_output``
  of ``status: silent`` — nothing is relayed, so the root's turns are the same
  as on the other hosts and everything extra is the review itself (a model
  that takes time to answer would add its wait, not CPU). Informational: what
  a person running the default pays per turn, CPU only;
* ``runtime only`` — with ``--runtime-only``, informational: only the
  ``shadow-mind-runtime`` row (no ``/shadow`` command), to tell the two rows'
  costs apart;
* ``tools on`` — with ``--tools-on``, informational: the bundle with
  ``managementTools: true`` (four more tools in every root request).

Every host runs exactly the same turns and scripted replies; only the rows
and ``default.md`` differ. A repetition is a block of ``--block`` turns on each host, in an order that
rotates every repetition (sessions grow in step; machine noise hits all
alike). After each turn the bench also waits for the host's background work
(the runtime schedules its anchor with ``host.spawn``), for every host, so
deferred work is inside the measured turn. Default: 40 repetitions of 25
turns = 1,000 timed turns per host, after a warm-up block.

Primary sample: CPU seconds of the process per block (steadier on a shared
VM; includes syscalls such as the definition directory scans); wall is
printed too. The verdict uses the **median of the per-repetition ratios**
(each repetition's ``shadow p=0`` block over the ``absent`` block run next
to it: drift between repetitions cancels out), printed with its interquartile
range; the ratio of the medians is printed alongside. Target: ``shadow p=0``
/ ``absent`` <= 1.02.

The anchor re-reads the definition directory on every eligible turn
(``ShadowRegistry.list()``: a ``scandir`` + a ``stat`` per file + a ``stat`` of
the holdout sidecar), but parses ``default.md`` only when its stamp (mtime,
ctime, size, inode) changes: after the timed runs the bench prints the
parse count and, from one extra instrumented block, the directory scans per
turn. ``default.md`` is back-dated past the registry's 2 s "racy" window so
the cache is trusted from the first turn, as it is for any file not edited in
the last 2 seconds. Run::

    python bench/plugin_overhead.py [--reps 40 --block 25] [--dir /dev/shm] [--runtime-only] [--tools-on] [--profile] [--aa] [--quick]
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import sys
import time
from collections import Counter
from collections.abc import AsyncIterator, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import trio

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import compare_many, profiled, temp_dsh_home, verdict
from _scripted import RoutedAdapter

from harness.host import HarnessHost, open_host
from harness.llm.scripted import AdapterPlugin
from harness.profiles import ProfileRow
from hookspecs.protocols import CreateAgentOptions
from hookspecs.values import AgentOptions, create_user_message
from shadow_mind_plugin.plugin import runtime_for
from shadow_mind_plugin.vocabulary import DEFAULT_ACTIVATION_PROBABILITY

TARGET = 1.02

SCRIPT = """
responses:
  - reply:
      text: "Let me look at the notes for this question."
      tool_calls:
        - name: read
          arguments: {path: notes.txt}
  - reply:
      text: "The notes say the deploy target is staging; that answers the question."
  - reply:
      tool_calls:
        - name: structured_output
          arguments: {status: silent, content: ""}
"""

DEFINITION = """---
id: default
name: Reviewer
enabled: true
activation_probability: {probability}
---

Check the root's claims against its tool results.
"""

RUNTIME_ROW = ProfileRow(id="shadow-mind-runtime", name="shadow-mind-runtime", config={}, layer="bench")
#: the default's rolls are seeded so every run reviews the same turns
DEFAULT_ROW = ProfileRow(
    id="shadow-mind-runtime", name="shadow-mind-runtime", config={"randomSeed": 7, "resultBatchWindowMs": 0}, layer="bench"
)
TOOLS_ON_ROW = ProfileRow(id="shadow-mind-runtime", name="shadow-mind-runtime", config={"managementTools": True}, layer="bench")
TOOLS_ROW = ProfileRow(id="tool-shadow-mind", name="tool-shadow-mind", layer="bench")


def profiled_focus(fn: Any) -> Any:
    return profiled(fn, focus="shadow_mind_plugin")


def write_definition(home: Path, probability: float) -> Path:
    root = home / "shadow-minds"
    root.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = root / "default.md"
    path.write_text(DEFINITION.format(probability=probability))
    # older than the registry's racy window: the stat cache is trusted at once
    past = time.time() - 60
    os.utime(path, (past, past))
    return path


class Runner:
    """One host with one root agent; runs blocks of turns on it."""

    def __init__(self, name: str, host: HarnessHost, agent: Any) -> None:
        self.name = name
        self.host = host
        self.agent = agent
        self.turns = 0

    async def block(self, turns: int) -> dict[str, float]:
        agent, host = self.agent, self.host
        start, cpu_start = time.perf_counter(), time.process_time()
        for _ in range(turns):
            agent.followup(create_user_message(f"what is the deploy target? (question {self.turns})"))
            while True:  # a review runs in the background: the turn is done when it is
                await agent.when_idle()
                await host.wait_background_idle()
                await trio.lowlevel.checkpoint()
                if agent.quiescent and not host.background_busy:
                    break
            self.turns += 1
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu_start
        end = agent.session.events[-1]
        if end.type != "turn/end" or end.data["reason"]["kind"] != "completed":
            raise SystemExit(f"{self.name}: bench run went wrong: last event {end.type} {end.data}")
        return {"seconds": cpu, "wall": elapsed}


@asynccontextmanager
async def running(
    name: str, home: Path, work: Path, rows: Sequence[ProfileRow], probability: float = 0.0
) -> AsyncIterator[Runner]:
    if rows:
        write_definition(home, probability)
    adapter = RoutedAdapter.from_text(SCRIPT, source="<bench>")
    logger = logging.getLogger("bench-host")
    async with open_host(
        rows=rows,
        dsh_home=home,
        cwd=work,
        headless=True,
        extra_plugins=[("bench-adapter", AdapterPlugin(adapter))],
        environ={},
        logger=logger,
    ) as host:
        handle = await host.agents.create(CreateAgentOptions(agent_options=AgentOptions(provider="scripted", model="m")))
        yield Runner(name, host, handle.agent)
        await handle.dispose()


def shadow_report(runner: Runner) -> str:
    runtime = runtime_for(runner.host)
    if runtime is None:
        return f"  {runner.name}: no Shadow Mind runtime"
    state = runtime.owners.get(runner.agent.id)
    cycles = len(state.governance.cycles) if state is not None else 0
    runs = state.run.total_runs if state is not None else 0
    phases = Counter(str(view.phase) for cycle in state.governance.cycles.values() for view in cycle.runs) if state else {}
    outcomes = ", ".join(f"{count} {phase}" for phase, count in sorted(phases.items()))
    return (
        f"  {runner.name}: {runner.turns} turns, {cycles} eligible turn ends seen, {runs} reviewer runs"
        f"{f' ({outcomes})' if outcomes else ''}, default.md parsed {runtime.registry.parse_count}x"
    )


async def count_scans(runner: Runner, turns: int) -> str:
    """One extra, untimed block with ``ShadowRegistry._scan`` wrapped to count calls."""
    runtime = runtime_for(runner.host)
    if runtime is None:
        return ""
    registry = runtime.registry
    calls = {"scan": 0}
    original = registry._scan

    def counted() -> Any:
        calls["scan"] += 1
        return original()

    registry._scan = counted  # type: ignore[method-assign]
    parses = registry.parse_count
    try:
        await runner.block(turns)
    finally:
        del registry._scan
    return (
        f"  {runner.name}: {calls['scan'] / turns:.1f} definition-directory scans per turn, "
        f"{registry.parse_count - parses} parses in {turns} turns (stat cache)"
    )


async def run(args: argparse.Namespace, root: Path, home: Path) -> None:
    work = root / "work"
    work.mkdir()
    (work / "notes.txt").write_text("the deploy target is staging\n")
    shadow_rows = () if args.aa else (RUNTIME_ROW, TOOLS_ROW)
    async with AsyncExitStack() as stack:
        absent = await stack.enter_async_context(running("absent", root / "home-absent", work, ()))
        shadow = await stack.enter_async_context(running("shadow p=0", home, work, shadow_rows))
        default_rows = (DEFAULT_ROW, TOOLS_ROW)
        default = await stack.enter_async_context(
            running("shadow default", root / "home-default", work, default_rows, DEFAULT_ACTIVATION_PROBABILITY)
        )
        runners = [absent, shadow, default]
        if args.runtime_only:
            runners.append(await stack.enter_async_context(running("runtime only", root / "home-runtime", work, (RUNTIME_ROW,))))
        if args.tools_on:
            rows = (TOOLS_ON_ROW, TOOLS_ROW)
            runners.append(await stack.enter_async_context(running("tools on", root / "home-tools", work, rows)))
        if args.profile:
            for runner in runners:
                await runner.block(args.block)
            await profiled_focus(shadow.block)(args.block * args.reps)
            return

        def variant(runner: Runner) -> Any:
            return lambda: trio.from_thread.run(runner.block, args.block)

        print(
            f"plugin overhead: {args.reps} blocks of {args.block} scripted root tool turns (read + answer) per host, "
            f"interleaved; DSH_HOME under {root}{' [A/A: shadow host has no rows]' if args.aa else ''}"
        )
        results = await trio.to_thread.run_sync(
            lambda: compare_many(
                [(r.name, variant(r)) for r in runners],
                reps=args.reps,
                targets={"shadow p=0": TARGET},
                units=args.block,
                unit="turns",
                title="primary sample: CPU seconds per block (wall alongside)",
            )
        )
        print("\nwhat the runtime saw")
        for runner in runners[1:]:
            print(shadow_report(runner))
        for runner in (shadow,):
            line = await count_scans(runner, args.block)
            if line:
                print(line)
    c = results["shadow p=0"]
    paired = paired_ratios(c)
    quartiles = statistics.quantiles(paired, n=4) if len(paired) > 1 else [paired[0]] * 3
    a_cpu, b_cpu = c.a.median, c.b.median
    a_wall, b_wall = c.a.extra_median("wall"), c.b.extra_median("wall")
    print(
        f"\nsummary ({args.reps * args.block} timed turns per host)"
        f"\n  turns per CPU second:  absent {args.block / a_cpu:7.1f}   shadow p=0 {args.block / b_cpu:7.1f}"
        f"\n  turns per wall second: absent {args.block / a_wall:7.1f}   shadow p=0 {args.block / b_wall:7.1f}"
        f"\n  per turn: absent {a_cpu / args.block * 1e6:7.1f} us cpu; shadow p=0 adds "
        f"{(b_cpu - a_cpu) / args.block * 1e6:6.1f} us cpu, {(b_wall - a_wall) / args.block * 1e6:6.1f} us wall"
        f"\n  shadow p=0 / absent CPU time, median of {len(paired)} per-repetition ratios: {quartiles[1]:.3f}"
        f" (interquartile {quartiles[0]:.3f}-{quartiles[2]:.3f}){verdict(quartiles[1], TARGET, False)}"
        f"\n  shadow p=0 / absent CPU time, ratio of the medians: {c.ratio:.3f}"
        f"\n  shadow p=0 / absent wall ratio     {b_wall / a_wall:.3f} (informational: includes fsync and wake-ups)"
    )
    d = results["shadow default"]
    print(
        f"  shadow default (p={DEFAULT_ACTIVATION_PROBABILITY:g}, scripted silent reviewer) / absent CPU time, median of "
        f"per-repetition ratios {statistics.median(paired_ratios(d)):.3f}; adds {(d.b.median - a_cpu) / args.block * 1e3:.2f} ms "
        "cpu per turn (informational)"
    )
    for name in ("runtime only", "tools on"):
        other = results.get(name)
        if other is not None:
            print(f"  {name} / absent CPU, median of per-repetition ratios {statistics.median(paired_ratios(other)):.3f} (informational)")


def paired_ratios(c: Any) -> list[float]:
    return [b / a for a, b in zip(c.a.samples, c.b.samples, strict=True)]



def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--reps", type=int, default=40, help="timed blocks per host")
    parser.add_argument("--block", type=int, default=25, help="turns per block")
    parser.add_argument("--dir", default=None, help="parent of the temporary DSH_HOME (e.g. /dev/shm)")
    parser.add_argument("--runtime-only", action="store_true", help="add a host with only the shadow-mind-runtime row")
    parser.add_argument("--tools-on", action="store_true", help="add a host with the bundle and managementTools on")
    parser.add_argument("--profile", action="store_true", help="cProfile shadow p=0 turns instead of comparing")
    parser.add_argument("--aa", action="store_true", help="A/A check: the 'shadow p=0' host gets no Shadow rows")
    parser.add_argument("--quick", action="store_true", help="2 blocks of 3 turns (a smoke run)")
    args = parser.parse_args()
    if args.quick:
        args.reps, args.block = 2, 3
    logging.getLogger("bench-host").setLevel(logging.WARNING)
    with temp_dsh_home(parent=args.dir) as home:
        trio.run(run, args, home.parent, home)


if __name__ == "__main__":
    main()
