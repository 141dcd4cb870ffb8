"""Subagent lifecycle cost (issue 3): children per second, and a delegating root turn.

Part 1 — children started and disposed per second. One host, one idle root;
a repetition starts ``--children`` children one after another through the
stock ``spawn`` provider (``host.subagents.start("spawn", SubagentRequest(...))``),
waits for ``run.result()`` (the scripted child answers one text reply) and
``run.dispose()``-s it. For scale, the same host also runs a reference
variant: a fresh *root* agent created, given the same one-reply turn and
disposed (``host.agents.create`` / ``handle.dispose``); the ratio child/root
shows what the subagent layer (depth and policy checks, delegated policy
events, descriptor, TrackedRun, the result read) adds to a bare agent
lifecycle. No target: the rate is the number.

Part 2 — a root turn that spawns one child vs one that does not. Two hosts,
both with the ``tool-subagent`` plugin (``SubagentToolPlugin``) so both offer
the same tools; the scripted root calls ``subagent`` (the child answers one
text reply) in one and ``read`` (a small file) in the other, then answers.
Blocks of ``--block`` turns alternate between the hosts (interleaved, medians).
The ratio spawn/read is informational (no target was set for it).

Timing: wall clock is the primary sample (a child lifecycle creates a session
file, fsyncs it at the turn end and on close: that *is* part of its cost); CPU
seconds are reported alongside. ``--dir /dev/shm`` puts DSH_HOME on tmpfs and
takes the fsyncs out. Run::

    python bench/spawn_dispose.py [--reps 9] [--children 50] [--block 20] [--dir /dev/shm] [--profile]
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import trio

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import compare, compare_many, profiled, temp_dsh_home
from _scripted import RoutedAdapter

from harness.host import HarnessHost, open_host
from harness.llm.scripted import AdapterPlugin
from harness.subagents.tool_plugin import SubagentToolPlugin
from hookspecs.protocols import CreateAgentOptions
from hookspecs.values import AgentOptions, CancelToken, SubagentRequest, TextBlock, create_user_message

CHILD_REPLY = "there are 3 files in the folder"

SPAWN_SCRIPT = f"""
responses:
  - reply:
      tool_calls:
        - name: subagent
          arguments: {{prompt: "count the files in the project folder", label: counter}}
  - reply: {{text: "The helper says there are 3 files."}}
  - reply: {{text: "{CHILD_REPLY}"}}
"""

READ_SCRIPT = f"""
responses:
  - reply:
      tool_calls:
        - name: read
          arguments: {{path: notes.txt}}
  - reply: {{text: "The notes say there are 3 files."}}
  - reply: {{text: "{CHILD_REPLY}"}}
