"""Running the web client: one host, one hypercorn server (trio worker) on a
socket bound before the URL is printed, stopped by Ctrl-C or SIGTERM.

Hypercorn because it has a native trio worker (the host is trio); starlette
because it runs on trio through anyio and streams responses (SSE) unbuffered.
"""

from __future__ import annotations

import ipaddress
import secrets
import signal
import socket
import sys
from pathlib import Path
from typing import Any, TextIO

import trio
from hypercorn.config import Config
from hypercorn.trio import serve as hypercorn_serve

from hookspecs.errors import DshError
from hookspecs.values import AgentOptions

from ..host import open_host
from ..profiles import ProfileRow
from .app import WebClient, build_app
from .approvals import WebApprover
from .auth import CredentialGate
from .bodies import BodyLimit
from .conversations import Conversations
from .feed import Feed

LOOPBACK = ("127.0.0.1", "localhost", "::1")
#: how long open streams get to finish once a stop was asked for
GRACE_SECONDS = 1.0


def is_loopback(host: str) -> bool:
    """A loopback address or ``localhost`` (never ``''`` or ``0.0.0.0``, which mean every interface)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise DshError(f"--host {host} --port {port}: cannot listen there ({exc.strerror})", code="USAGE") from None
    sock.listen(64)
    sock.set_inheritable(True)
    return sock


def host_names(host: str, port: int) -> list[str]:
    """``Host`` header values the gate accepts: the bound address, and the loopback names when bound to loopback."""
    names = {host} | (set(LOOPBACK) if host in LOOPBACK else set())
    return [f"[{n}]:{port}" if ":" in n else f"{n}:{port}" for n in names]


def web_app(client: WebClient, token: str, hosts: list[str]) -> CredentialGate:
    """The ASGI stack ``harness serve`` runs: the credential gate, the body limit, the routes."""
    return CredentialGate(BodyLimit(build_app(client)), token, hosts)


async def _stop_on_signals(stop: trio.Event, task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        task_status.started()
        async for _ in signals:
            stop.set()
            return


async def run_server(
    *,
    rows: tuple[ProfileRow, ...],
    home: Path,
    cwd: Path,
    options: AgentOptions,
    address: str,
    port: int,
    out: TextIO | None = None,
    stop: trio.Event | None = None,
) -> int:
    out = out or sys.stdout
    stop = stop or trio.Event()
    sock = bind(address, port)
    bound = sock.getsockname()[1]
    token = secrets.token_urlsafe(24)
    feed = Feed()
    approver = WebApprover(feed)
    plugins = [("web-feed", feed), ("web-approver", approver)]
    try:
        async with open_host(rows=rows, dsh_home=home, cwd=cwd, headless=False, extra_plugins=plugins) as host:
            conversations = Conversations(host, cwd, options)
            client = WebClient(host, conversations, feed, approver)
            feed.card_item = client.card_item
            feed.cards_of = host.client.cards
            for notice in host.client.notices():  # pushed while the host started; no await before subscribing
                feed.notices.add(notice)
            unsubscribe = host.client.subscribe(feed.client_item)
            config = Config()
            # hypercorn owns (and closes) the descriptor from here; closing a detached socket does nothing
            config.bind = [f"fd://{sock.detach()}"]
            config.accesslog = None
            config.loglevel = "WARNING"
            config.graceful_timeout = GRACE_SECONDS
            app = web_app(client, token, host_names(address, bound))
            shown = f"[{address}]" if ":" in address else address
            try:
                async with trio.open_nursery() as nursery:
                    await nursery.start(_stop_on_signals, stop)
                    # in the fragment: the browser never sends it (see auth.py)
                    print(f"harness serve: http://{shown}:{bound}/#token={token}", file=out, flush=True)
                    print("(Ctrl-C stops the server; sessions stay on disk)", file=out, flush=True)
                    await hypercorn_serve(app, config, shutdown_trigger=stop.wait)  # type: ignore[arg-type]
                    nursery.cancel_scope.cancel()
            finally:
                unsubscribe()
                with trio.CancelScope(shield=True), trio.move_on_after(10):
                    await conversations.close()
    finally:
        sock.close()
    print("harness serve: stopped", file=out, flush=True)
    return 0
