"""The connection as a person sees it (issue 21, item 5): a visible connection
state; when the stream drops the page says so and reconnects by itself
(bounded backoff); the credential survives a restart of ``harness serve`` on
the same ``DSH_HOME`` (a 0600 file there, rotated by ``--new-token``), so an
open page keeps working; a missing or refused credential gets a page that says
what to do. A real ``harness serve`` subprocess is stopped and started again on
the same port and ``DSH_HOME``."""

from __future__ import annotations

import stat
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx

from harness.web.server import TOKEN_FILE, launch_token

from .browser import WAIT_MS
from .server import MODELS, Server

SCRIPT = MODELS + """responses:
  - match: {depth: 0, last_user_contains: "first"}
    reply: {text: "FIRST-ANSWER"}
  - match: {depth: 0, last_user_contains: "second"}
    reply: {text: "SECOND-ANSWER"}
  - match: {depth: 1}
    repeat: true
    reply:
      tool_calls: [{name: structured_output, arguments: {status: silent}}]
"""


def port_of(server: Server) -> int:
    return int(server.base.rsplit(":", 1)[1])


def send(page: Any, text: str) -> None:
    page.fill("#composer-input", text)
    page.press("#composer-input", "Enter")


def answered_page(browser: Any, server: Server) -> Any:
    """A page of ``server`` that asked one question, got its answer and is connected."""
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.set_default_timeout(WAIT_MS)
    page.goto(server.url("/"))
    page.wait_for_selector("body[data-ready=true]")
    send(page, "the first question")
    page.wait_for_selector("#log .entry.assistant:has-text('FIRST-ANSWER')")
    page.wait_for_selector("#connection[data-state=connected]")
    return page


def test_the_page_reconnects_after_a_restart_and_keeps_working(browser: Any, tmp_path: Path, shots: Path) -> None:
    first = Server(tmp_path, SCRIPT).start()
    try:
        page = answered_page(browser, first)
        assert page.is_visible("#connection")
    finally:
        code, _out, err = first.stop()
    assert code == 0, err
    # the stream dropped: the page says so, without a reload
    page.wait_for_selector("#connection[data-state=reconnecting]")
    assert "Reconnecting" in page.inner_text("#connection")
    page.screenshot(path=str(shots / "connection-reconnecting-1280.png"))

    token = tmp_path / "home" / TOKEN_FILE
    assert stat.S_IMODE(token.stat().st_mode) == 0o600
    with Server(tmp_path, SCRIPT, port=port_of(first)) as second:
        assert second.token == first.token  # the same DSH_HOME keeps its credential
        page.wait_for_selector("#connection[data-state=connected]")
        send(page, "the second question")
        page.wait_for_selector("#log .entry.assistant:has-text('SECOND-ANSWER')")
        assert page.is_hidden("#credential-missing")
        page.screenshot(path=str(shots / "connection-reconnected-1280.png"))
        port = port_of(second)

    # --new-token rotates it: the old one is refused, and the page says what to do
    with Server(tmp_path, SCRIPT, port=port, args=("--new-token",)) as rotated:
        assert rotated.token != first.token
        with httpx.Client(base_url=rotated.base, headers={"authorization": f"Bearer {first.token}"}) as old:
            assert old.get("/api/sessions").status_code == 401
        page.reload()
        notice = page.wait_for_selector("#credential-missing:visible")
        text = notice.inner_text()
        assert "harness serve" in text and "#token=" in text and "--new-token" in text
        assert page.is_hidden(".layout")  # a page of its own, not a banner over a console that cannot work
        page.screenshot(path=str(shots / "credential-refused-1280.png"))
        narrow = browser.new_page(viewport={"width": 390, "height": 844})
        narrow.goto(rotated.base + "/")
        narrow.wait_for_selector("#credential-missing:visible")
        narrow.screenshot(path=str(shots / "credential-missing-390.png"))
        # a browser opening an API address without the credential gets a page too, not bare text
        with httpx.Client(base_url=rotated.base) as anonymous:
            answer = anonymous.get("/api/sessions", headers={"accept": "text/html"})
            assert answer.status_code == 401 and answer.headers["content-type"].startswith("text/html")
            assert "harness serve" in answer.text and "<script" not in answer.text
            assert anonymous.get("/api/sessions").headers["content-type"].startswith("text/plain")


