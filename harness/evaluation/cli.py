"""``harness shadow eval CORPUS``: the command line (a ``dsh.shadow_cli`` entry point).

Exit codes: 0 every threshold met (or none set), 1 a threshold missed,
2 bad arguments, profile, corpus or reviewer.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import attrs
import trio

from harness.cli.common import add_profile_arguments, dsh_home, load_profile, single_dsh_error
from harness.profiles import ProfileRow, compose_profile
from harness.transcripts.cli import positive_seconds
from harness.transcripts.review import RUNTIME_ROW, check_rows
from hookspecs.errors import DshError
from hookspecs.scrub import scrub_text

from .corpus import load_corpus
from .render import render_json, render_table
from .reviewers import CHECKS, ReviewerError, ReviewerSpec, parse_spec
from .run import run_corpus
from .score import DEFAULT_SEVERITY, Scorecard, misses, score

EXIT_PASSED = 0
EXIT_MISSED = 1
EXIT_USAGE = 2
DEFAULT_TIMEOUT = 600.0
#: the profile an evaluation without one runs with: enough for the checks-only reviewer
BUNDLE_ONLY = "- bundle: shadow-mind\n"


def fraction(text: str) -> float:
    """A rate from 0 through 1 (``0.8``)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value) or not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a rate from 0 through 1")
    return value


def eval_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="harness shadow eval",
        description="Grade a Shadow reviewer on a labelled corpus of sessions (docs/evaluation.md).",
        epilog="exit status: 0 thresholds met, 1 a threshold missed, 2 bad input",
    )
    parser.add_argument("corpus", metavar="CORPUS", help="a directory with corpus.yml or NAME.label.yml files")
    add_profile_arguments(parser)
    parser.add_argument("--definition", metavar="NAME", help="a definition in $DSH_HOME/shadow-minds/ (default: default)")
    parser.add_argument("--route", metavar="PROVIDER/MODEL", help="the reviewer's model (any provider the profile has)")
    parser.add_argument(
        "--reviewer", choices=("model", CHECKS), default="model", help="checks: the checks-only reviewer, no model"
    )
    parser.add_argument(
        "--compare",
        nargs=2,
        metavar=("A", "B"),
        help="two reviewers side by side on the same cases: each 'checks', provider/model, a definition name "
        "or NAME@provider/model",
    )
    parser.add_argument(
        "--severity", type=fraction, default=DEFAULT_SEVERITY, metavar="S", help="a catch needs at least this severity"
    )
    parser.add_argument("--min-catch", type=fraction, metavar="RATE", help="exit 1 when the catch rate is lower")
    parser.add_argument("--max-false-alarm", type=fraction, metavar="RATE", help="exit 1 when the false-alarm rate is higher")
    parser.add_argument(
        "--timeout", type=positive_seconds, default=DEFAULT_TIMEOUT, metavar="S", help="bound on each case's review"
    )
    parser.add_argument("--json", action="store_true", help="one JSON document")
    return parser


def reviewers(args: argparse.Namespace) -> list[ReviewerSpec]:
    if args.compare:
        if args.definition or args.route or args.reviewer != "model":
            raise ReviewerError("--compare names both reviewers: drop --definition, --route and --reviewer")
        return [parse_spec(text) for text in args.compare]
    if args.reviewer == CHECKS:
        if args.definition or args.route:
            raise ReviewerError("--reviewer checks uses no model: drop --definition and --route")
        return [parse_spec(CHECKS)]
    if args.definition is None and args.route is not None:
        return [parse_spec(args.route)]
    return [parse_spec(args.definition or "default", route=args.route)]


def eval_rows(args: argparse.Namespace, home: Path) -> tuple[ProfileRow, ...]:
    """The profile's rows (a bundle-only profile without one), with no batching
    window: a forced review relays at once, so a case costs no idle wait."""
    composed = load_profile(args, home)
    if composed is None:
        with tempfile.TemporaryDirectory(prefix="dsh-eval-profile-") as scratch:
            path = Path(scratch) / "profile.yml"
            path.write_text(BUNDLE_ONLY, encoding="utf-8")
            composed = compose_profile(str(path), dsh_home=home, patches=[])
    rows = composed.rows
    check_rows(rows)
    return tuple(
        attrs.evolve(row, config={**row.config, "resultBatchWindowMs": 0}) if row.name == RUNTIME_ROW else row
        for row in rows
    )


async def evaluate(args: argparse.Namespace) -> list[Scorecard]:
    home = dsh_home()
    specs = reviewers(args)
    cases = load_corpus(Path(args.corpus))
    rows = eval_rows(args, home)
    cards = []
    for spec in specs:
        results = await run_corpus(cases, spec, rows=rows, source_home=home, bound_seconds=args.timeout)
        cards.append(score(spec.label, results, args.severity))
    return cards


def eval_main(argv: Sequence[str]) -> int:
    parser = eval_parser()
    try:
        args = parser.parse_args(list(argv))
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    try:
        try:
            cards = trio.run(evaluate, args)
        except BaseExceptionGroup as group:
            single = single_dsh_error(group)
            if single is None:
                raise
            raise single from None
    except DshError as exc:
        print(f"harness shadow eval: {scrub_text(str(exc), limit=2000)}", file=sys.stderr)
        return EXIT_USAGE
    missed = [m for card in cards for m in misses(card, min_catch=args.min_catch, max_false_alarm=args.max_false_alarm)]
    if args.json:
        sys.stdout.write(json.dumps(render_json(cards, missed), ensure_ascii=False, indent=2) + "\n")
    else:
        sys.stdout.write(render_table(cards, missed))
    return EXIT_MISSED if missed else EXIT_PASSED
