"""``harness shadow review PATH``: one Shadow review of a Claude Code or Codex transcript.

An explicit request, so the review is forced as ``/shadow new`` is; the
transcript keeps one imported session across calls (its record is in
``$DSH_HOME/imports/reviews/<sha256 of the path>.json``), so a second call
appends only the new lines and journals, traces and budgets stay per
imported session.

The reviewer's file tools are confined to ``--cwd DIR`` (default: the
directory the command runs in), never to the cwd the transcript records; a
directory that is too wide (the root, your home, ``$DSH_HOME``...) is refused
and the review runs without file tools, saying so (:mod:`.workspace`).

Exit codes: 0 the reviewer had nothing to add (``silent`` / ``not_relevant``),
1 a report (printed), 2 bad arguments, profile or transcript, 3 the review
failed, was aborted or ran out of time.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.cli.common import add_profile_arguments, dsh_home, load_profile
from harness.cli.render import visible
from hookspecs.errors import DshError
from hookspecs.scrub import scrub_text

from .args import positive_seconds
from .record import ImportRecord, transcript_key
from .statefile import load_json, save_json

if TYPE_CHECKING:
    from .model import ImportedTranscript
    from .review import ReviewOutcome
    from .workspace import Workspace

EXIT_QUIET = 0
EXIT_REPORT = 1
EXIT_USAGE = 2
EXIT_FAILED = 3
DEFAULT_TIMEOUT = 600.0
RECORDS_DIR = "imports/reviews"


def add_review_arguments(parser: argparse.ArgumentParser) -> None:
    add_profile_arguments(parser)
    parser.add_argument("--definition", metavar="NAME", help="the reviewer definition id (default: the `default` one)")
    parser.add_argument("--format", choices=("claude-code", "codex"), help="the transcript format (default: detected)")
    parser.add_argument(
        "--timeout", type=positive_seconds, default=DEFAULT_TIMEOUT, metavar="S", help="bound on the whole review"
    )
    parser.add_argument("--json", action="store_true", help="one JSON document")


def review_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="harness shadow review",
        description="One Shadow review of a Claude Code or Codex transcript.",
        epilog="exit status: 0 quiet, 1 report, 2 bad input, 3 the review failed, was aborted or timed out",
    )
    parser.add_argument("path", metavar="PATH", help="a Claude Code session .jsonl or a Codex rollout-*.jsonl")
    add_review_arguments(parser)
    parser.add_argument(
        "--cwd",
        metavar="DIR",
        help="the project the reviewer's read-only file tools may read (default: the current directory; "
        "never the transcript's recorded cwd)",
    )
    return parser


def record_path(home: Path, path: Path) -> Path:
    """Where the imported session of the transcript at ``path`` is recorded."""
    digest = hashlib.sha256(transcript_key(path).encode("utf-8", errors="surrogateescape")).hexdigest()
    return home / RECORDS_DIR / f"{digest[:32]}.json"


def load_record(path: Path) -> ImportRecord | None:
    # none yet, or damaged: the transcript is imported into a new session
    return ImportRecord.from_json(load_json(path))


def save_record(path: Path, record: ImportRecord, workspace: Workspace) -> None:
    # the workspace is this review's, kept beside the record for the person to see
    save_json(path, {**record.to_json(), "workspace": workspace.to_json()})


def review_workspace(args: argparse.Namespace, home: Path) -> Workspace:
    """``--cwd``, else the current directory: the person's choice, checked."""
    from .workspace import choose_workspace  # the file tools load only for a review

    if args.cwd is not None:
        return choose_workspace(args.cwd, dsh_home=home, missing="--cwd is empty", relative_ok=True)
    try:
        here = os.getcwd()
    except OSError:
        here = None  # the current directory was removed
    return choose_workspace(here, dsh_home=home, missing="the current directory is gone", relative_ok=True)


