"""The connection as a person sees it (issue 21, item 5): a visible connection
state; when the stream drops the page says so and reconnects by itself
(bounded backoff); the credential survives a restart of ``harness serve`` on
the same ``DSH_HOME`` (a 0600 file there, rotated by ``--new-token``), so an
open page keeps working; a missing or refused credential gets a page that says
what to do. A real ``harness serve`` subprocess is stopped and started again on
the same port and ``DSH_HOME``."""

from __future__ import annotations

import stat
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


def test_the_page_reconnects_after_a_restart_and_keeps_working(browser: Any, tmp_path: Path, shots: Path) -> None:
    first = Server(tmp_path, SCRIPT).start()
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.set_default_timeout(WAIT_MS)
        page.goto(first.url("/"))
        page.wait_for_selector("body[data-ready=true]")
        send(page, "the first question")
        page.wait_for_selector("#log .entry.assistant:has-text('FIRST-ANSWER')")
        page.wait_for_selector("#connection[data-state=connected]")
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
