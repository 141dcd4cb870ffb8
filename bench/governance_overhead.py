"""What governance adds to the runtime's accept path, per accepted report (issue 5).

The accept path is step (f)-(j) of ``pipeline.decide_outcome`` for a report
that passes: what the runtime does between the child's result and the batcher.
Both variants do the *baseline* work, for each of ``--reports`` accepted
reports (default 10,000), in the runtime's order:

* ``narrow_output(structured, projection.seqs)`` — the contract backstop
  (refs checked against the rendered seqs of a real projection);
* the content handling (strip, ``maxReportChars`` bound via ``u16len``);
* building the ``PendingReport`` and filling the run view;
* the relay message for it (``relay.build_relay([report])``: relay text,
  provenance, the user message).

``governance on`` adds, where ``decide_outcome`` calls them:

* ``rt.budget.spend(state, chars, entry, "report")`` — ``BudgetLedger.debit``:
  the write-ahead spend record (``write_atomic``: temp file, fsync, rename).
  The ledger persists only while a budget is configured, so the bench's
  runtime row sets ``sessionShadowHardBudgetChars`` (high enough never to
  bind): without it the debit is an in-memory no-op and the comparison
  measured nothing. The bench counts the ledger's writes in an untimed pass
  and stops if there is not one per report;
* ``rt.coordination.record_review(entry, verdict, refs)``: the review-window
  record, the four stagnation detectors and, when one fires, the ladder's
  action (cooldown or reserved escalation).

``governance off`` is the same path with those two calls as no-ops (the
runtime's own ``state.trigger.spent_chars`` bookkeeping is kept). Two informational
variants split the cost: ``review window only`` and ``ledger debit only``.

Everything runs against a real ``ShadowRuntime`` of a real host (settings,
clock, owner state, the default definition) with a real ``BudgetLedger``.
Reports are generated, seeded: verdict mix, 1-4 ascending refs among the
rendered seqs, 150-1,200 characters, and about a quarter repeating the
previous envelope so detectors sometimes fire, as with a reviewer that
repeats itself. Not included in either variant: the child run, disposal,
``enqueue_report``, cards, settlement, and the root-side relay append; those
would dilute the ratio further. The prompt debit (a second ledger write per
run, at prepare) is not included either.

Where the ledger lives decides its cost: ``--ledger-dir`` (default
``/dev/shm`` when present: tmpfs, ``fsync`` is free, so this measures the CPU
of the write path) holds the 10,000-report comparison; a second, smaller
comparison (``--disk-reports``, default 200) puts the ledger in ``$TMPDIR`` —
a real disk here — where each debit pays an ``fsync``.

Target: ``governance on`` / ``governance off`` <= 1.05. Run::

    python bench/governance_overhead.py [--reports 10000] [--reps 5] [--ledger-dir DIR] [--disk-reports 200] [--profile] [--quick]
"""

from __future__ import annotations

import argparse
import logging
import os
import random
import sys
import tempfile
import time
from collections.abc import Callable
from collections.abc import Set as AbstractSet
from pathlib import Path
from typing import Any

import trio

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import compare_many, fs_type, profile, temp_dsh_home
from projection import generate

from harness.host import open_host
from harness.profiles import ProfileRow
from hookspecs.protocols import CreateAgentOptions
from hookspecs.values import AgentOptions, SessionEvent
from shadow_mind_plugin.contract import narrow_output
from shadow_mind_plugin.coordination.coordination_stage import recent_reviews
from shadow_mind_plugin.core.clock import iso
from shadow_mind_plugin.core.owner import OwnerState, RunEntry
from shadow_mind_plugin.core.records import RunView
from shadow_mind_plugin.output.relay import PendingReport, build_relay
from shadow_mind_plugin.plugin import runtime_for
from shadow_mind_plugin.projection import project
from shadow_mind_plugin.runtime.runtime import ShadowRuntime
from shadow_mind_plugin.trigger import ledger as ledger_module
from shadow_mind_plugin.trigger.ledger import BudgetLedger
from shadow_mind_plugin.utf16 import u16len, u16slice
from shadow_mind_plugin.vocabulary import Phase, Stage

TARGET = 1.05
VERDICTS = ["challenge", "challenge", "gap", "gap", "confirm", "confirm", "confirm", "uncertain"]
WORDS = (
    "the root claims the deploy went to production but notes.txt names staging as the target and the tool "
    "result shows no migration ran on the replica so the answer is not supported by the trajectory yet"
).split()