"""


class Host:
    """One running host with one root agent."""

    def __init__(self, host: HarnessHost, adapter: RoutedAdapter, root: Any) -> None:
        self.host = host
        self.adapter = adapter
        self.root = root
        self.turns = 0
        self.children = 0

    # --- part 1 -------------------------------------------------------------------------------

    async def spawn_block(self, n: int) -> dict[str, float]:
        subagents = self.host.subagents
        root = self.root
        start, cpu = time.perf_counter(), time.process_time()
        for _ in range(n):
            request = SubagentRequest(
                label="bench-child",
                prompt=(TextBlock(text=f"count the files (child {self.children})"),),
                parent=root,
                cancel=CancelToken(),
            )
            run = await subagents.start("spawn", request)
            result = await run.result()
            await run.dispose()
            self.children += 1
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
        if result.stop_reason != "completed" or CHILD_REPLY not in result.output[0].text:
            raise SystemExit(f"bench child went wrong: {result}")
        return {"seconds": elapsed, "cpu": cpu}

    async def root_block(self, n: int) -> dict[str, float]:
        """Reference: a fresh root agent per item, one text reply (no tools), disposed."""
        agents = self.host.agents
        options = CreateAgentOptions(agent_options=AgentOptions(provider="scripted", model=RoutedAdapter.REPLY_MODEL))
        start, cpu = time.perf_counter(), time.process_time()
        for i in range(n):
            handle = await agents.create(options)
            handle.agent.followup(create_user_message(f"count the files (root {i})"))
            await handle.agent.when_idle()
            events = handle.agent.session.events
            await handle.dispose()
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
        kinds = [e.type for e in events]
        answer = next(e for e in reversed(events) if e.type == "assistant/message")
        if "tool/call" in kinds or CHILD_REPLY not in answer.data["message"]["content"][0]["text"]:
            raise SystemExit(f"bench reference root went wrong: {kinds}")
        return {"seconds": elapsed, "cpu": cpu}

    # --- part 2 -------------------------------------------------------------------------------

    async def turn_block(self, n: int) -> dict[str, float]:
        root = self.root
        start, cpu = time.perf_counter(), time.process_time()
        for _ in range(n):
            root.followup(create_user_message(f"how many files are there? (question {self.turns})"))
            await root.when_idle()
            self.turns += 1
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
        events = root.session.events
        end = events[-1]
        if end.type != "turn/end" or end.data["reason"]["kind"] != "completed":
            raise SystemExit(f"bench turn went wrong: last event {end.type} {end.data}")
        result = next(e for e in reversed(events) if e.type == "tool/result")
        if result.data.get("error") is not None:
            raise SystemExit(f"bench tool call failed: {result.data}")
        return {"seconds": elapsed, "cpu": cpu}


@asynccontextmanager
async def running(home: Path, work: Path, script: str) -> AsyncIterator[Host]:
    adapter = RoutedAdapter.from_text(script, source="<bench>")
    plugins: list[tuple[str, object]] = [("bench-adapter", AdapterPlugin(adapter)), ("tool-subagent", SubagentToolPlugin())]
    logger = logging.getLogger("bench-host")
    async with open_host(dsh_home=home, cwd=work, headless=True, extra_plugins=plugins, environ={}, logger=logger) as host:
        handle = await host.agents.create(CreateAgentOptions(agent_options=AgentOptions(provider="scripted", model="m")))
        yield Host(host, adapter, handle.agent)
        await handle.dispose()


def in_trio(fn: Callable[[int], Any], n: int) -> Callable[[], Any]:
    return lambda: trio.from_thread.run(fn, n)


async def run(args: argparse.Namespace, root: Path) -> None:
    work = root / "work"
    work.mkdir()
    (work / "notes.txt").write_text("there are 3 files\nin the project folder\n")
    async with running(root / "home-spawn", work, SPAWN_SCRIPT) as spawn, running(root / "home-read", work, READ_SCRIPT) as read:
        if args.profile:
            await profiled(spawn.spawn_block)(args.children * 4)
            await profiled(spawn.turn_block)(args.block * 4)
            return

        print(f"DSH_HOME under {root}")
        part1 = await trio.to_thread.run_sync(
            lambda: compare_many(
                [("root create+turn+dispose", in_trio(spawn.root_block, args.children)),
                 ("child spawn+result+dispose", in_trio(spawn.spawn_block, args.children))],
                reps=args.reps,
                units=args.children,
                unit="agents",
                title=f"\npart 1: {args.reps} reps of {args.children} agents per variant, interleaved (wall; cpu alongside)",
            )
        )
        child = part1["child spawn+result+dispose"]
        live = len(spawn.host.agents.list())
        print(
            f"  children started+disposed per wall second: {args.children / child.b.median:8.1f}"
            f"   per CPU second: {args.children / child.b.extra_median('cpu'):8.1f}"
            f"   (per child: {child.b.median / args.children * 1e3:.2f} ms wall, "
            f"{child.b.extra_median('cpu') / args.children * 1e3:.2f} ms cpu; live agents after: {live})"
        )

        part2 = await trio.to_thread.run_sync(
            lambda: compare(
                "root turn: read",
                in_trio(read.turn_block, args.block),
                "root turn: subagent",
                in_trio(spawn.turn_block, args.block),
                reps=args.reps,
                units=args.block,
                unit="turns",
                title=f"\npart 2: {args.reps} blocks of {args.block} root tool turns per variant, interleaved (wall; cpu alongside)",
            )
        )
        wall_ratio = part2.ratio
        cpu_ratio = part2.b.extra_median("cpu") / part2.a.extra_median("cpu")
        per_read = part2.a.median / args.block
        per_spawn = part2.b.median / args.block
        print(
            f"\nsummary"
            f"\n  children started+disposed per second: {args.children / child.b.median:.1f} wall, "
            f"{args.children / child.b.extra_median('cpu'):.1f} cpu"
            f"\n  root turn spawning one child / root turn calling read: {wall_ratio:.2f}x wall, {cpu_ratio:.2f}x cpu"
            f"  ({per_spawn * 1e3:.2f} ms vs {per_read * 1e3:.2f} ms per turn; "
            f"the child adds {(per_spawn - per_read) * 1e3:.2f} ms)  (informational, no target)"
        )



def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--reps", type=int, default=9, help="timed repetitions per variant")
    parser.add_argument("--children", type=int, default=50, help="agents per part-1 repetition")
    parser.add_argument("--block", type=int, default=20, help="root turns per part-2 repetition")
    parser.add_argument("--dir", default=None, help="parent of the temporary DSH_HOME (e.g. /dev/shm)")
    parser.add_argument("--profile", action="store_true", help="cProfile spawn blocks and spawning turns instead")
    args = parser.parse_args()
    logging.getLogger("bench-host").setLevel(logging.WARNING)
    with temp_dsh_home(parent=args.dir) as home:
        trio.run(run, args, home.parent)


if __name__ == "__main__":
    main()
