"""Run one reviewer over a corpus: each case in a fresh home and host of its own.

A case is reviewed the way ``harness shadow review`` reviews a transcript: the
session is imported (a harness ``session.jsonl`` is copied in as it is), the
host opens it with the profile's plugins and a stand-in model for the root,
``/shadow new`` forces one review by the evaluated definition, and the settled
run is read from its card and its relay. The reviewer gets no file tools: a
corpus carries sessions, not their projects. A home per case keeps one case's
journals, cooldowns and review window from touching the next.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import attrs
import trio

from harness.host import drain, open_host
from harness.profiles import ProfileRow
from harness.transcripts.mirror import MirrorPlugin
from harness.transcripts.reader import read_source
from harness.transcripts.review import command, dispose, relayed, review_imported, settled_runs
from harness.transcripts.workspace import NO_WORKSPACE, NoFileTools
from hookspecs.layout import SESSION_FILE, SESSIONS_DIR

from .corpus import Case, harness_lines, session_format
from .reviewers import EVAL_ID, ReviewerSpec, definition_text

#: the phases a settled review can have; anything else is an error of the run
SETTLED = frozenset({"report", "silent", "not_relevant"})


@attrs.frozen(kw_only=True)
class CaseResult:
    case: Case
    phase: str
    verdict: str | None = None
    severity: float | None = None
    #: the report's refs as session-file lines (a ref with no line is left out)
    ref_lines: tuple[int, ...] = ()
    #: the evidence checks handed to a model reviewer as leads
    leads: tuple[str, ...] = ()
    prompt_chars: int = 0
    #: summed over the reviewer's requests; None when the provider reported none
    input_tokens: int | None = None
    output_tokens: int | None = None
    seconds: float = 0.0
    #: why a run did not settle (its reason code or cause)
    error: str | None = None

    @property
    def settled(self) -> bool:
        return self.phase in SETTLED


async def run_corpus(
    cases: Sequence[Case],
    spec: ReviewerSpec,
    *,
    rows: tuple[ProfileRow, ...],
    source_home: Path,
    bound_seconds: float,
    clock: Callable[[], float] = time.monotonic,
) -> list[CaseResult]:
    definition = definition_text(spec, source_home)
    results = []
    for case in cases:
        with tempfile.TemporaryDirectory(prefix="dsh-eval-") as scratch:
            home = Path(scratch) / "home"
            minds = home / "shadow-minds"
            minds.mkdir(parents=True, mode=0o700)
            (minds / f"{EVAL_ID}.md").write_text(definition, encoding="utf-8")
            started = clock()
            result = await review_case(case, home=home, rows=rows, bound_seconds=bound_seconds)
            results.append(attrs.evolve(result, seconds=clock() - started))
    return results


async def review_case(case: Case, *, home: Path, rows: tuple[ProfileRow, ...], bound_seconds: float) -> CaseResult:
    if session_format(case.session) == "harness":
        phase, run, refs = await _review_log(case.session, home, rows, bound_seconds)
        lines = harness_lines(case.session)
        ref_lines = tuple(sorted({lines[seq] for seq in refs if seq in lines}))
    else:
        outcome = await review_imported(
            read_source(case.session),
            home=home,
            rows=rows,
            record=None,
            keep=lambda _record: None,
            workspace=NO_WORKSPACE,
            definition=EVAL_ID,
            bound_seconds=bound_seconds,
        )
        phase, run = outcome.phase, outcome.run
        ref_lines = tuple(sorted({r["transcript_line"] for r in outcome.refs if isinstance(r.get("transcript_line"), int)}))
    chars, tokens_in, tokens_out = child_cost(home, run.get("child_session_id"))
    severity = run.get("severity")
    return CaseResult(
        case=case,
        phase=phase,
        verdict=run.get("verdict") if phase == "report" else None,
        severity=float(severity) if isinstance(severity, (int, float)) and phase == "report" else None,
        ref_lines=ref_lines if phase == "report" else (),
        leads=tuple(str(lead.get("kind")) for lead in run.get("leads") or () if isinstance(lead, dict)),
        prompt_chars=chars,
        input_tokens=tokens_in,
        output_tokens=tokens_out,
        error=None if phase in SETTLED else str(run.get("reason_code") or run.get("cause") or phase),
    )


async def _review_log(
    path: Path, home: Path, rows: tuple[ProfileRow, ...], bound_seconds: float
) -> tuple[str, dict[str, Any], tuple[int, ...]]:
    """A harness session log, copied in whole and reviewed where it ends."""
    session_id, cwd = _copy_in(path, home)
    plugins: list[tuple[str, object]] = [("transcript-mirror", MirrorPlugin(session_id)), ("no-file-tools", NoFileTools())]
    async with open_host(rows=rows, dsh_home=home, cwd=cwd, headless=True, extra_plugins=plugins) as host:
        handle = await host.agents.resume(session_id)
        agent = handle.agent
        since = len(agent.session.events)
        try:
            with trio.move_on_after(bound_seconds) as bound:
                await command(host, agent, f"/shadow new {EVAL_ID}")
                await drain(host, agent)
            _report, refs = relayed(agent.session.events, since)
        finally:
            await dispose(host, handle)
        runs = settled_runs(host.client.cards(session_id))
    run = runs[-1] if runs else {}
    phase = "timeout" if bound.cancelled_caught else str(run.get("phase", "failed"))
    return phase, run, tuple(r["seq"] for r in refs if isinstance(r.get("seq"), int))


def _copy_in(path: Path, home: Path) -> tuple[str, Path]:
    """The log under the home's sessions (its id from its header), and an empty cwd."""
    session_id = str(json.loads(path.read_bytes().split(b"\n", 1)[0])["id"])
    target = home / SESSIONS_DIR / session_id
    target.mkdir(parents=True, mode=0o700)
    shutil.copyfile(path, target / SESSION_FILE)
    cwd = home / "empty-workspace"
    cwd.mkdir(mode=0o700)
    return session_id, cwd


def child_cost(home: Path, child_id: Any) -> tuple[int, int | None, int | None]:
    """``(prompt characters, input tokens, output tokens)`` from the reviewer's
    child log: the stored prompt's size and the usage its requests reported.
    A checks-only review has no child and costs nothing."""
    if not isinstance(child_id, str):
        return 0, None, None
    path = home / SESSIONS_DIR / child_id / SESSION_FILE
    chars, tokens_in, tokens_out, reported = 0, 0, 0, False
    try:
        lines = path.read_bytes().splitlines()
    except OSError:
        return 0, None, None
    for raw in lines[1:]:
        try:
            event = json.loads(raw)
        except ValueError:
            continue
        data = event.get("data") if isinstance(event, dict) else None
        if not isinstance(data, dict):
            continue
        message = data.get("message") if isinstance(data.get("message"), dict) else {}
        stored = (message.get("source") or {}).get("stored_prompt") if isinstance(message, dict) else None
        if event.get("type") == "user/message" and isinstance(stored, dict) and not chars:
            chars = int(stored.get("prompt_chars") or 0)
        usage = data.get("usage")
        if event.get("type") == "assistant/message" and isinstance(usage, dict):
            reported = True
            tokens_in += int(usage.get("input_tokens") or 0)
            tokens_out += int(usage.get("output_tokens") or 0)
    return chars, (tokens_in if reported else None), (tokens_out if reported else None)
