"""Debug Shadow Mind runs from the journals and session logs (trace, health).

``harness shadow trace RUN|SESSION`` explains one run (or every run of a root
session) from the debug journals (``shadow-minds/logs/*.jsonl``, written when a
definition has ``debug: true``), the relay provenance in the root log, the
value-loop journal and the child session. ``harness shadow health`` checks the
journals' integrity and file modes and can repair them.

Output is metadata only: never prompt text, tool arguments, tool results or
report bodies (assistant text heads only with ``--show-text``), and never
absolute paths: files are named relative to the DSH home.

Reads files only: it needs no running host. This module parses the arguments
and dispatches; the work is in :mod:`.diagnostics`. It is the ``shadow``
command of the ``dsh.cli`` entry-point group: ``main(argv) -> exit code``.
``review`` and ``hook`` need a running host, which this package may not
import: the host provides them through the ``dsh.shadow_cli`` entry-point group
and this module hands them their arguments.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from importlib import metadata
from pathlib import Path

from .vocabulary import RUN_ID_MIN_PREFIX

EXIT_OK = 0
EXIT_PROBLEMS = 1
EXIT_USAGE = 2
DEFAULT_EVENTS = 15
#: entry-point group of actions a host provides (they need a running host, which
#: this package may not import): name -> ``main(argv) -> exit code``
HOST_ACTIONS_GROUP = "dsh.shadow_cli"


def host_actions() -> dict[str, metadata.EntryPoint]:
    return {ep.name: ep for ep in metadata.entry_points(group=HOST_ACTIONS_GROUP)}


def resolve_home(raw: str | None) -> Path:
    if raw:
        return Path(raw).expanduser()
    env = os.environ.get("DSH_HOME")
    return Path(env).expanduser() if env else Path.home() / ".dsh"


def build_parser() -> argparse.ArgumentParser:
    from .diagnostics.evidence import TEXT_HEAD  # the diagnostics load only when their parser is built

    extra = ", ".join(sorted(host_actions()))
    epilog = f"actions provided by the host: {extra} (see 'harness shadow ACTION --help')" if extra else None
    parser = argparse.ArgumentParser(prog="harness shadow", description=(__doc__ or "").splitlines()[0], epilog=epilog)
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    trace_parser = sub.add_parser("trace", help="explain a run, a root session's runs or a reviewer's child session")
    trace_parser.add_argument(
        "target",
        metavar="RUN|SESSION",
        help=f"a run id (or a unique prefix of at least {RUN_ID_MIN_PREFIX} characters), a root session id or a child session id",
    )
    trace_parser.add_argument("--home", help="the DSH home (default $DSH_HOME, else ~/.dsh)")
    trace_parser.add_argument(
        "--events",
        type=_count,
        default=DEFAULT_EVENTS,
        metavar="N",
        help=f"last child events to show (default {DEFAULT_EVENTS})",
    )
    trace_parser.add_argument("--show-text", action="store_true", help=f"show assistant text heads ({TEXT_HEAD} characters)")
    trace_parser.add_argument("--json", action="store_true", help="one JSON document")
    health_parser = sub.add_parser("health", help="check (and repair) journal integrity and file modes")
    health_parser.add_argument("--home", help="the DSH home (default $DSH_HOME, else ~/.dsh)")
    health_parser.add_argument("--repair", action="store_true", help="rewrite damaged journals atomically and fix modes")
    health_parser.add_argument("--json", action="store_true", help="one JSON document")
    return parser


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError("expected 0 or more")
    return value


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    provided = host_actions().get(arguments[0]) if arguments else None
    if provided is not None:
        try:
            command: Callable[[list[str]], int] = provided.load()
        except Exception as exc:  # a broken host extension must not raise a traceback at the user
            print(f"harness shadow: cannot load '{provided.name}' ({provided.value}): {type(exc).__name__}", file=sys.stderr)
            return EXIT_PROBLEMS
        return int(command(arguments[1:]) or 0)
    parser = build_parser()
    try:
        args = parser.parse_args(arguments)
    except SystemExit as exit:
        return exit.code if isinstance(exit.code, int) else EXIT_USAGE
    return _diagnose(args)


def _diagnose(args: argparse.Namespace) -> int:
    # the diagnostics load only for trace and health: a host action (the Stop
    # hook runs at every Stop of an agent) never pays for them
    from .diagnostics.health import health
    from .diagnostics.holdout_view import quiet_literals
    from .diagnostics.render import HomeRelative, render_health, render_json, render_trace
    from .diagnostics.trace import TraceError, run_trace
    from .governance.holdout import redact

    home = resolve_home(args.home)
    relative = HomeRelative(home)
    try:
        if args.action == "trace":
            result = run_trace(home, args.target, events=args.events, show_text=args.show_text)
            # a last pass over the printed text: rendering must not reassemble a literal either
            text = redact(render_json(result) if args.json else render_trace(result), quiet_literals(home))
            sys.stdout.write(relative(text))
            return EXIT_OK
        result = health(home, repair=args.repair, scrub=relative)
        sys.stdout.write(relative(render_json(result) if args.json else render_health(result, repair=args.repair)))
        return EXIT_OK if result["healthy"] else EXIT_PROBLEMS
    except TraceError as exc:
        print(f"harness shadow: {relative(redact(str(exc), quiet_literals(home)))}", file=sys.stderr)
        return EXIT_PROBLEMS
    except OSError as exc:
        print(f"harness shadow: {type(exc).__name__}: {relative(str(exc))}", file=sys.stderr)
        return EXIT_PROBLEMS