class Squatter:
    """Another local program that took the port while ``harness serve`` was down: it answers
    anything with ``200 {}`` (a proof too) and keeps every request it received, headers and body."""

    def __init__(self, port: int) -> None:
        self.requests: list[str] = []
        self.changed = threading.Condition()
        squatter = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length).decode("latin-1") if length else ""
                with squatter.changed:
                    squatter.requests.append(f"{self.command} {self.path}\n{self.headers}\n{body}")
                    squatter.changed.notify_all()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", "2")
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(b"{}")

            do_GET = do_POST = do_HEAD = _answer

            def log_message(self, *args: object) -> None:
                pass

        self.http = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.thread = threading.Thread(target=self.http.serve_forever, daemon=True)
        self.thread.start()

    def wait_for(self, count: int) -> list[str]:
        """The requests once there are at least ``count`` (a bound, not a timing assertion)."""
        with self.changed:
            assert self.changed.wait_for(lambda: len(self.requests) >= count, timeout=WAIT_MS / 1000 * 2), self.requests
            return list(self.requests)

    def stop(self) -> None:
        self.http.shutdown()
        self.http.server_close()
        self.thread.join()


def test_an_open_page_never_sends_the_credential_to_a_program_squatting_the_port(browser: Any, tmp_path: Path, shots: Path) -> None:
    first = Server(tmp_path, SCRIPT).start()
    try:
        page = answered_page(browser, first)
    finally:
        code, _out, err = first.stop()
    assert code == 0, err
    port = port_of(first)
    squatter = Squatter(port)
    try:
        # the page's reconnect attempts reach the squatter: not one carries the credential
        seen = squatter.wait_for(3)
        assert not [r for r in seen if "authorization" in r.lower() or first.token in r], seen
        assert all(r.startswith("GET /api/proof?nonce=") for r in seen), seen
        nonces = [r.split("nonce=", 1)[1].split()[0] for r in seen]
        assert len(set(nonces)) == len(nonces) and all(len(n) == 64 for n in nonces)  # fresh each time
        state = page.wait_for_selector("#connection[data-state=impostor]")
        assert "Another program is answering on this port" in state.inner_text()
        assert "not sending your access key" in state.inner_text()
        page.screenshot(path=str(shots / "connection-impostor-1280.png"))
        # a request the person makes is not sent either: the squatter only gets asked for the proof
        before = len(squatter.requests)
        send(page, "a secret question")
        seen = squatter.wait_for(before + 1)
        assert not [r for r in seen if "authorization" in r.lower() or first.token in r or "secret question" in r], seen
        page.wait_for_selector(".toast:has-text('Another program is answering on this port')")
    finally:
        squatter.stop()

    # the real server comes back on the port with the same DSH_HOME: the page proves it and goes on
    with Server(tmp_path, SCRIPT, port=port) as second:
        assert second.token == first.token
        page.wait_for_selector("#connection[data-state=connected]")
        send(page, "the second question")
        page.wait_for_selector("#log .entry.assistant:has-text('SECOND-ANSWER')")
        assert page.is_hidden("#credential-missing")


def test_the_kept_credential_is_reused_only_from_a_private_file(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    token = launch_token(home)
    path = home / TOKEN_FILE
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and path.read_text().strip() == token
    assert launch_token(home) == token  # a restart keeps it
    assert launch_token(home, new=True) != token  # --new-token rotates it
    rotated = path.read_text().strip()
    path.chmod(0o644)  # readable by others: not trusted, replaced
    replaced = launch_token(home)
    assert replaced != rotated and stat.S_IMODE(path.stat().st_mode) == 0o600
    path.unlink()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.write_text("A" * 32 + "\n")
    elsewhere.chmod(0o600)
    path.symlink_to(elsewhere)  # never followed
    assert launch_token(home) != "A" * 32 and not path.is_symlink()
    assert elsewhere.read_text() == "A" * 32 + "\n"
    path.write_text("not a token\n")
    path.chmod(0o600)
    assert launch_token(home) != "not a token"
