"""Cost of one review cycle against the length of the root session (issue 9).

A review cycle is what the runtime and host do between a root tool turn's
``turn/end`` and the reviewer's relay reaching the root's inbox: the turn-end
anchor, the roll (probability 1), the trajectory projection, the framed
prompt, the child agent's start (delegated policy, its log), its one model
request (an instant scripted reply calling ``structured_output`` with a
challenge citing the turn's tool call), the contract check, disposal and the
relay. Both timestamps come from host observers of a bench plugin
(``dsh_session_event`` for the ``turn/end``, ``dsh_agent_inbox`` for the
relay's insertion), so neither side includes the root's own model steps.

The root session is a real log of ``N`` generated events (the mix of
``bench/projection.py``: streamed chunks, prose, tool calls and results; with
``--non-ascii`` (default 2 %) of the words non-ASCII: accented and CJK words,
an emoji), written by ``SessionStore`` into a ``DSH_HOME`` and closed as a
host closes it (its clean point recorded, so a resume reads the tail). For each size the
bench opens a host with the Shadow Mind bundle, resumes the session
(``host.agents.resume``, as ``harness run --session ID``), and sends user
messages, each giving one root tool turn (``read`` of a small file, then an
answer) and so one review; the relay's follow-up turn is a plain answer.

* ``after resume`` — what Shadow Mind spends on the first cycle after a fresh
  host resumed the session (``--resumes`` fresh hosts per size): the cycle
  itself (turn end to relay) **plus the resume's own Shadow Mind work**: a
  trio instrument adds the CPU of the plugin's background tasks
  (``shadow-mind:*``) since the resume that ran outside the window. Nothing
  projects the resumed log at resume: the first review projects it from its
  end (``projection_tail.py``), the window's start (entry count, first entry,
  kept summary) and the person's earlier messages come from the window tally
  the previous host wrote (``window_tally.py``) grown over what was appended
  since, and the checks read the turn, the rest only if a check asks
  (``checks/view.py``). The harness's own part of the resume
  (``host.agents.resume``: the log's tail after its clean point) is timed too
  and shown beside it, as ``resume (host)``: it is the same with or without
  Shadow Mind and belongs to the session store, so it is not in the ratio.
  (The root's own model request, outside the cycle, then reads the whole
  history: compaction is off here.)
* ``warm`` — the following ``--warm`` cycles on the same host.
* ``first review`` — the session's first review ever (one cycle on a host
  before the measured ones, informational): no window tally has been written
  for it yet (``shadow_mind_plugin/window_tally.py``), so it counts the whole
  window and reads all of the person's messages; releasing the root writes the
  tally that the measured resumes find. It includes what the process imports
  for a first review at the first size.

Like for like: every size runs exactly the same cycle, definition, settings
(``resultBatchWindowMs: 0``) and scripted replies; only the session behind it
is longer. The bench also prints the reviewer prompt each size produced
(characters as the pipeline counts them, ``RunEntry.prompt_chars``; tokens by
``shadow_mind_plugin.tokens.estimate_tokens`` of the prompt the model got)
against the reviewer model's prompt budget (``window_token_budget`` of its
catalog window, ``--window``: the share of the window a framed prompt may use). The primary sample is CPU seconds of the
process between the two timestamps (steadier on a shared machine: the cycle
never waits for anything but itself); wall seconds alongside (they include
the fsync of the child's log at its turn end; ``--dir /dev/shm`` takes the
fsyncs out).

Targets: warm at 100k within 2x of warm at 1k; after resume (the resume's
Shadow Mind work included) within 3x of warm at the same size. Run::

    python bench/review_cycle.py [--sizes 1000,10000,100000,300000] [--warm 7] [--resumes 3] [--quick] [--profile SIZE]
"""

from __future__ import annotations

import argparse
import logging
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import trio

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import TaskClock, fmt_seconds, temp_dsh_home
from _scripted import RoutedAdapter
from projection import generate

from harness.host import open_host
from harness.llm.scripted import AdapterPlugin
from harness.profiles import ProfileRow
from harness.sessions import SessionStore
from hookspecs import hookimpl
from hookspecs.values import AgentOptions, LlmRequest, ModelInfo, SessionHeader, create_user_message
from shadow_mind_plugin.plugin import runtime_for
from shadow_mind_plugin.prompt import window_token_budget
from shadow_mind_plugin.tokens import estimate_tokens

WARM_TARGET = 2.0
RESUME_TARGET = 3.0
ROOT_ID = "bench-root"
RELAY_KIND = "shadow-report"
PLUGIN_TASKS = "shadow-mind:"  # the plugin's background tasks (trio task names)