#: a budget makes the ledger persist (write-ahead, fsynced); never reached here
BUDGET_CHARS = 10**12
RUNTIME_ROW = ProfileRow(
    id="shadow-mind-runtime",
    name="shadow-mind-runtime",
    config={"sessionShadowHardBudgetChars": BUDGET_CHARS},
    layer="bench",
)


def rendered_seqs(events: int = 3000) -> tuple[AbstractSet[int], int]:
    """The refs allowlist of a realistic root session's projection."""
    source = generate(seed=11)
    log = [SessionEvent(type=t, seq=i, time=0.0, data=d) for i, (t, d) in zip(range(events), source, strict=False)]
    projection = project(log, log[-1].seq)
    return projection.seqs, log[-1].seq


def structured_outputs(n: int, seqs: AbstractSet[int], seed: int = 5) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    ordered = sorted(seqs)
    out: list[dict[str, Any]] = []
    for _ in range(n):
        if out and rng.random() < 0.25:
            previous = out[-1]
            value = {**previous, "content": previous["content"][::-1]}  # same envelope, other words
        else:
            start = rng.randrange(0, len(ordered) - 20)
            refs = sorted(rng.sample(ordered[start : start + 20], rng.randint(1, 4)))
            words = [rng.choice(WORDS) for _ in range(rng.randint(25, 200))]
            content = " ".join(words)[: rng.randint(150, 1200)]
            value = {"status": "report", "verdict": rng.choice(VERDICTS), "content": f" {content}\n", "refs": refs}
            if rng.random() < 0.7:
                value["severity"] = round(rng.random(), 2)
        out.append(value)
    return out


class AcceptPath:
    """The accept path over prebuilt runs; ``governance`` picks what runs."""

    def __init__(self, rt: ShadowRuntime, state: OwnerState, entries: list[RunEntry], outputs: list[dict[str, Any]], seqs: AbstractSet[int]) -> None:
        self.rt = rt
        self.state = state
        self.entries = entries
        self.outputs = outputs
        self.seqs = seqs
        self.relayed_chars = 0
        self.passes = 0

    def run(self, n: int, *, window: bool, ledger: bool) -> dict[str, float]:
        rt, state, seqs = self.rt, self.state, self.seqs
        entries, outputs = self.entries, self.outputs
        # fresh run ids per pass (untimed): the ledger skips a debit id it kept
        self.passes += 1
        for i in range(n):
            entries[i].view.run_id = f"{self.passes:06d}-{i:08d}"
        relayed = 0
        t, w = time.thread_time(), time.perf_counter()
        for i in range(n):
            entry = entries[i]
            view = entry.view
            # (f) the contract backstop
            narrowed = narrow_output(outputs[i], seqs)
            output = narrowed.output
            if output is None:
                raise SystemExit(f"bench report {i} was rejected: {narrowed.violations}")
            # (i) the body
            content = output.content.strip()
            # (j) accept
            bound = rt.settings().max_report_chars
            if bound > 0 and u16len(content) > bound:
                content = u16slice(content, 0, bound - 1) + "…" if bound > 1 else u16slice(content, 0, bound)
            if ledger:
                rt.budget.spend(state, u16len(content), entry, "report")
            else:
                state.trigger.spent_chars += u16len(content)
            if window:
                rt.coordination.record_review(entry, str(output.verdict), output.refs)
            report = PendingReport(
                epoch=entry.epoch,
                shadow_id=entry.definition.id,
                shadow_name=entry.definition.name,
                run_id=view.run_id,
                child_session_id=view.child_session_id or "",
                captured_through_seq=view.captured_through_seq,
                content=content,
                verdict=str(output.verdict),
                refs=tuple(output.refs),
                severity=output.severity,
                holdout_keys=(),
            )
            view.verdict = str(output.verdict)
            view.refs = tuple(output.refs)
            view.severity = output.severity
            view.content = content
            view.relayed = False
            # the relay for it
            message = build_relay([report])
            relayed += len(message.content[0].text)
        cpu, wall = time.thread_time() - t, time.perf_counter() - w
        self.relayed_chars = relayed
        return {"seconds": cpu, "wall": wall}


