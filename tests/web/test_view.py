"""What the person sees in real Chromium (issue 21, item 1): the newest entry
stays in view above the sticky composer while they are at the bottom, the view
does not jump while they read history (a "new messages" control appears
instead), and an approval shows inline just above the composer, takes focus,
and is the first thing Shift+Tab reaches from the composer (not a card's
"Pause review"). Rects are measured against the composer's rect; screenshots at
1280 and 390 px go to the screenshot folder."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .browser import WAIT_MS
from .server import MODELS, READ_FIRST, REPORTS_NOTED, Server

LONG = "\\n\\n".join(f"Paragraph {i}: the answer goes on for a while so the page scrolls." for i in range(40))

#: the server is shared by the module and a scripted reply answers once: one prompt per test
KEYS = ("long answer", "answer before approval", "narrow answer")
SCRIPT = MODELS + "responses:\n" + "".join(READ_FIRST.format(key=key) + f"""
  - match: {{depth: 0, last_user_contains: "{key}"}}
    reply: {{text: "{LONG}\\n\\nLAST-LINE"}}
""" for key in KEYS) + f"""  - match: {{depth: 0, last_user_contains: "another"}}
    repeat: true
    reply: {{text: "{LONG}\\n\\nANOTHER-LINE"}}
  - match: {{depth: 0, last_user_contains: "tighten"}}
    reply:
      tool_calls: [{{name: update_shadow_config, arguments: {{maxReportChars: 5000}}}}]
  - match: {{depth: 0, last_user_contains: "tighten"}}
    reply: {{text: "Tightened."}}
  - match: {{depth: 0, last_user_contains: "slow"}}
    reply: {{delay_seconds: 120, text: "NEVER-SHOWN"}}
""" + REPORTS_NOTED.format(verdict="gap", severity=0.3, content="A finding.")

#: the entry's bottom may touch the composer's top, not pass under it
SLACK = 1.0


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One server for the module: each test works in a session of its own."""
    with Server(tmp_path_factory.mktemp("view"), SCRIPT) as served:
        yield served


def open_page(browser: Any, server: Server, width: int = 1280, height: int = 800) -> Any:
    page = browser.new_page(viewport={"width": width, "height": height})
    page.set_default_timeout(WAIT_MS)
    page.goto(server.url("/"))
    page.wait_for_selector("body[data-ready=true]")
    return page


def send(page: Any, text: str) -> None:
    page.fill("#composer-input", text)
    page.press("#composer-input", "Enter")


def rect(page: Any, selector: str) -> dict[str, float]:
    return page.evaluate(f"(() => {{ const r = document.querySelector({selector!r}).getBoundingClientRect(); return {{top: r.top, bottom: r.bottom}}; }})()")


def in_view_above_composer(page: Any, selector: str) -> bool:
    """The element's bottom edge is on screen and not under the composer."""
    box, composer = rect(page, selector), rect(page, "#composer")
    return bool(box["bottom"] > 0 and box["bottom"] <= composer["top"] + SLACK and composer["bottom"] <= page.viewport_size["height"] + SLACK)


def last_entry(kind: str) -> str:
    return f"#log .entry.{kind}:last-of-type"


def wait_in_view(page: Any, selector: str) -> None:
    page.wait_for_function(
        """(sel) => { const e = [...document.querySelectorAll(sel)].pop(); if (!e) return false;
            const r = e.getBoundingClientRect(), c = document.querySelector('#composer').getBoundingClientRect();
            return r.bottom > 0 && r.bottom <= c.top + 1; }""",
        arg=selector,
    )


