"""How the page looks and reads, in real Chromium (issue 21 items 7-9, issue 20
item 8b): axe-core finds no serious or critical violation on the main views
(a session with review cards, the Shadow Mind and Self-improvement review
settings tabs, the page for a missing credential) in light and dark, at 1280
and 390 px; dark mode follows the system; switches look like switches; a toast
never covers Send; there is a favicon; the sidebar works at 360 px; Tab reaches
every control in document order; and a 400-event session lays the page out a
few times, not once per entry. Screenshots of every view go to the screenshot
folder.

axe-core is vendored unmodified under ``vendor/axe-core`` (MPL-2.0, with its
licence): a missing or altered copy fails these tests, it never skips them.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import trio

from harness.clock import HostClock
from harness.sessions import SessionStore
from hookspecs.values import EventTypes, Message, SessionHeader, TextBlock, create_user_message, message_to_json

from .browser import WAIT_MS
from .server import MODELS, NOTICE_ROW, READ_FIRST, Server

AXE = Path(__file__).resolve().parent / "vendor" / "axe-core"
EVOLUTION_ROW = "- {id: evolution-review, name: evolution-review, config: {reviewMode: inject, reviewMemoryInterval: 50}}\n"
DENSE_EVENTS = 402  # 134 turns of three

SCRIPT = MODELS + "responses:\n" + READ_FIRST.format(key="deploy") + """
  - match: {depth: 0, last_user_contains: "deploy"}
    reply: {text: "The target is **staging**. Run `deploy --dry-run` first:\\n\\n```\\nmake deploy ENV=staging\\n```"}
  - match: {depth: 0, last_user_contains: "Shadow reports"}
    repeat: true
    reply: {text: "Good catch: notes.txt says **staging**, so I will deploy there."}
  - match: {depth: 1, has_tools: [structured_output]}
    reply:
      tool_calls:
        - name: structured_output
          arguments:
            status: report
            verdict: challenge
            severity: 0.8
            refs: ["{{seq:tool call}}"]
            content: "The answer says production, but `notes.txt` says the deploy target is **staging**. Deploying to production would skip the staging check the notes ask for."
""" + READ_FIRST.format(key="quiet") + """
  - match: {depth: 0, last_user_contains: "quiet"}
    reply: {text: "The notes name one target: staging."}
  - match: {depth: 1, has_tools: [structured_output]}
    repeat: true
    reply:
      tool_calls: [{name: structured_output, arguments: {status: silent, content: ""}}]
