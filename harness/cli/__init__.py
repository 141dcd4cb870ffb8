"""The ``harness`` command line."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

import trio

from hookspecs.errors import DshError

from .chat import add_chat_parser, run_chat
from .common import EXIT_USAGE, add_profile_arguments, dsh_home, load_profile, setup_logging, single_dsh_error
from .demo import add_demo_parser, run_demo
from .extensions import CLI_ENTRY_POINT_GROUP, add_extension_parsers, run_extension
from .inspect import dump, plugins_list, resolve_session_id, sessions_list, sessions_show
from .run import add_run_parser, run_prompt
from .serve import add_serve_parser, run_serve


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="harness", description="The reference dsh agent host.")
    add_profile_arguments(parser)
    parser.add_argument("--dump-config", action="store_true", help="print the composed profile with its layers")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more log output (repeatable)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    add_run_parser(sub, add_profile_arguments)
    add_chat_parser(sub, add_profile_arguments)
    add_demo_parser(sub)
    add_serve_parser(sub, add_profile_arguments)
    sessions = sub.add_parser("sessions", help="list or show stored sessions")
    sessions_sub = sessions.add_subparsers(dest="sessions_command", metavar="ACTION", required=True)
    listing = sessions_sub.add_parser("list", help="list sessions, newest first")
    listing.add_argument("--json", action="store_true")
    show = sessions_sub.add_parser("show", help="print a session's transcript")
    show.add_argument("session_id", metavar="ID")
    show.add_argument("--json", action="store_true", help="one JSON event per line")
    plugins = sub.add_parser("plugins", help="list the plugins a profile loads and the hooks each implements")
    add_profile_arguments(plugins)
    add_extension_parsers(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    setup_logging(args.verbose)
    home = dsh_home()
    try:
        if getattr(args, "extension", None) is not None:
            return run_extension(args.extension, args.extension_argv)
        if args.dump_config:
            return dump(load_profile(args, home))
        if args.command in ("run", "chat") and args.session:
            args.session = resolve_session_id(home, args.session)  # a unique prefix names its session
        if args.command == "run":
            composed = load_profile(args, home)
            return trio.run(run_prompt, args, composed.rows if composed else (), home)
        if args.command == "chat":
            composed = load_profile(args, home)
            return trio.run(run_chat, args, composed.rows if composed else (), home)
        if args.command == "serve":
            composed = load_profile(args, home)
            return trio.run(run_serve, args, composed.rows if composed else (), home)
        if args.command == "demo":
            return run_demo(args)
        if args.command == "sessions":
            if args.sessions_command == "list":
                return sessions_list(home, as_json=args.json)
            return sessions_show(home, args.session_id, as_json=args.json)
        if args.command == "plugins":
            return plugins_list(load_profile(args, home))
    except DshError as exc:
        print(f"harness: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # the reader went away (``harness sessions show ID | head``): not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except BaseExceptionGroup as group:
        # trio wraps errors raised inside the host's task groups
        error = single_dsh_error(group)
        if error is None:
            raise
        print(f"harness: {error}", file=sys.stderr)
        return EXIT_USAGE
    parser.print_help()
    return EXIT_USAGE


__all__ = ["CLI_ENTRY_POINT_GROUP", "build_parser", "main"]
