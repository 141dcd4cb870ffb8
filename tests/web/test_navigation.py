"""Navigation (issue 21, item 6): each session and child session has its own
URL (``#/s/ID``), Back and Forward move between them, a session takes its first
prompt as its title at once (sidebar, heading, window title), "New session"
saves nothing until the first prompt and puts the cursor in the composer, and a
child session's view links to its parent and offers no composer."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .browser import WAIT_MS
from .server import MODELS, READ_FIRST, REPORTS_NOTED, Server

SCRIPT = MODELS + "responses:\n" + READ_FIRST.format(key="alpha") + """
  - match: {depth: 0, last_user_contains: "alpha"}
    reply: {text: "ALPHA-ANSWER"}
  - match: {depth: 0, last_user_contains: "beta"}
    reply: {text: "BETA-ANSWER"}
""" + REPORTS_NOTED.format(verdict="gap", severity=0.3, content="A finding.")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    with Server(tmp_path, SCRIPT) as served:
        yield served


def sessions(server: Server) -> list[dict[str, Any]]:
    with server.client() as client:
        return list(client.get("/api/sessions").json()["sessions"])


def send(page: Any, text: str) -> None:
    page.fill("#composer-input", text)
    page.press("#composer-input", "Enter")


def test_sessions_have_urls_titles_at_once_and_back_forward(browser: Any, server: Server, shots: Path) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.set_default_timeout(WAIT_MS)
    page.goto(server.url("/"))
    page.wait_for_selector("body[data-ready=true]")

    page.click("#new-session")
    assert page.evaluate("document.activeElement.id") == "composer-input"
    assert sessions(server) == []  # nothing saved for an empty session
    send(page, "question alpha about the target")
    page.wait_for_selector("#log .entry.assistant:has-text('ALPHA-ANSWER')")
    first = page.evaluate("state.session")
    assert page.evaluate("location.hash") == f"#/s/{first}"
    # the title is the first prompt, at once: heading, sidebar, window
    page.wait_for_selector(f"button.session[data-session='{first}']:has-text('question alpha about the target')")
    assert page.inner_text("#session-title") == "question alpha about the target"
    assert page.is_hidden("#parent-link")  # a root session has no parent
    assert "question alpha" in page.title()

    page.click("#new-session")
    page.wait_for_selector("#log .entry", state="detached")
    assert page.evaluate("document.activeElement.id") == "composer-input"
    assert [s["id"] for s in sessions(server)] == [first]
    send(page, "question beta")
    page.wait_for_selector("#log .entry.assistant:has-text('BETA-ANSWER')")
    second = page.evaluate("state.session")
    assert second != first and page.evaluate("location.hash") == f"#/s/{second}"
    assert len(sessions(server)) == 2

    page.go_back()
    page.wait_for_selector("#log .entry.assistant:has-text('ALPHA-ANSWER')")
    assert page.evaluate("state.session") == first
    page.go_forward()
    page.wait_for_selector("#log .entry.assistant:has-text('BETA-ANSWER')")
    assert page.evaluate("state.session") == second
    page.screenshot(path=str(shots / "navigation-1280.png"))

    # a child session (the review's) has its own URL, links to its parent and has no composer
    page.go_back()
    page.wait_for_selector("#log .entry.assistant:has-text('ALPHA-ANSWER')")
    page.click(".card button.child-session")
    page.wait_for_selector("#parent-link:visible")
    child = page.evaluate("state.session")
    assert child not in (first, second) and page.evaluate("location.hash") == f"#/s/{child}"
    assert page.is_hidden("#composer")
    page.screenshot(path=str(shots / "navigation-child-1280.png"))
    page.click("#parent-link")
    page.wait_for_selector("#log .entry.assistant:has-text('ALPHA-ANSWER')")
    assert page.evaluate("state.session") == first and page.is_visible("#composer") and page.is_hidden("#parent-link")

    # a session's URL opens it directly (the credential is in this origin's storage by now)
    page.goto(f"{server.base}/#/s/{second}")
    page.wait_for_selector("#log .entry.assistant:has-text('BETA-ANSWER')")
    assert page.inner_text("#session-title") == "question beta"
