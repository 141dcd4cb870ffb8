"""Another local web app on another loopback port: a tiny ``http.server`` in a
thread that serves one page and logs every request's path and headers, so a
test can see what the browser sent it (a cookie, a Referer)."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

PAGE = b"<!doctype html><title>another app</title><p>another local app</p>"


class OtherOrigin:
    """``with OtherOrigin() as other:`` serves on 127.0.0.1 at a free port (``other.base``)."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, dict[str, str]]] = []
        log = self.requests

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # http.server calls do_<METHOD>
                log.append((self.path, {k.lower(): v for k, v in self.headers.items()}))
                self.send_response(200)
                self.send_header("content-type", "text/html; charset=utf-8")
                self.send_header("content-length", str(len(PAGE)))
                self.end_headers()
                self.wfile.write(PAGE)

            def log_message(self, *args: Any) -> None:
                pass  # the list above is the log

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> OtherOrigin:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
