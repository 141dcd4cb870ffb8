"""The subcommands' argument parsers, apart from the commands.

``harness --help`` builds every parser but runs none of the commands, so the
parsers live here with nothing heavier than :mod:`argparse`: the terminal
chat, the host, the web stack and the LLM adapters load only in the branch of
:func:`harness.cli.main` that runs them.
"""

from __future__ import annotations

import argparse
from typing import Any

from ..tools.sandbox_modes import SANDBOX_MODES


def add_command_parsers(sub: Any, add_profile_arguments: Any) -> None:
    """The built-in commands' parsers, in ``harness --help``'s order."""
    add_run_parser(sub, add_profile_arguments)
    add_chat_parser(sub, add_profile_arguments)
    add_demo_parser(sub)
    add_serve_parser(sub, add_profile_arguments)
    add_sessions_parser(sub)
    add_plugins_parser(sub, add_profile_arguments)


def add_sandbox_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--sandbox",
        choices=SANDBOX_MODES,
        help="sandbox mode for bash (workspace-write, read-only: bubblewrap, no network); default: unconfined",
    )


def add_run_parser(sub: Any, add_profile_arguments: Any) -> None:
    parser = sub.add_parser("run", help="run one prompt headless and print the transcript")
    add_profile_arguments(parser)
    parser.add_argument("prompt", help="the prompt (or a /command)")
    parser.add_argument("--model", metavar="PROVIDER/MODEL", help="route for the root agent")
    parser.add_argument("--cwd", metavar="DIR", help="workspace the file tools are confined to (default: .)")
    add_sandbox_argument(parser)
    parser.add_argument("--session", metavar="ID", help="continue an existing session")
    parser.add_argument("--json", action="store_true", help="print a JSON transcript instead of streaming text")
    parser.add_argument("--show-reasoning", action="store_true", help="stream reasoning (dimmed)")
    parser.add_argument("--no-signals", action="store_true", help=argparse.SUPPRESS)


def add_chat_parser(sub: Any, add_profile_arguments: Any) -> None:
    parser = sub.add_parser("chat", help="chat with an agent in the terminal (approvals asked interactively)")
    add_profile_arguments(parser)
    parser.add_argument("--session", metavar="ID", help="continue an existing session")
    parser.add_argument("--model", metavar="PROVIDER/MODEL", help="route for the root agent")
    parser.add_argument("--cwd", metavar="DIR", help="workspace the file tools are confined to (default: .)")
    add_sandbox_argument(parser)


def add_serve_parser(sub: Any, add_profile_arguments: Any) -> None:
    parser = sub.add_parser("serve", help="serve the web client on loopback (a credential in the printed URL)")
    add_profile_arguments(parser)
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="loopback address to listen on (default: 127.0.0.1; anything else is refused)",
    )
    parser.add_argument("--port", type=int, default=8765, help="port (default: 8765; 0 picks a free one)")
    parser.add_argument("--model", metavar="PROVIDER/MODEL", help="route for root agents")
    parser.add_argument("--cwd", metavar="DIR", help="workspace new sessions' file tools are confined to (default: .)")
    parser.add_argument(
        "--new-token",
        action="store_true",
        help="make a new credential (the one kept in DSH_HOME/web-token survives restarts; pages holding it must open the new URL)",
    )


def add_demo_parser(sub: Any) -> None:
    parser = sub.add_parser(
        "demo",
        help="run a shipped offline demo (temporary workspace and DSH_HOME)",
        description="Run a demo shipped by an installed distribution, offline, in a temporary copy of its "
        "workspace; $DSH_HOME is a temporary directory unless it is set.",
    )
    parser.add_argument("name", nargs="?", help="which demo (default: the only one installed)")
    parser.add_argument("--list", action="store_true", help="list the installed demos")
    how = parser.add_mutually_exclusive_group()
    how.add_argument("--json", action="store_true", help="print a JSON transcript instead of streaming text")
    how.add_argument("--chat", action="store_true", help="chat in the demo's setup instead of sending its prompt")
    how.add_argument(
        "--serve", action="store_true", help="run the demo's prompt, then serve its session in the web client"
    )
    parser.add_argument("--port", type=int, default=8765, help="with --serve: the port (default: 8765; 0 picks a free one)")


def add_sessions_parser(sub: Any) -> None:
    sessions = sub.add_parser("sessions", help="list or show stored sessions")
    sessions_sub = sessions.add_subparsers(dest="sessions_command", metavar="ACTION", required=True)
    listing = sessions_sub.add_parser("list", help="list sessions, newest first")
    listing.add_argument("--json", action="store_true")
    show = sessions_sub.add_parser("show", help="print a session's transcript")
    show.add_argument("session_id", metavar="ID")
    show.add_argument("--json", action="store_true", help="one JSON event per line")


def add_plugins_parser(sub: Any, add_profile_arguments: Any) -> None:
    plugins = sub.add_parser("plugins", help="list the plugins a profile loads and the hooks each implements")
    add_profile_arguments(plugins)
