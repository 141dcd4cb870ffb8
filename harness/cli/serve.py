"""``harness serve``: the web client on loopback (see docs/web.md)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..profiles import ProfileRow
from .parsers import add_serve_parser
from .run import agent_options, workspace


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
        rows=rows,
        home=home,
        cwd=workspace(args.cwd),
        options=agent_options(args.model),
        address=args.host,
        port=args.port,
        new_token=args.new_token,
    )


__all__ = ["add_serve_parser", "run_serve"]
