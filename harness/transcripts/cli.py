"""``harness shadow review PATH``: one Shadow review of a Claude Code or Codex transcript.

Exit codes: 0 the reviewer had nothing to add (``silent`` / ``not_relevant``),
1 a report (printed), 2 bad arguments, profile or transcript, 3 the review
failed, was aborted or ran out of time.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import trio

from harness.cli.common import add_profile_arguments, dsh_home, load_profile, single_dsh_error
from harness.cli.render import visible
from hookspecs.errors import DshError
from hookspecs.scrub import scrub_text

from .model import ImportedTranscript
from .reader import import_transcript
from .review import ReviewOutcome, review_imported

EXIT_QUIET = 0
EXIT_REPORT = 1
EXIT_USAGE = 2
EXIT_FAILED = 3
DEFAULT_TIMEOUT = 600.0


def add_review_arguments(parser: argparse.ArgumentParser) -> None:
    add_profile_arguments(parser)
    parser.add_argument("--definition", metavar="NAME", help="the Shadow definition id (default: the default Shadow)")
    parser.add_argument("--format", choices=("claude-code", "codex"), help="the transcript format (default: detected)")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="S", help="bound on the whole review")
    parser.add_argument("--json", action="store_true", help="one JSON document")


def review_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="harness shadow review",
        description="One Shadow review of a Claude Code or Codex transcript.",
        epilog="exit status: 0 quiet, 1 report, 2 bad input, 3 the review failed, was aborted or timed out",
    )
    parser.add_argument("path", metavar="PATH", help="a Claude Code session .jsonl or a Codex rollout-*.jsonl")
    add_review_arguments(parser)
    return parser


def run_review(path: Path, args: argparse.Namespace) -> tuple[ImportedTranscript, ReviewOutcome]:
    """Import, then review; profile, transcript and start errors are :class:`DshError`."""
    home = dsh_home()
    composed = load_profile(args, home)
    transcript = import_transcript(path, format=args.format)
    rows = composed.rows if composed else ()
    try:
        outcome = trio.run(
            lambda: review_imported(
                transcript, home=home, rows=rows, definition=args.definition, bound_seconds=args.timeout
            )
        )
    except BaseExceptionGroup as group:
        single = single_dsh_error(group)
        if single is None:
            raise
        raise single from None
    return transcript, outcome


def outcome_json(transcript: ImportedTranscript, outcome: ReviewOutcome) -> dict[str, Any]:
    run = outcome.run
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
            "events": len(transcript.events),
            "skipped": transcript.skipped,
            "unknown": transcript.unknown,
            "synthesised_results": transcript.synthesised,
        },
    }


def outcome_text(transcript: ImportedTranscript, outcome: ReviewOutcome) -> str:
    run = outcome.run
    head = (
        f"Shadow review of a {transcript.format} transcript ({transcript.lines} lines; session {outcome.session_id}): "
    )
    detail = run.get("verdict") or run.get("reason_code")
    lines = [head + outcome.phase + (f" ({detail})" if detail else "")]
    if outcome.report:
        lines.append(visible(outcome.report))
    for ref in outcome.refs:
        where = f"transcript line {ref['transcript_line']}" if ref.get("transcript_line") else "an event of the review"
        lines.append(f"  ref seq {ref['seq']}: {where} ({ref.get('type')})")
    if run.get("cause"):
        lines.append(f"cause: {visible(str(run['cause']))}")
    return "\n".join(lines) + "\n"


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
        transcript, outcome = run_review(Path(args.path), args)
    except DshError as exc:
        print(f"harness shadow review: {scrub_text(str(exc), limit=2000)}", file=sys.stderr)
        return EXIT_USAGE
    if args.json:
        sys.stdout.write(json.dumps(outcome_json(transcript, outcome), ensure_ascii=False, indent=2) + "\n")
    else:
        sys.stdout.write(outcome_text(transcript, outcome))
    return exit_code(outcome)
