"""The web credential stays with its origin (issue 19), in real headless
Chromium: another local app on another loopback port receives nothing it
could replay and cannot use the harness API from its page; two servers work
side by side in one browser; a page without the credential says what to open."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from .browser import WAIT_MS
from .other_origin import OtherOrigin
from .server import Server, new_session

SCRIPT = """
models:
  - {id: root-model, context_window: 128000}
  - {id: shadow-model, context_window: 64000}
responses:
  - match: {depth: 1}
    repeat: true
    reply:
      tool_calls: [{name: structured_output, arguments: {status: silent}}]
  - match: {depth: 0}
    repeat: true
    reply: {text: "Noted."}
"""

#: what a page of another origin tries against the harness API, with the browser's credentials
ATTEMPTS = """
async ({ base, session }) => {
  const attempts = [
    ["GET", "/api/sessions"], ["GET", "/api/approvals"], ["GET", "/api/sessions/" + session + "/events"],
    ["GET", "/api/sessions/" + session + "/stream"], ["POST", "/api/sessions"],
    ["POST", "/api/sessions/" + session + "/send"],
  ];
  const results = [];
  for (const [method, path] of attempts) {
    for (const mode of ["cors", "no-cors"]) {
      const abort = new AbortController();
      const init = { method, mode, credentials: "include", signal: abort.signal };
      if (method === "POST") { init.body = JSON.stringify({ text: "/shadow show" }); init.headers = { "content-type": "text/plain" }; }
      try {
        const response = await fetch(base + path, init);
        // an opaque (no-cors) response has no readable body; a readable one would be data
        results.push({ path, mode, type: response.type, text: response.type === "opaque" ? "" : (path.endsWith("/stream") ? "(stream)" : await response.text()) });
      } catch (e) {
        results.push({ path, mode, error: String(e) });
      }
      abort.abort();  // an open stream would hold a connection
    }
  }
  return { results, cookie: document.cookie, local: localStorage.length, session: sessionStorage.length };
}
"""


def two(tmp_path: Path) -> tuple[Server, Server]:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    return Server(tmp_path / "a", SCRIPT), Server(tmp_path / "b", SCRIPT)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    with Server(tmp_path, SCRIPT) as served:
        yield served


def launch(context: Any, server: Server) -> Any:
    """Open the URL ``harness serve`` printed, as the person does."""
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    page.goto(server.launch)
    page.wait_for_selector("body[data-ready=true]")
    return page


def shadow_show(page: Any) -> None:
    before = page.locator(".entry.command-result.success").count()
    page.fill("#composer-input", "/shadow show")
    page.press("#composer-input", "Enter")
    page.wait_for_function(f"() => document.querySelectorAll('.entry.command-result.success').length > {before}")


def test_another_local_app_receives_nothing_it_could_replay(browser: Any, server: Server, shots: Path) -> None:
    context = browser.new_context()
    harness_responses: list[tuple[str, str, int]] = []
    context.on("response", lambda r: harness_responses.append((r.frame.url, r.url, r.status)) if r.url.startswith(server.base + "/api/") else None)
    page = launch(context, server)
    assert server.token not in page.url  # taken out of the address bar
    page.click("#new-session")  # saves nothing until the first prompt; the cursor is in the composer
    page.wait_for_function("() => document.activeElement.id === 'composer-input'")
    shadow_show(page)
    session = page.evaluate("state.session")
    page.screenshot(path=str(shots / "origin-harness-page.png"), full_page=True)
    with OtherOrigin() as other:
        visitor = context.new_page()
        visitor.set_default_timeout(WAIT_MS)
        visitor.goto(other.base + "/")
        seen = visitor.evaluate(ATTEMPTS, {"base": server.base, "session": session})
        # and the harness page itself navigates there, as a link would
        page.evaluate("url => location.assign(url)", other.base + "/from-harness")
        page.wait_for_url(other.base + "/from-harness")
        log = list(other.requests)
    assert seen["cookie"] == "" and seen["local"] == 0 and seen["session"] == 0
    for result in seen["results"]:
        # refused by CORS (cors), or an opaque answer (no-cors): nothing readable either way
        assert "error" in result or (result["type"] == "opaque" and result["text"] == ""), result
    theirs = [(url, status) for frame, url, status in harness_responses if frame.startswith(other.base)]
    assert theirs, "the other page's requests reached the harness"
    assert all(status in (401, 403) for _url, status in theirs), theirs
    assert {url.split("/api/")[1] for url, _ in theirs} >= {"sessions", f"sessions/{session}/stream", f"sessions/{session}/send"}
    assert {"/", "/from-harness"} <= {path for path, _ in log}  # and the browser's own /favicon.ico
    for _path, headers in log:
        assert "cookie" not in headers, headers
        assert server.token not in " ".join(headers.values()), headers
    with httpx.Client(base_url=server.base, timeout=30) as replay:  # whatever it got, replayed from its server
        for _path, headers in log:
            forwarded = {k: v for k, v in headers.items() if k in ("cookie", "referer", "authorization")}
            assert replay.get("/api/sessions", headers=forwarded).status_code == 401
    context.close()


def test_two_servers_work_side_by_side_in_one_browser(browser: Any, tmp_path: Path, shots: Path) -> None:
    """Opening a second ``harness serve`` must not lock the first page out, even after a reload."""
    first, second = two(tmp_path)
    with first, second:
        context = browser.new_context()
        one = launch(context, first)
        shadow_show(one)
        other = launch(context, second)
        shadow_show(other)
        for page in (one, other):
            page.reload()  # from the address bar: no credential in it any more
            page.wait_for_selector("body[data-ready=true]")
            assert page.locator("#credential-missing").is_hidden()
            shadow_show(page)
        one.screenshot(path=str(shots / "side-by-side-first.png"), full_page=True)
        for served in (first, second):
            with served.client() as client:
                assert len(client.get("/api/sessions").json()["sessions"]) == 1
        # a tab of the same origin opened later (no fragment) still works
        third = context.new_page()
        third.set_default_timeout(WAIT_MS)
        third.goto(first.base + "/")
        third.wait_for_selector("body[data-ready=true]")
        assert third.locator("button.session").count() == 1
        context.close()


def test_a_page_without_the_credential_says_to_open_the_printed_url(browser: Any, server: Server, shots: Path) -> None:
    page = browser.new_page()
    page.set_default_timeout(WAIT_MS)
    response = page.goto(f"{server.base}/")
    assert response.status == 200  # the static shell; it holds no data
    message = page.wait_for_selector("#credential-missing:visible")
    assert "open the URL harness serve printed" in message.inner_text()
    page.screenshot(path=str(shots / "no-credential.png"), full_page=True)
    with server.client() as client:
        assert new_session(client)
    # a wrong one (a stale launch of this port) says the same
    stale = browser.new_page()
    stale.set_default_timeout(WAIT_MS)
    stale.goto(f"{server.base}/#token=stale")
    assert "open the URL harness serve printed" in stale.wait_for_selector("#credential-missing:visible").inner_text()
    assert "stale" not in stale.url