def build_entries(rt: ShadowRuntime, state: OwnerState, n: int, watermark: int) -> list[RunEntry]:
    definition = rt.registry.default_definition()
    cycle = state.governance.cycle_for(watermark)
    now = iso(rt.now())
    entries = []
    for i in range(n):
        view = RunView(
            run_id=f"{i:08d}{os.urandom(12).hex()}",
            shadow_id=definition.id,
            shadow_name=definition.name,
            captured_through_seq=watermark,
            phase=Phase.RUNNING,
            stage=Stage.VALIDATE,
            started_at=now,
            child_session_id=f"child-{i}",
        )
        entries.append(RunEntry(view=view, owner=state, definition=definition, cycle=cycle, epoch=state.epoch, manual=False))
    return entries


def use_ledger(state: OwnerState, directory: Path, root_id: str, rt: ShadowRuntime) -> BudgetLedger:
    ledger = BudgetLedger.load(directory, root_id, state.root.session.events)
    state.trigger.ledger = ledger
    return ledger


def count_writes(path: AcceptPath, ledger: BudgetLedger, n: int) -> int:
    """One untimed governance-on pass: the ledger's atomic writes (each fsyncs).
    Stops the bench unless every report wrote the file, as the runtime does."""
    writes = 0
    original = ledger_module.write_atomic

    def counting(target: Path, text: str, *args: Any, **kwargs: Any) -> Any:
        nonlocal writes
        if target == ledger.path:
            writes += 1
        return original(target, text, *args, **kwargs)

    ledger_module.write_atomic = counting  # type: ignore[assignment]
    try:
        path.run(n, window=True, ledger=True)
    finally:
        ledger_module.write_atomic = original
    if writes != n or not ledger.path.is_file():
        raise SystemExit(f"the ledger wrote {writes} times for {n} reports: the bench would not measure the debit")
    return writes


def variants(path: AcceptPath, n: int) -> list[tuple[str, Callable[[], Any]]]:
    return [
        ("governance off", lambda: path.run(n, window=False, ledger=False)),
        ("governance on", lambda: path.run(n, window=True, ledger=True)),
        ("review window only", lambda: path.run(n, window=True, ledger=False)),
        ("ledger debit only", lambda: path.run(n, window=False, ledger=True)),
    ]


def per_report(results: dict[str, Any], n: int) -> str:
    base = results["governance on"].a
    lines = [f"  per report (cpu): governance off {base.median / n * 1e6:6.1f} us"]
    for name, c in results.items():
        lines.append(f"; {name} +{(c.b.median - base.median) / n * 1e6:.1f} us")
    return "".join(lines)