def test_newest_entry_stays_above_the_composer_and_history_does_not_jump(browser: Any, server: Server, shots: Path) -> None:
    page = open_page(browser, server)
    send(page, "a long answer please")
    page.wait_for_selector("#log .entry.assistant:has-text('LAST-LINE')")
    page.wait_for_selector(".card .run[data-phase=report]")
    # the reply, its review card and the relayed report's answer have arrived: the newest is in view
    page.wait_for_selector("#log .entry.assistant:has-text('Noted.')")
    newest = "#log .entry.assistant >> nth=-1"
    page.wait_for_function("() => document.querySelectorAll('#log .entry.assistant').length >= 2")
    assert "Noted." in page.locator(newest).inner_text()
    assert page.evaluate("scrollY") > 0
    page.evaluate("document.querySelectorAll('#log .entry.assistant')[1].dataset.probe = 'newest'")
    wait_in_view(page, "[data-probe=newest]")  # the page scrolls on the next frame
    assert in_view_above_composer(page, "[data-probe=newest]"), (rect(page, "[data-probe=newest]"), rect(page, "#composer"))
    page.screenshot(path=str(shots / "view-bottom-1280.png"))

    # reading history: a new reply does not move the page; a control offers the way down
    page.evaluate("window.scrollTo(0, 200)")
    page.wait_for_function("() => scrollY === 200")
    assert page.is_hidden("#jump-newest")
    session = page.evaluate("state.session")
    with server.client() as client:
        assert client.post(f"/api/sessions/{session}/send", json={"text": "another long one"}).json()["ok"]
    page.wait_for_function("() => document.querySelectorAll('#log .entry.assistant').length >= 3")
    page.wait_for_selector("#jump-newest:not([hidden])")
    assert page.evaluate("scrollY") == 200
    page.screenshot(path=str(shots / "view-reading-history-1280.png"))
    page.click("#jump-newest")
    page.wait_for_selector("#jump-newest", state="hidden")
    page.evaluate("[...document.querySelectorAll('#log .entry')].pop().dataset.probe = 'last'")
    wait_in_view(page, "[data-probe=last]")


def test_an_approval_shows_at_the_call_takes_focus_and_shift_tab_reaches_it(browser: Any, server: Server, shots: Path) -> None:
    page = open_page(browser, server)
    send(page, "an answer before approval please")
    page.wait_for_selector("#log .entry.assistant:has-text('Noted.')")
    page.wait_for_selector(".card button.action:has-text('Pause review')")
    send(page, "tighten the reports")
    approval = page.wait_for_selector(".approval")
    page.wait_for_selector(".approval button.reject")
    # inline, below the call it asks about, and in view above the composer
    call = page.locator("#log .entry.tool:has-text('update_shadow_config')")
    if call.count():
        assert approval.evaluate("(n, c) => !!(c.compareDocumentPosition(n) & Node.DOCUMENT_POSITION_FOLLOWING)", call.last.element_handle())
    page.wait_for_function("() => document.activeElement && document.activeElement.closest('.approval') !== null")
    assert in_view_above_composer(page, ".approval"), (rect(page, ".approval"), rect(page, "#composer"))
    page.screenshot(path=str(shots / "view-approval-1280.png"))
    # from the composer, Shift+Tab reaches Reject first, never a card's Pause review
    page.focus("#composer-input")
    page.keyboard.press("Shift+Tab")
    assert page.evaluate("document.activeElement.className") == "reject", page.evaluate("document.activeElement.outerHTML")
    page.keyboard.press("Enter")
    page.wait_for_selector(".approval", state="detached")
    page.wait_for_selector(".card button.action:has-text('Pause review')")  # nothing paused by accident


def test_narrow_screen_keeps_the_newest_entry_above_the_composer(browser: Any, server: Server, shots: Path) -> None:
    page = open_page(browser, server, width=390, height=844)
    send(page, "a narrow answer please")
    page.wait_for_selector("#log .entry.assistant:has-text('Noted.')")
    page.evaluate("[...document.querySelectorAll('#log .entry.assistant')].pop().dataset.probe = 'newest'")
    wait_in_view(page, "[data-probe=newest]")
    # nothing is pushed off the side: the sidebar folds away behind a Sessions button
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert page.evaluate("document.querySelector('#composer').getBoundingClientRect().right") <= 390
    assert page.is_hidden(".sidebar")
    page.screenshot(path=str(shots / "view-bottom-390.png"))
    page.click("#toggle-sidebar")
    page.wait_for_selector(".sidebar:visible")
    assert page.get_attribute("#toggle-sidebar", "aria-expanded") == "true"
    page.screenshot(path=str(shots / "view-sidebar-390.png"))
    page.click("button.session")  # opening a session folds it away again
    page.wait_for_selector(".sidebar", state="hidden")


def test_escape_aborts_a_running_turn(browser: Any, server: Server) -> None:
    page = open_page(browser, server)
    send(page, "a slow one")
    page.wait_for_selector("#abort:visible")
    page.keyboard.press("Escape")  # as in Claude Code and Codex
    page.wait_for_selector("#log .entry.turn-end:has-text('aborted')")
    assert page.is_hidden("#abort") and page.locator("text=NEVER-SHOWN").count() == 0
