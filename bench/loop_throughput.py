"""Agent-loop throughput: scripted root turns with a tool call, per second.

Each turn: the user asks, the scripted model streams a short text and a ``read``
call on a small file, the tool runs, the model answers (2 model requests, ~21
session events, ~40 observer notifications per turn).

Two hosts run side by side in one trio loop, each with one root agent:

* ``bare``      — no extra plugins;
* ``observer``  — one do-nothing observer plugin implementing
  ``dsh_session_event``, ``dsh_agent_stream``, ``dsh_tool_result`` and
  ``dsh_agent_status``.

A repetition is a block of ``--block`` turns on one agent; blocks alternate
between the hosts (so both sessions grow in step, and machine noise hits both),
``--reps`` blocks each, after a warm-up block. Only the turns are timed.

Target: observer/bare time ratio <= 1.03, judged on process CPU time (what the
observer actually costs). Wall time is printed too but is not judged: on a
shared 2-core VM it is dominated by the per-turn ``fsync`` and by thread
wake-ups (the ``read`` tool runs in a worker thread) and swings by 10%+.
``--aa`` replaces the observer with nothing to show the noise floor (A/A runs
here gave 0.99-1.03). Run::

    python bench/loop_throughput.py [--reps 30 --block 20] [--aa] [--dir /dev/shm] [--profile]

``--dir`` picks where the temporary DSH_HOME lives (``/dev/shm`` takes the
per-turn ``fsync`` out, which otherwise dilutes the ratio); ``--profile``
cProfiles observer turns instead of comparing.
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import trio

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import compare, profiled, temp_dsh_home, verdict

from harness.host import open_host
from harness.llm.script import Response
from harness.llm.scripted import AdapterPlugin, ScriptedAdapter
from hookspecs import hookimpl
from hookspecs.protocols import CreateAgentOptions
from hookspecs.values import AgentOptions, create_user_message

TARGET = 1.03


class NullObserver:
    """Observes everything a UI or logger would, and does nothing."""

    @hookimpl
    def dsh_session_event(self, session: Any, event: Any) -> None:
        pass

    @hookimpl
    def dsh_agent_stream(self, agent: Any, frame: Any) -> None:
        pass

    @hookimpl
    def dsh_tool_result(self, execution: Any, result: Any) -> None:
        pass

    @hookimpl
    def dsh_agent_status(self, agent: Any, status: Any) -> None:
        pass


SCRIPT = """
responses:
  - reply:
      text: "Let me look at the notes for this question."
      tool_calls:
        - name: read
          arguments: {path: notes.txt}
  - reply:
      text: "The notes say hello; that answers the question."
"""


class CyclingAdapter(ScriptedAdapter):
    """The scripted adapter, replaying its two responses in turn forever.

    ``ScriptedAdapter`` scans its script from the top for the first unused
    response, which costs O(script length) per request on a script of hundreds
    of one-shot turns; cycling keeps the model side constant-cost so the bench
    measures the loop.
    """

    def _take(self, request: Any, number: int) -> Response:
        responses = self.script.responses
        return responses[(number - 1) % len(responses)]


class Runner:
    """One host with one root agent; runs blocks of turns on it."""

    def __init__(self, agent: Any, adapter: CyclingAdapter) -> None:
        self.agent = agent
        self.adapter = adapter
        self.turns = 0

    async def block(self, turns: int) -> dict[str, float]:
        agent = self.agent
        start, cpu_start = time.perf_counter(), time.process_time()
        for _ in range(turns):
            agent.followup(create_user_message(f"what do the notes say? (question {self.turns})"))
            await agent.when_idle()
            self.turns += 1
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu_start
        end = agent.session.events[-1]
        if end.type != "turn/end" or end.data["reason"]["kind"] != "completed":
            raise SystemExit(f"bench run went wrong: last event {end.type} {end.data}")
        return {"seconds": cpu, "wall": elapsed}


@asynccontextmanager
async def running(home: Path, work: Path, observe: bool) -> AsyncIterator[Runner]:
    adapter = CyclingAdapter.from_text(SCRIPT, source="<bench>")
    plugins: list[tuple[str, object]] = [("bench-adapter", AdapterPlugin(adapter))]
    if observe:
        plugins.append(("bench-observer", NullObserver()))
    logger = logging.getLogger("bench-host")
    async with open_host(
        dsh_home=home, cwd=work, headless=True, extra_plugins=plugins, environ={}, logger=logger
    ) as host:
        handle = await host.agents.create(
            CreateAgentOptions(agent_options=AgentOptions(provider="scripted", model="m"))
        )
        yield Runner(handle.agent, adapter)
        await handle.dispose()


async def run(args: argparse.Namespace, root: Path, home: Path) -> None:
    work = root / "work"
    work.mkdir()
    (work / "notes.txt").write_text("hello\nfrom the notes\n")
    # --aa: both hosts bare, to see the noise floor of the ratio on this machine
    async with running(root / "home-bare", work, False) as bare, running(home, work, not args.aa) as observed:
        if args.profile:
            await bare.block(args.block)  # same warm-up as a comparison
            profile_async = profiled(observed.block)
            await profile_async(args.block * args.reps)
            return

        label = "bare-2" if args.aa else "observer"

        def variant(runner: Runner) -> Any:
            return lambda: trio.from_thread.run(runner.block, args.block)

        print(
            f"loop throughput: {args.reps} blocks of {args.block} scripted turns (read + answer) per variant, "
            f"interleaved; DSH_HOME under {root}"
        )
        result = await trio.to_thread.run_sync(
            lambda: compare(
                "bare",
                variant(bare),
                label,
                variant(observed),
                reps=args.reps,
                target=TARGET,
                units=args.block,
                unit="turns",
            )
        )
    a_cpu, b_cpu = result.a.median, result.b.median
    a_wall, b_wall = result.a.extra_median("wall"), result.b.extra_median("wall")
    print(
        f"\nturns per CPU second:  bare {args.block / a_cpu:7.1f}   {label} {args.block / b_cpu:7.1f}"
        f"\nturns per wall second: bare {args.block / a_wall:7.1f}   {label} {args.block / b_wall:7.1f}"
        f"\n{label}/bare CPU-time ratio {result.ratio:.3f}{verdict(result.ratio, TARGET, False)}"
        f"\n{label}/bare wall ratio     {b_wall / a_wall:.3f} (informational: includes fsync and thread wake-ups)"
    )



def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--reps", type=int, default=30, help="timed blocks per variant")
    parser.add_argument("--block", type=int, default=20, help="turns per block")
    parser.add_argument("--profile", action="store_true", help="cProfile observer turns instead of comparing")
    parser.add_argument("--aa", action="store_true", help="A/A check: the 'observer' host gets no observer")
    parser.add_argument("--dir", default=None, help="parent of the temporary DSH_HOME (e.g. /dev/shm)")
    args = parser.parse_args()
    logging.getLogger("bench-host").setLevel(logging.WARNING)
    with temp_dsh_home(parent=args.dir) as home:
        trio.run(run, args, home.parent, home)


if __name__ == "__main__":
    main()
