"""A request body past the limit is refused while it streams (issue 19: a
300 MB body was read whole, a 651 MB peak): the stack ``harness serve`` runs,
served by hypercorn on loopback in this process, with a counter of the body
bytes the routes pulled from the server."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from typing import Any

import pytest
import trio
from hypercorn.config import Config
from hypercorn.trio import serve

from harness.web.app import WebClient
from harness.web.bodies import BODY_LIMIT
from harness.web.server import host_names, web_app

from .raw_http import chunked, post

TOKEN = "test-credential"
#: hypercorn hands the app at most one socket read (64 KiB) per message
CHUNK = 65536


class Counting:
    """Counts the body bytes the app below pulled from the server."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.received = 0

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        async def counted() -> Any:
            message = await receive()
            self.received += len(message.get("body", b""))
            return message

        await self.app(scope, counted, send)


@pytest.fixture
def served() -> Iterator[tuple[int, Counting]]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    port = sock.getsockname()[1]
    # the routes refuse the body before they touch the host: none is needed
    counting = Counting(web_app(WebClient(None, None, None, None), TOKEN, host_names("127.0.0.1", port)))  # type: ignore[arg-type]
    config = Config()
    config.bind = [f"fd://{sock.detach()}"]
    config.accesslog = None
    config.loglevel = "WARNING"
    token: list[trio.lowlevel.TrioToken] = []
    stop = trio.Event()
    started = threading.Event()

    async def main() -> None:
        token.append(trio.lowlevel.current_trio_token())
        started.set()
        await serve(counting, config, shutdown_trigger=stop.wait)  # type: ignore[arg-type]

    thread = threading.Thread(target=trio.run, args=(main,), daemon=True)
    thread.start()
    started.wait(60)
    try:
        yield port, counting
    finally:
        trio.from_thread.run_sync(stop.set, trio_token=token[0])
        thread.join(60)


HEADERS = {"authorization": f"Bearer {TOKEN}", "content-type": "application/json"}


def test_a_content_length_over_the_limit_is_refused_before_any_body(served: tuple[int, Counting]) -> None:
    port, counting = served
    status, answer, _sent = post(port, "/api/sessions/x/send", {**HEADERS, "content-length": str(300_000_000)}, [])
    assert status == 413, answer
    assert counting.received == 0  # answered without waiting for a byte of it


def test_a_chunked_body_is_cut_off_at_the_limit(served: tuple[int, Counting]) -> None:
    port, counting = served
    size = 32 * BODY_LIMIT
    status, answer, sent = post(port, "/api/sessions/x/send", {**HEADERS, "transfer-encoding": "chunked"}, chunked(size, CHUNK))
    assert status == 413, answer
    assert counting.received <= BODY_LIMIT + CHUNK
    assert sent < size  # the server stopped reading: the rest was never sent