"""


def axe_source() -> str:
    script = AXE / "axe.min.js"
    if not script.is_file():
        pytest.fail(f"axe-core is missing at {script} (vendored; see {AXE / 'README.md'})")
    text = script.read_bytes()
    expected = (AXE / "SHA256").read_text().strip()
    assert hashlib.sha256(text).hexdigest() == expected, "vendor/axe-core/axe.min.js is not the vendored, unmodified file"
    return text.decode("utf-8")


def write_dense_session(home: Path, count: int) -> str:
    """A session of ``count`` events the page shows (prompt, answer, end of turn)."""

    async def build() -> str:
        store = SessionStore(sessions_dir=home / "sessions", on_event=lambda _s, _e: None, now_ms=HostClock().now_ms)
        log = store.create(SessionHeader(id="dense-session", created_at=time.time() * 1000, cwd=str(home)))
        turn = 0
        while turn * 3 < count:
            turn += 1
            answer = Message(id=f"a-{turn}", role="assistant", content=(TextBlock(text=f"Answer **{turn}**."),), source={"kind": "model"})
            log.append(EventTypes.USER_MESSAGE, {"turn": turn, "message": message_to_json(create_user_message(f"Question {turn}"))})
            log.append(EventTypes.ASSISTANT_MESSAGE, {"turn": turn, "message": message_to_json(answer), "stop": "stop"})
            log.append(EventTypes.TURN_END, {"turn": turn, "reason": {"kind": "completed"}})
        store.close(log.id)
        return log.id

    return trio.run(build)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with Server(tmp_path_factory.mktemp("look"), SCRIPT, rows=NOTICE_ROW + EVOLUTION_ROW) as served:
        yield served


@pytest.fixture(scope="module")
def dense(server: Server) -> str:
    """A session of ``DENSE_EVENTS`` shown events, written beside the running server (it reads logs from disk)."""
    return write_dense_session(server.home, DENSE_EVENTS)


def open_page(browser: Any, server: Server, path: str = "/", *, width: int = 1280, height: int = 860, scheme: str = "light") -> Any:
    page = browser.new_page(viewport={"width": width, "height": height}, color_scheme=scheme)
    page.set_default_timeout(WAIT_MS)
    page.goto(server.url(path))
    page.wait_for_selector("body[data-ready=true]")
    return page


def send(page: Any, text: str) -> None:
    page.fill("#composer-input", text)
    page.press("#composer-input", "Enter")


@pytest.fixture(scope="module")
def reviewed(server: Server, chromium: Any) -> str:
    """A session with a report card (its relay answered) and a quiet one."""
    page = chromium.new_page(viewport={"width": 1280, "height": 860})
    page.set_default_timeout(WAIT_MS)
    page.goto(server.url("/"))
    page.wait_for_selector("body[data-ready=true]")
    send(page, "please deploy")
    page.wait_for_selector("#log .entry.assistant:has-text('Good catch')")
    send(page, "a quiet check of the notes")
    page.wait_for_selector(".card.quiet .run[data-phase=silent]")
    session = str(page.evaluate("state.session"))
    page.context.close()
    return session


def serious(page: Any, source: str) -> list[str]:
    """axe-core's serious and critical violations on the page as it is now, one line each."""
    if not page.evaluate("typeof axe !== 'undefined'"):
        page.evaluate(source)  # through the DevTools protocol: the page's CSP does not apply to it
    found = page.evaluate("async () => (await axe.run(document, { resultTypes: ['violations'] })).violations")
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at {[(n['target'], n['failureSummary'][-160:]) for n in v['nodes']][:4]}"
        for v in found
        if v["impact"] in ("serious", "critical")
    ]


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width", [1280, 390])
def test_axe_finds_no_serious_violation_on_the_main_views(browser: Any, server: Server, reviewed: str, shots: Path, scheme: str, width: int) -> None:
    source = axe_source()
    page = open_page(browser, server, f"/?session={reviewed}", width=width, scheme=scheme)
    page.wait_for_selector(".card .run[data-phase=report]")
    page.wait_for_selector("#connection[data-state=connected]")
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert background == ("rgb(22, 24, 28)" if scheme == "dark" else "rgb(246, 247, 249)")  # the system's theme
    problems: dict[str, list[str]] = {}
    page.screenshot(path=str(shots / f"session-{scheme}-{width}.png"))  # what a person sees: the newest, at the bottom
    page.locator(".card details.internals summary").first.click()  # the Details open too
    page.evaluate("document.querySelector('.card').scrollIntoView({ block: 'center' })")
    page.screenshot(path=str(shots / f"card-{scheme}-{width}.png"))
    problems["session"] = serious(page, source)
    page.click("#nav-settings")
    page.wait_for_selector("#field-activation_probability")
    page.click("summary:has-text('Advanced settings')")
    page.evaluate("scrollTo(0, 0)")  # a full-page shot of a scrolled page draws the sticky header mid-page
    page.screenshot(path=str(shots / f"settings-{scheme}-{width}.png"), full_page=True)
    problems["settings"] = serious(page, source)
    page.click("#settings-tabs .tab:has-text('Self-improvement review')")
    page.wait_for_selector("#field-reviewMode")
    page.evaluate("scrollTo(0, 0)")
    page.screenshot(path=str(shots / f"evolution-{scheme}-{width}.png"), full_page=True)
    problems["evolution tab"] = serious(page, source)
    missing = browser.new_page(viewport={"width": width, "height": 860}, color_scheme=scheme)
    missing.goto(server.base + "/")  # a fresh profile: no credential
    missing.wait_for_selector("#credential-missing:not([hidden])")
    missing.screenshot(path=str(shots / f"no-credential-{scheme}-{width}.png"), full_page=True)
    problems["no-credential page"] = serious(missing, source)
    assert not any(problems.values()), problems