async def run(args: argparse.Namespace, home: Path) -> None:
    seqs, watermark = rendered_seqs()
    outputs = structured_outputs(args.reports, seqs)
    work = home.parent / "work"
    work.mkdir()
    async with open_host(rows=[RUNTIME_ROW], dsh_home=home, cwd=work, headless=True, environ={}, logger=logging.getLogger("bench-host")) as host:
        handle = await host.agents.create(CreateAgentOptions(agent_options=AgentOptions(provider="scripted", model="m")))
        rt = runtime_for(host)
        assert rt is not None
        state = rt.owner(handle.agent)
        assert state is not None
        entries = build_entries(rt, state, max(args.reports, args.disk_reports), watermark)
        path = AcceptPath(rt, state, entries, outputs, seqs)
        fast_dir = Path(tempfile.mkdtemp(prefix="dsh-bench-ledger-", dir=args.ledger_dir))
        disk_dir = Path(tempfile.mkdtemp(prefix="dsh-bench-ledger-"))
        try:
            ledger = use_ledger(state, fast_dir, handle.agent.id, rt)
            writes = count_writes(path, ledger, args.reports)
            if args.profile:
                path.run(args.reports, window=True, ledger=True)  # warm
                profile(lambda: path.run(args.reports, window=True, ledger=True), top=25, sort="tottime")
                return
            print(
                f"governance overhead: {args.reports:,} accepted reports per sample, {args.reps} samples per variant, "
                f"interleaved; CPU seconds of the thread (wall alongside)"
            )
            main = compare_many(
                variants(path, args.reports),
                reps=args.reps,
                targets={"governance on": TARGET},
                units=args.reports,
                unit="reports",
                title=f"\nledger on {fast_dir.parent} ({fs_type(fast_dir)})",
            )
            print(per_report(main, args.reports))
            print(f"  ledger writes (write-ahead, atomic, fsynced) in an untimed pass of {args.reports:,}: {writes:,}")
            cooldowns = _count_cooldowns(path, rt, state, args.reports)
            print(
                f"  ledger: {ledger.spent_chars:,} chars spent, {len(ledger.debit_ids)} recent debit ids; "
                f"review window: {len(recent_reviews(state))} entries kept; "
                f"stagnation actions in one pass of {args.reports:,}: {cooldowns}; relay text {path.relayed_chars / args.reports:.0f} chars/report"
            )

            disk = None
            if args.disk_reports:
                count_writes(path, use_ledger(state, disk_dir, handle.agent.id, rt), args.disk_reports)
                disk = compare_many(
                    variants(path, args.disk_reports)[:2],
                    reps=3,
                    targets={"governance on": TARGET},
                    units=args.disk_reports,
                    unit="reports",
                    title=f"\nledger on {disk_dir.parent} ({fs_type(disk_dir)}), {args.disk_reports} reports per sample (wall matters here: fsync)",
                )
                d = disk["governance on"]
                print(
                    f"  per report: governance off {d.a.extra_median('wall') / args.disk_reports * 1e6:.1f} us wall, "
                    f"governance on {d.b.extra_median('wall') / args.disk_reports * 1e6:.1f} us wall"
                )
        finally:
            for directory in (fast_dir, disk_dir):
                for child in directory.iterdir():
                    child.unlink()
                directory.rmdir()
        await handle.dispose()

    c = main["governance on"]
    print(
        f"\nsummary"
        f"\n  accept path, governance on / off, {args.reports:,} reports, ledger on {args.ledger_dir or tempfile.gettempdir()}: "
        f"{c.ratio:.2f}x cpu, {c.b.extra_median('wall') / c.a.extra_median('wall'):.2f}x wall (target <= {TARGET:g}) {'OK' if c.ok else 'OVER'}"
        f"\n    review window only: {main['review window only'].ratio:.2f}x   ledger debit only: {main['ledger debit only'].ratio:.2f}x"
    )
    if disk is not None:
        d = disk["governance on"]
        print(
            f"  accept path, governance on / off, {args.disk_reports} reports, ledger on disk ($TMPDIR): "
            f"{d.b.extra_median('wall') / d.a.extra_median('wall'):.1f}x wall, {d.ratio:.2f}x cpu "
            f"(target <= {TARGET:g}) {'OK' if d.ok else 'OVER'}"
        )


def _count_cooldowns(path: AcceptPath, rt: ShadowRuntime, state: OwnerState, n: int) -> str:
    """One untimed pass counting cooldown installs and reserved escalations."""
    installs = escalations = 0
    original = rt.coordination.record_review

    def counting(entry: RunEntry, verdict: str, refs: tuple[int, ...]) -> None:
        nonlocal installs, escalations
        before = state.trigger.cooldowns.get(entry.definition.id)
        pending = dict(state.trigger.pending_escalations)
        original(entry, verdict, refs)
        if state.trigger.cooldowns.get(entry.definition.id) is not before:
            installs += 1
        if state.trigger.pending_escalations != pending:
            escalations += 1

    rt.coordination.record_review = counting  # type: ignore[method-assign]
    try:
        path.run(n, window=True, ledger=False)
    finally:
        del rt.coordination.record_review
    return f"{installs} cooldowns, {escalations} escalations"


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--reports", type=int, default=10_000, help="accepted reports per sample")
    parser.add_argument("--reps", type=int, default=3, help="samples per variant")
    default_dir = "/dev/shm" if os.path.isdir("/dev/shm") else None
    parser.add_argument("--ledger-dir", default=default_dir, help="where the main comparison's ledger lives (default /dev/shm)")
    parser.add_argument("--disk-reports", type=int, default=200, help="reports per sample with the ledger in $TMPDIR (0: skip)")
    parser.add_argument("--profile", action="store_true", help="cProfile the governance-on accept path instead")
    parser.add_argument("--quick", action="store_true", help="300 reports, 1 sample, 30 on disk (a smoke run)")
    args = parser.parse_args()
    if args.quick:
        args.reports, args.reps, args.disk_reports = 300, 1, 30
    logging.getLogger("bench-host").setLevel(logging.WARNING)
    with temp_dsh_home() as home:
        trio.run(run, args, home)


if __name__ == "__main__":
    main()
