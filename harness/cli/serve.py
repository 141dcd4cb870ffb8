"""``harness serve``: the web client on loopback (see docs/web.md)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..profiles import ProfileRow
from .run import agent_options, workspace


def add_serve_parser(sub: Any, add_profile_arguments: Any) -> None:
    parser = sub.add_parser("serve", help="serve the web client on loopback (a credential in the printed URL)")
    add_profile_arguments(parser)
    parser.add_argument("--host", default="127.0.0.1", help="loopback address to listen on (default: 127.0.0.1; anything else is refused)")
    parser.add_argument("--port", type=int, default=8765, help="port (default: 8765; 0 picks a free one)")
    parser.add_argument("--model", metavar="PROVIDER/MODEL", help="route for root agents")
    parser.add_argument("--cwd", metavar="DIR", help="workspace new sessions' file tools are confined to (default: .)")
    parser.add_argument(
        "--new-token", action="store_true", help="make a new credential (the one kept in DSH_HOME/web-token survives restarts; pages holding it must open the new URL)"
    )


async def run_serve(args: argparse.Namespace, rows: tuple[ProfileRow, ...], home: Path) -> int:
    from ..web.server import is_loopback, run_server  # the web stack loads only for this command

    if not 0 <= args.port <= 65535:
        print(f"harness: --port {args.port} is not a port number (0-65535)", file=sys.stderr)
        return 2
    if not is_loopback(args.host):
        # '' or 0.0.0.0 would listen on every interface; there is no opt-in: the
        # credential travels in plain HTTP, fine only on loopback
        print(
            f"harness: --host {args.host!r} is not a loopback address; harness serve listens on loopback only (127.0.0.1, ::1 or localhost)",
            file=sys.stderr,
        )
        return 2
    return await run_server(
        rows=rows, home=home, cwd=workspace(args.cwd), options=agent_options(args.model), address=args.host, port=args.port,
        new_token=args.new_token,
    )
