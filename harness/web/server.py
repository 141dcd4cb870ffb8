"""Running the web client: one host, one hypercorn server (trio worker) on a
socket bound before the URL is printed, stopped by Ctrl-C or SIGTERM.

Hypercorn because it has a native trio worker (the host is trio); starlette
because it runs on trio through anyio and streams responses (SSE) unbuffered.
"""

from __future__ import annotations

import ipaddress
import os
import re
import secrets
import signal
import socket
import stat
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
#: the credential, under DSH_HOME (0600): kept across restarts, rotated by ``--new-token``
TOKEN_FILE = "web-token"


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


#: what a stored credential must look like to be reused (``secrets.token_urlsafe(24)``)
_TOKEN_SHAPE = re.compile(r"[A-Za-z0-9_-]{32}")


def launch_token(home: Path, *, new: bool = False) -> str:
    """The credential, kept in ``DSH_HOME/web-token`` (0600) so an open page keeps
    working across a restart of the same ``DSH_HOME``. A new one is made and
    stored when asked (``--new-token``), when there is none, and when the file
    is not a private regular file of this user holding one token."""
    path = home / TOKEN_FILE
    if not new:
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
        except OSError:
            fd = -1
        if fd >= 0:
            with os.fdopen(fd, "rb") as handle:
                info = os.fstat(handle.fileno())
                text = handle.read(200).decode("ascii", "replace").strip()
            private = stat.S_ISREG(info.st_mode) and info.st_uid == os.getuid() and not info.st_mode & 0o077
            if private and _TOKEN_SHAPE.fullmatch(text):
                return text
    token = secrets.token_urlsafe(24)
    temporary = path.with_name(f".{TOKEN_FILE}.{secrets.token_hex(4)}")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        with os.fdopen(fd, "w") as handle:
            handle.write(token + "\n")
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return token


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
    new_token: bool = False,
) -> int:
    out = out or sys.stdout
    stop = stop or trio.Event()
    sock = bind(address, port)
    bound = sock.getsockname()[1]
    feed = Feed()
    approver = WebApprover(feed)
    plugins = [("web-feed", feed), ("web-approver", approver)]
    try:
        async with open_host(rows=rows, dsh_home=home, cwd=cwd, headless=False, extra_plugins=plugins) as host:
            token = launch_token(home, new=new_token)  # DSH_HOME exists (0700) from here
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