def test_switches_toasts_favicon_and_a_360_px_sidebar(browser: Any, server: Server, reviewed: str, shots: Path) -> None:
    page = open_page(browser, server, f"/?session={reviewed}")
    # a favicon, served like the rest of the static shell (no credential)
    icon = page.get_attribute("link[rel=icon]", "href")
    assert icon and httpx.get(server.base + icon).headers["content-type"].startswith("image/svg+xml")
    # a switch shows a track with a knob, its state also in words
    page.click("#nav-settings")
    switch = page.wait_for_selector("#field-enabled")
    track = switch.evaluate("n => { const s = getComputedStyle(n, '::before'); return [s.width, s.height, s.borderRadius]; }")
    assert track[:2] == ["40px", "22px"] and track[2] != "0px"
    assert switch.get_attribute("role") == "switch" and switch.inner_text() in ("Enabled", "Disabled")
    # a toast never covers Send, wide or narrow
    page.click("#nav-conversation")
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 800})
        send(page, f"/notice a toast at {width} px")
        toast = page.wait_for_selector(f".toast:has-text('a toast at {width} px')")
        box, button = toast.bounding_box(), page.locator("#send").bounding_box()
        apart = box["x"] + box["width"] <= button["x"] or button["x"] + button["width"] <= box["x"] or box["y"] + box["height"] <= button["y"] or button["y"] + button["height"] <= box["y"]
        assert apart, (width, box, button)
        page.screenshot(path=str(shots / f"toast-{width}.png"))
    # from 360 px up: the sidebar folds behind Sessions and opens without pushing anything off the side
    page.set_viewport_size({"width": 360, "height": 740})
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    page.click("#toggle-sidebar")
    page.wait_for_selector(".sidebar button.session:visible")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    page.screenshot(path=str(shots / "sidebar-360.png"))


FOCUSABLE = "button, a[href], textarea, input, select, summary, [tabindex]:not([tabindex='-1'])"


#: what a control is, by what a person sees of it, not by node identity: a list
#: the page redraws while Tab walks it (the sidebar refreshing when a reviewer's
#: session appears) keeps its controls' keys
CONTROL_KEY = (
    "(n) => [n.tagName, n.id, n.getAttribute('aria-label') || n.getAttribute('title') || n.name || '',"
    " (n.textContent || n.value || '').trim().slice(0, 60)].join('|')"
)


def tab_through(page: Any, limit: int = 200) -> list[str]:
    """Press Tab from the top of the page until focus comes back round; the keys of what it reached."""
    # start from the top: Tab goes on from the last click otherwise
    page.evaluate(
        "window.__visited = new WeakSet(); const top = document.querySelector('header.top'); top.tabIndex = -1; top.focus()"
    )
    seen: list[str] = []
    for _ in range(limit):
        page.keyboard.press("Tab")
        key = page.evaluate(
            f"""(() => {{ const n = document.activeElement;
                 if (!n || n === document.body || window.__visited.has(n)) return null;
                 window.__visited.add(n); return ({CONTROL_KEY})(n); }})()"""
        )
        if key is None or (seen and key == seen[0]):  # came back round (to the same node, or a redrawn first one)
            break
        seen.append(key)
    return seen


def test_tab_reaches_every_control_in_document_order(browser: Any, server: Server, reviewed: str) -> None:
    page = open_page(browser, server, f"/?session={reviewed}")
    page.wait_for_selector(".card .run[data-phase=report]")
    page.wait_for_selector("#sessions button.session.current")  # the sidebar is drawn
    for view in ("session", "settings"):
        if view == "settings":
            page.click("#nav-settings")
            page.wait_for_selector("#field-activation_probability")
            page.click("summary:has-text('Advanced settings')")
        reached = tab_through(page)
        visible = page.evaluate(
            f"""[...document.querySelectorAll({FOCUSABLE!r})]
                .filter((n) => !n.disabled && n.getClientRects().length && getComputedStyle(n).visibility !== 'hidden'
                  && !(n.closest('details:not([open])') && n.tagName !== 'SUMMARY'))
                .map({CONTROL_KEY})"""
        )
        assert reached == visible, (view, [p for p in visible if p not in reached], [p for p in reached if p not in visible])
        assert page.evaluate("[...document.querySelectorAll('[tabindex]')].every((n) => n.tabIndex <= 0)")  # no jumps ahead


def test_a_dense_session_lays_out_per_frame_not_per_entry(browser: Any, server: Server, dense: str) -> None:
    """Each entry used to scroll the page on its own, and every scroll laid the
    whole page out again: a 1,000-event session opened ~7x slower than an empty
    one (bench/web_render.py measures it). Counted, not timed: layouts stay a
    handful however many entries arrive."""
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.set_default_timeout(WAIT_MS)
    cdp = page.context.new_cdp_session(page)
    cdp.send("Performance.enable")
    page.goto(server.url(f"/?session={dense}"))
    page.wait_for_function(f"() => document.querySelectorAll('#log > [data-seq]').length >= {DENSE_EVENTS}")
    page.wait_for_selector("#connection[data-state=connected]")
    metrics = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
    assert metrics["LayoutCount"] < DENSE_EVENTS / 10, metrics["LayoutCount"]
    page.wait_for_function("() => innerHeight + scrollY >= document.scrollingElement.scrollHeight - 48")  # still at the newest
