"""Assistant messages and relayed Shadow reports are rendered as Markdown by
the one sanitised renderer the card bodies use (issue 21, item 2): ``**bold**``
and code fences render, raw ``<script>`` stays text, and the relayed report
shows its finding, not the preamble written for the agent."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from harness.web.payloads import event_payload
from hookspecs.values import EventTypes, SessionEvent, create_user_message
from hookspecs.values.messages import Message, TextBlock, message_to_json, new_message_id
from shadow_mind_plugin.output.relay import RELAY_HEADER, PendingReport, build_relay

from .browser import WAIT_MS
from .server import MODELS, READ_FIRST, REPORTS_NOTED, Server

ANSWER = "The target is **staging**. Run `deploy --dry-run` first.\\n\\n```\\nmake deploy\\n```\\n\\n<script>window.pwned = 1</script> [x](javascript:alert(1))"

SCRIPT = MODELS + "responses:\n" + READ_FIRST.format(key="deploy") + f"""
  - match: {{depth: 0, last_user_contains: "deploy"}}
    reply: {{text: "{ANSWER}"}}
""" + REPORTS_NOTED.format(verdict="challenge", severity=0.8, content="FINDING notes.txt says **staging**, not production.")


def create_assistant_message(text: str) -> Message:
    return Message(id=new_message_id(), role="assistant", content=(TextBlock(text=text),), source={"kind": "model"})


def _event(message: Any) -> SessionEvent:
    kind = EventTypes.ASSISTANT_MESSAGE if message.role == "assistant" else EventTypes.USER_MESSAGE
    return SessionEvent(seq=3, type=kind, time=0.0, data={"message": message_to_json(message)})


def test_an_assistant_message_is_sent_as_sanitised_markdown() -> None:
    text = "**bold** and `code`\n\n```\nx = 1\n```\n\n<script>alert(1)</script> [x](javascript:alert(1))"
    out = event_payload(_event(create_assistant_message(text)))
    assert out is not None
    html = out["html"]
    assert "<strong>bold</strong>" in html and "<code>code</code>" in html and "<pre><code>x = 1" in html
    assert "<script>" not in html and "&lt;script&gt;" in html and "href" not in html
    assert out["text"] == text  # the plain text stays for copying and for tests


def test_a_relayed_report_shows_its_finding_not_the_agents_preamble() -> None:
    report = PendingReport(
        epoch=1, shadow_id="default", shadow_name="Reviewer", run_id="r1", child_session_id=None,
        captured_through_seq=2, content="The **target** is staging.", verdict="challenge", refs=(), severity=0.8,
    )
    out = event_payload(_event(build_relay([report])))
    assert out is not None and out["source"] == "shadow-report"
    assert RELAY_HEADER not in out["text"] and RELAY_HEADER not in out["html"]
    assert "Reviewer" in out["text"] and "<strong>target</strong>" in out["html"]
    # a person's message is text as typed, never HTML
    mine = event_payload(_event(create_user_message("**not bold**")))
    assert mine is not None and "html" not in mine and mine["text"] == "**not bold**"


def test_the_shown_finding_is_redacted_like_the_relayed_text() -> None:
    report = PendingReport(
        epoch=1, shadow_id="default", shadow_name="Reviewer", run_id="r1", child_session_id=None,
        captured_through_seq=2, content="the answer is SECRET-HOLDOUT", verdict="gap", refs=(), holdout_keys=("SECRET-HOLDOUT",),
    )
    source = build_relay([report]).source
    assert "SECRET-HOLDOUT" not in source["display"] and "the answer is" in source["display"]


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    with Server(tmp_path, SCRIPT) as served:
        yield served


def test_markdown_renders_in_the_page_and_script_stays_text(browser: Any, server: Server, shots: Path) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.set_default_timeout(WAIT_MS)
    page.goto(server.url("/"))
    page.wait_for_selector("body[data-ready=true]")
    page.fill("#composer-input", "please deploy")
    page.press("#composer-input", "Enter")
    answer = page.wait_for_selector("#log .entry.assistant:has-text('The target is')")
    assert answer.eval_on_selector("strong", "n => n.textContent") == "staging"
    assert answer.eval_on_selector("pre code", "n => n.textContent").strip() == "make deploy"
    assert "<script>window.pwned = 1</script>" in answer.inner_text()
    assert page.evaluate("window.pwned === undefined") and page.locator("#log script").count() == 0
    assert page.locator("#log a[href^='javascript']").count() == 0
    relayed = page.wait_for_selector("#log .entry.source-shadow-report")
    assert "FINDING" in relayed.inner_text() and "Background Shadow reports follow" not in relayed.inner_text()
    assert relayed.eval_on_selector_all("strong", "ns => ns.map((n) => n.textContent)") == ["Reviewer", "staging"]
    page.wait_for_selector("#log .entry.assistant:has-text('Noted.')")
    page.screenshot(path=str(shots / "markdown-1280.png"), full_page=True)
