"""The ``harness`` command line.

Only the parsers are imported up front (:mod:`.parsers`): each command's
module, and with it the host, the chat, the web stack or an LLM adapter, is
imported in the branch that runs it, so ``harness --help`` and a Stop hook
that admits no review pay for none of them.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from hookspecs.errors import DshError

from .profile_args import add_profile_arguments, dsh_home, load_profile

#: ``harness shadow hook``: the agent waits for it at every Stop, so it is run
#: before any parser is built or any extension is looked up (the host provides
#: it: ``dsh.shadow_cli`` in its own pyproject)
_HOOK = ("shadow", "hook")


class _Parser(argparse.ArgumentParser):
    """The top-level parser: the extension commands' help lines are read from
    their source only when the command list is printed."""

    fill_help: Callable[[], None] | None = None

    def format_help(self) -> str:
        if self.fill_help is not None:
            self.fill_help()
        return super().format_help()


def build_parser() -> argparse.ArgumentParser:
    from .extensions import add_extension_parsers
    from .parsers import add_command_parsers

    parser = _Parser(prog="harness", description="The reference dsh agent host.")
    add_profile_arguments(parser)
    parser.add_argument("--dump-config", action="store_true", help="print the composed profile with its layers")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more log output (repeatable)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    add_command_parsers(sub, partial(add_profile_arguments, command=True))
    parser.fill_help = add_extension_parsers(sub, lazy_help=True)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    given = list(sys.argv[1:] if argv is None else argv)
    if tuple(given[:2]) == _HOOK:
        from harness.transcripts.hook import hook_main

        return hook_main(given[2:])
    from .common import EXIT_USAGE, setup_logging, single_dsh_error

    parser = build_parser()
    args = parser.parse_args(given)
    setup_logging(args.verbose)
    home = dsh_home()
    try:
        if getattr(args, "extension", None) is not None:
            from .extensions import run_extension

            return run_extension(args.extension, args.extension_argv, profile=args.profile, patches=args.patch)
        return _run_command(args, home) if args.command or args.dump_config else _usage(parser)
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


def _usage(parser: argparse.ArgumentParser) -> int:
    from .common import EXIT_USAGE

    parser.print_help()
    return EXIT_USAGE


def _run_command(args: argparse.Namespace, home: Path) -> int:
    # each branch imports its command: nothing is loaded for a command not run
    if args.dump_config:
        from .inspect import dump

        return dump(load_profile(args, home))
    if args.command in ("run", "chat") and args.session:
        from .inspect import resolve_session_id

        args.session = resolve_session_id(home, args.session)  # a unique prefix names its session
    if args.command in ("run", "chat", "serve"):
        import trio

        from .common import pause_collection, resume_collection

        if args.command != "serve":  # a server's start-up has no end to resume at: not paused
            pause_collection()  # run and chat resume it once their root agent is attached
        try:
            composed = load_profile(args, home)
            return trio.run(_command(args.command), args, composed.rows if composed else (), home)
        finally:
            resume_collection()
    if args.command == "demo":
        from .demo import run_demo

        return run_demo(args)
    if args.command == "sessions":
        from .inspect import sessions_list, sessions_show

        if args.sessions_command == "list":
            return sessions_list(home, as_json=args.json)
        return sessions_show(home, args.session_id, as_json=args.json)
    from .inspect import plugins_list  # "plugins"

    return plugins_list(load_profile(args, home))


def _command(name: str) -> Any:
    if name == "run":
        from .run import run_prompt

        return run_prompt
    if name == "chat":
        from .chat import run_chat

        return run_chat
    from .serve import run_serve

    return run_serve


def __getattr__(name: str) -> Any:
    if name == "CLI_ENTRY_POINT_GROUP":
        from .extensions import CLI_ENTRY_POINT_GROUP

        return CLI_ENTRY_POINT_GROUP
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["CLI_ENTRY_POINT_GROUP", "build_parser", "main"]