SCRIPT = """
models:
  - {{id: m, context_window: {window}}}
responses:
  - reply:
      tool_calls:
        - name: read
          arguments: {{path: notes.txt}}
  - reply:
      text: "The notes say the deploy target is staging."
  - reply:
      tool_calls:
        - name: structured_output
          arguments:
            status: report
            verdict: challenge
            severity: 0.5
            refs: ["{{{{seq:tool call}}}}"]
            content: "Check the claim against the notes once more."
"""

DEFINITION = """---
id: default
name: Reviewer
enabled: true
activation_probability: 1
---

Check the root's claims against its tool results.
"""

NON_ASCII = ("déploiement", "größe", "配置", "设定", "naïve", "😀", "überprüfen", "テスト")


class CycleAdapter(RoutedAdapter):
    """The bench's replies: the root calls ``read`` then answers; the relay's
    follow-up is answered at once; the child reports. Keeps the last child prompt."""

    last_prompt = ""

    def route(self, request: LlmRequest) -> int:
        index = super().route(request)
        if index == 2:
            first = request.messages[0].content[0] if request.messages and request.messages[0].content else None
            self.last_prompt = getattr(first, "text", "") or self.last_prompt
            return 2
        last = request.messages[-1] if request.messages else None
        if last is not None and last.role == "user" and last.source_kind == RELAY_KIND:
            return 1
        return index


class Stopwatch:
    """Timestamps the root's tool-turn end and the relay's insertion; also
    keeps how much of the plugin tasks' CPU fell inside each window."""

    def __init__(self, tasks: TaskClock) -> None:
        self.tasks = tasks
        self.turn_end: tuple[float, float, float] | None = None
        self.samples: list[tuple[float, float]] = []
        self.inside: list[float] = []

    @hookimpl
    def dsh_session_event(self, session: Any, event: Any) -> None:
        if event.type == "turn/end" and session.id == ROOT_ID and self.turn_end is None:
            self.turn_end = (time.perf_counter(), time.process_time(), self.tasks.cpu)

    @hookimpl
    def dsh_agent_inbox(self, agent: Any, change: str, message: Any) -> None:
        if change == "inserted" and agent.id == ROOT_ID and message.source_kind == RELAY_KIND and self.turn_end:
            wall, cpu, tasks = self.turn_end
            self.inside.append(self.tasks.cpu - tasks)
            self.samples.append((time.perf_counter() - wall, time.process_time() - cpu))


def sprinkle(text: str, rng: random.Random, share: float) -> str:
    if share <= 0:
        return text
    return " ".join(rng.choice(NON_ASCII) if rng.random() < share else word for word in text.split(" "))


def build_log(home: Path, total: int, share: float) -> int:
    """A root session of about ``total`` generated events, ending at a turn end."""
    clock = {"ms": 1_700_000_000_000.0}

    def now_ms() -> float:
        clock["ms"] += 37.0
        return clock["ms"]

    rng = random.Random(11)
    store = SessionStore(sessions_dir=home / "sessions", on_event=lambda _s, _e: None, now_ms=now_ms, logger=logging.getLogger("bench"))
    log = store.create(SessionHeader(id=ROOT_ID, created_at=now_ms(), cwd=str(home.parent / "work")))
    for etype, data in generate():
        if share and etype in ("user/message", "assistant/message"):
            for block in data["message"]["content"]:
                if "text" in block:
                    block["text"] = sprinkle(block["text"], rng, share)
        log.append(etype, data)
        if etype == "turn/end" and log.seq >= total:
            break
    count = log.seq
    store.close(ROOT_ID)  # as a host closes it: the next resume starts at its clean point (checked.json)
    return count


def write_definition(home: Path) -> None:
    root = home / "shadow-minds"
    root.mkdir(parents=True, exist_ok=True, mode=0o700)
    (root / "default.md").write_text(DEFINITION)