def run_review(path: Path, args: argparse.Namespace) -> ReviewOutcome:
    """Import, then review; profile, transcript and start errors are :class:`DshError`."""
    # the importers and the host load only for a review, not for --help
    from .reader import read_source
    from .review import review_imported, run_trio

    home = dsh_home()
    composed = load_profile(args, home)
    source = read_source(path)
    rows = composed.rows if composed else ()
    where = record_path(home, path)
    workspace = review_workspace(args, home)
    return run_trio(
        lambda: review_imported(
            source,
            home=home,
            rows=rows,
            record=load_record(where),
            keep=lambda record: save_record(where, record, workspace),
            workspace=workspace,
            format=args.format,
            definition=args.definition,
            bound_seconds=args.timeout,
        )
    )


def outcome_json(outcome: ReviewOutcome) -> dict[str, Any]:
    run, transcript = outcome.run, outcome.transcript
    return {
        "outcome": outcome.phase,
        "session_id": outcome.session_id,
        "run_id": run.get("run_id"),
        "shadow_id": run.get("shadow_id"),
        "verdict": run.get("verdict"),
        "reason_code": run.get("reason_code"),
        "report": outcome.report,
        "refs": list(outcome.refs),
        "transcript": {
            "format": transcript.format,
            "lines": transcript.lines,
            "first_line": transcript.first_line,
            "events": len(transcript.events),
            "skipped": transcript.skipped,
            "unknown": transcript.unknown,
            "unknown_lines": transcript.unknown_lines,
            "synthesised_results": transcript.synthesised,
        },
        "restarted": outcome.restarted,
        "workspace": outcome.workspace.to_json() if outcome.workspace else None,
    }


def outcome_text(outcome: ReviewOutcome) -> str:
    run, transcript = outcome.run, outcome.transcript
    head = f"Shadow review of a {transcript.format} transcript ({_lines(transcript)}; session {outcome.session_id}): "
    detail = run.get("verdict") or run.get("reason_code")
    lines = [head + outcome.phase + (f" ({detail})" if detail else "")]
    if outcome.workspace is not None and outcome.workspace.note:
        lines.append(outcome.workspace.note)
    if outcome.restarted:
        lines.append(f"new imported session: {visible(outcome.restarted)}")
    if transcript.unknown_lines:
        lines.append("skipped, of a kind the importer does not know: " + unknown_text(transcript.unknown_lines))
    if outcome.report:
        lines.append(visible(outcome.report))
    for ref in outcome.refs:
        where = f"transcript line {ref['transcript_line']}" if ref.get("transcript_line") else "an event of the review"
        lines.append(f"  ref seq {ref['seq']}: {where} ({ref.get('type')})")
    if run.get("cause"):
        lines.append(f"cause: {visible(str(run['cause']))}")
    return "\n".join(lines) + "\n"


def unknown_text(unknown_lines: dict[str, list[int]]) -> str:
    """``weird-kind (lines 9, 12); other (line 3)``: where to find each skipped unknown entry."""
    parts = []
    for kind, numbers in sorted(unknown_lines.items()):
        label = "line" if len(numbers) == 1 else "lines"
        parts.append(f"{visible(kind)} ({label} {', '.join(map(str, numbers))})")
    return "; ".join(parts)


def _lines(transcript: ImportedTranscript) -> str:
    if transcript.first_line == 1:
        return f"{transcript.lines} lines"
    if transcript.first_line > transcript.lines:
        return f"{transcript.lines} lines, none new"
    return f"{transcript.lines} lines, {transcript.first_line}-{transcript.lines} new"


def exit_code(outcome: ReviewOutcome) -> int:
    if outcome.phase == "report":
        return EXIT_REPORT
    return EXIT_QUIET if outcome.quiet else EXIT_FAILED


def review_main(argv: Sequence[str]) -> int:
    parser = review_parser()
    try:
        args = parser.parse_args(list(argv))
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    try:
        outcome = run_review(Path(args.path), args)
    except DshError as exc:
        print(f"harness shadow review: {scrub_text(str(exc), limit=2000)}", file=sys.stderr)
        return EXIT_USAGE
    if args.json:
        sys.stdout.write(json.dumps(outcome_json(outcome), ensure_ascii=False, indent=2) + "\n")
    else:
        sys.stdout.write(outcome_text(outcome))
    return exit_code(outcome)