async def one_host(
    home: Path, work: Path, window: int, cycles: int, profiler: Any = None, profile_first: bool = False
) -> tuple[list[tuple[float, float]], list[int], str, tuple[float, float]]:
    """Resume the session on a fresh host and run ``cycles`` review cycles
    (``profiler``: enabled for the warm ones). The first sample includes the
    plugin tasks' CPU outside its window; also returns (resume CPU, that CPU)."""
    adapter = CycleAdapter.from_text(SCRIPT.format(window=window), source="<bench>")
    assert isinstance(adapter, CycleAdapter)
    tasks = TaskClock(PLUGIN_TASKS)
    watch = Stopwatch(tasks)
    rows = [
        ProfileRow(id="shadow-mind-runtime", name="shadow-mind-runtime", config={"resultBatchWindowMs": 0}, layer="bench"),
        ProfileRow(id="tool-shadow-mind", name="tool-shadow-mind", layer="bench"),
        # the root's history outgrows the scripted window on purpose; compacting
        # it is not what this bench measures (and the script writes no summaries)
        ProfileRow(id="compaction", name="compaction", config={"enabled": False}, layer="bench"),
    ]
    prompt_chars: list[int] = []
    outside = 0.0  # the plugin tasks' CPU outside the first window
    async with open_host(
        rows=rows,
        dsh_home=home,
        cwd=work,
        headless=True,
        extra_plugins=[("bench-adapter", AdapterPlugin(adapter)), ("bench-stopwatch", watch)],
        environ={},
        logger=logging.getLogger("bench-host"),
    ) as host:
        trio.lowlevel.add_instrument(tasks)
        if profiler is not None and profile_first:
            profiler.enable()
        resumed = time.process_time()
        handle = await host.agents.resume(ROOT_ID, agent_options=AgentOptions(provider="scripted", model="m"))
        resumed = time.process_time() - resumed - tasks.cpu
        agent = handle.agent
        runtime = runtime_for(host)
        assert runtime is not None
        spend = runtime.budget.spend

        def counted(state: Any, chars: int, entry: Any, kind: str) -> Any:
            if kind == "prompt":
                prompt_chars.append(chars)  # what the pipeline counts and debits for the prompt
            return spend(state, chars, entry, kind)

        runtime.budget.spend = counted  # type: ignore[method-assign]
        for number in range(cycles):
            if profiler is not None and number == 1 and not profile_first:
                profiler.enable()
            if profiler is not None and profile_first and number == 1:
                profiler.disable()
            watch.turn_end = None
            before = len(watch.samples)
            agent.followup(create_user_message(f"what is the deploy target? (question {number})"))
            while True:
                await agent.when_idle()
                await host.wait_background_idle()
                await trio.lowlevel.checkpoint()
                if agent.quiescent and not host.background_busy:
                    break
            if len(watch.samples) != before + 1:
                state = runtime.owners.get(agent.id)
                last = runtime.controls.status(agent).get("last_run") if state else None
                raise SystemExit(f"cycle {number}: no relay reached the root (last run: {last})")
            if number == 0:  # the resume's background work is done by now (the cycle waited for it)
                outside = tasks.cpu - watch.inside[0]
                watch.samples[0] = (watch.samples[0][0], watch.samples[0][1] + outside)
        if profiler is not None:
            profiler.disable()
        trio.lowlevel.remove_instrument(tasks)
        await handle.dispose()
    return watch.samples, prompt_chars, adapter.last_prompt, (resumed, outside)


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


async def measure_size(root: Path, size: int, args: argparse.Namespace) -> dict[str, Any]:
    home = root / f"home-{size}"
    work = root / "work"
    started = time.perf_counter()
    events = build_log(home, size, args.non_ascii)
    write_definition(home)
    built = time.perf_counter() - started
    resume: list[tuple[float, float]] = []
    warm: list[tuple[float, float]] = []
    chars: list[int] = []
    host_resume: list[float] = []
    outside: list[float] = []
    prompt = ""
    # the session's first review ever: no window tally yet, so it counts the whole log
    samples, _, _, _ = await one_host(home, work, args.window, 1)
    first = samples[0]
    for _ in range(args.resumes):
        samples, prompt_chars, prompt, (resumed, tasks) = await one_host(home, work, args.window, args.warm + 1)
        resume.append(samples[0])
        warm.extend(samples[1:])
        chars.extend(prompt_chars)
        host_resume.append(resumed)
        outside.append(tasks)
    return {
        "size": size,
        "events": events,
        "built": built,
        "first": first,
        "resume": resume,
        "warm": warm,
        "host_resume": host_resume,
        "outside": outside,
        "prompt_chars": chars[-1] if chars else 0,
        "prompt_tokens": estimate_tokens(prompt),
    }


def report(rows: list[dict[str, Any]], window: int) -> None:
    budget = window_token_budget(ModelInfo(id="m", context_window=window))
    base = rows[0]
    base_warm = median([c for _, c in base["warm"]])
    print(
        f"\n{'events':>9} {'warm cpu':>10} {'(wall)':>10} {'vs smallest':>11} {'spread':>7} {'resume cpu':>11} {'(wall)':>10}"
        f" {'resume/warm':>11} {'(outside)':>10} {'resume (host)':>14} {'first review':>13} {'prompt chars':>13} {'~tokens':>8}"
        f" {'of budget':>10}"
    )
    for row in rows:
        warm_wall = median([w for w, _ in row["warm"]])
        warm_cpu = median([c for _, c in row["warm"]])
        resume_wall = median([w for w, _ in row["resume"]])
        resume_cpu = median([c for _, c in row["resume"]])
        cpus = [c for _, c in row["warm"]]
        spread = (max(cpus) - min(cpus)) / warm_cpu if cpus and warm_cpu else 0.0
        share = row["prompt_tokens"] / budget if budget else float("nan")
        print(
            f"{row['events']:>9,} {fmt_seconds(warm_cpu):>10} {fmt_seconds(warm_wall):>10} {warm_cpu / base_warm:>10.2f}x"
            f" {spread * 100:>6.0f}% {fmt_seconds(resume_cpu):>11} {fmt_seconds(resume_wall):>10} {resume_cpu / warm_cpu:>10.2f}x"
            f" {fmt_seconds(median(row['outside'])):>10} {fmt_seconds(median(row['host_resume'])):>14}"
            f" {fmt_seconds(row['first'][1]):>13} {row['prompt_chars']:>13,} {row['prompt_tokens']:>8,} {share * 100:>9.1f}%"
        )
    print(f"\n(reviewer model window {window:,} tokens; prompt budget {budget:,} tokens: shadow_mind_plugin.prompt.window_token_budget)")
    print("(resume cpu: the first cycle plus the plugin tasks' CPU outside it (outside); resume (host): host.agents.resume)")
    print("(first review: the session's first review ever, on the first host: no window tally yet, the whole log counted)")
    print("summary (CPU time)")
    for row in rows[1:]:
        ratio = median([c for _, c in row["warm"]]) / base_warm
        line = f"  warm {row['events']:,} / warm {base['events']:,}: {ratio:.2f}x"
        if row["size"] >= 100_000:
            line += f" (target <= {WARM_TARGET:g}) {'OK' if ratio <= WARM_TARGET else 'OVER'}"
        print(line)
    for row in rows:
        ratio = median([c for _, c in row["resume"]]) / median([c for _, c in row["warm"]])
        print(f"  after resume / warm at {row['events']:,}: {ratio:.2f}x (target <= {RESUME_TARGET:g}) {'OK' if ratio <= RESUME_TARGET else 'OVER'}")


async def run(args: argparse.Namespace, root: Path) -> None:
    work = root / "work"
    work.mkdir()
    (work / "notes.txt").write_text("the deploy target is staging\n")
    if args.profile:
        import cProfile
        import pstats

        size = args.profile
        home = root / f"home-{size}"
        build_log(home, size, args.non_ascii)
        write_definition(home)
        await one_host(home, work, args.window, 2)  # the log as later runs see it
        prof = cProfile.Profile()
        await one_host(home, work, args.window, 1 + args.warm, profiler=prof, profile_first=args.profile_resume)
        what = "the resume and the first cycle after it" if args.profile_resume else f"{args.warm} warm cycles"
        print(f"--- profile of {what} at {size:,} events ---")
        stats = pstats.Stats(prof)
        stats.sort_stats("cumulative").print_stats(r"shadow_mind_plugin/(?!.*generated)|harness/subagents|harness/sessions", 40)
        stats.strip_dirs().sort_stats("tottime").print_stats(30)
        return
    print(
        f"review cycle (turn end -> relay in the root inbox), instant scripted model; {args.resumes} resumes x "
        f"(1 + {args.warm} warm) cycles per size; {args.non_ascii * 100:g}% non-ASCII words; DSH_HOME under {root}"
    )
    rows = []
    for size in args.sizes:
        row = await measure_size(root, size, args)
        print(f"  {row['events']:,} events: built in {row['built']:.1f} s", flush=True)
        rows.append(row)
    report(rows, args.window)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000,300000", help="root session sizes in events (comma-separated)")
    parser.add_argument("--warm", type=int, default=7, help="warm cycles after each resume")
    parser.add_argument("--resumes", type=int, default=3, help="fresh hosts (resumes) per size")
    parser.add_argument("--non-ascii", type=float, default=0.02, help="share of non-ASCII words in messages")
    parser.add_argument("--window", type=int, default=128_000, help="the reviewer model's context window (tokens)")
    parser.add_argument("--dir", default=None, help="parent of the temporary DSH_HOME (e.g. /dev/shm)")
    parser.add_argument("--quick", action="store_true", help="sizes 1000,5000 (projected from its end), 1 resume x (1 + 2 warm)")
    parser.add_argument("--profile", type=int, default=0, metavar="SIZE", help="cProfile the warm cycles at one size instead")
    parser.add_argument("--profile-resume", action="store_true", help="with --profile: the first cycle after resume")
    args = parser.parse_args()
    args.sizes = [int(s) for s in args.sizes.split(",") if s]
    if args.quick:
        args.sizes, args.resumes, args.warm = [1000, 5000], 1, 2
    logging.getLogger("bench-host").setLevel(logging.WARNING)
    with temp_dsh_home(parent=args.dir) as home:
        trio.run(run, args, home.parent)


if __name__ == "__main__":
    main()
