"""The web client in real headless Chromium against a live ``harness serve``:
the Shadow Mind settings tab (round trip, Discard, a field error), a review
card going Reviewing → Report (verdict and severity first, internals behind
Details) with refs that scroll, Retry of a failed run,
Pause / Resume, a restart restoring the report card, an injected ``<script>``
shown as text, an approval asked before the page's stream connected, an
approval of another session than the one shown (named, not answerable until
opened), and a notice pushed before the stream connected (shown once). The
credential's own tests are in ``test_origins.py``. Screenshots go to a
temporary folder."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .browser import WAIT_MS
from .server import NOTICE_ROW, Server, new_session

SCRIPT = """
models:
  - {id: root-model, context_window: 128000}
  - {id: shadow-model, context_window: 64000, reasoning_efforts: [low, high], default_effort: low}
responses:
  - match: {depth: 0, last_user_contains: "deploy"}
    reply:
      tool_calls: [{name: read, arguments: {path: notes.txt}}]
  - match: {depth: 0, last_user_contains: "deploy"}
    reply: {text: "Deploying to production now."}
  # the first review takes a moment, so the card shows Reviewing first
  - match: {depth: 1, has_tools: [structured_output]}
    reply:
      delay_seconds: 3
      tool_calls:
        - name: structured_output
          arguments:
            status: report
            verdict: challenge
            severity: 0.8
            refs: ["{{seq:tool call}}"]
            content: "REPORT-BODY <script>window.pwned = 1</script> notes.txt says the target is **staging**."
  - match: {depth: 0, last_user_contains: "summarize"}
    reply:
      tool_calls: [{name: read, arguments: {path: notes.txt}}]
  - match: {depth: 0, last_user_contains: "summarize"}
    reply: {text: "All done."}
  # the second review fails; its retry reports
  - match: {depth: 1}
    reply: {error: {message: reviewer overloaded, code: OVERLOADED, status: 500, retryable: false}}
  - match: {depth: 1, has_tools: [structured_output]}
    reply:
      tool_calls:
        - name: structured_output
          arguments: {status: report, verdict: gap, severity: 0.4, content: "RETRY-REPORT the summary skips the target."}
  - match: {depth: 0, last_user_contains: "tighten"}
    reply:
      tool_calls: [{name: update_shadow_config, arguments: {maxReportChars: 5000}}]
  - match: {depth: 0, last_user_contains: "tighten"}
    reply: {text: "Done. <img src=x onerror='window.pwned = 2'>"}
  - match: {depth: 0, last_user_contains: "Shadow reports"}
    repeat: true
    reply: {text: "Good catch."}
"""


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    with Server(tmp_path, SCRIPT, rows=NOTICE_ROW) as served:
        yield served


def open_page(browser: Any, server: Server, path: str = "/") -> Any:
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    page.set_default_timeout(WAIT_MS)
    page.goto(server.url(path))
    page.wait_for_selector("body[data-ready=true]")
    return page


def open_settings(page: Any) -> None:
    page.click("#nav-settings")
    page.wait_for_selector("#field-activation_probability")


def composer(page: Any, text: str) -> None:
    page.fill("#composer-input", text)
    page.press("#composer-input", "Enter")


def test_settings_round_trip_persists_and_reaches_shadow_show(browser: Any, server: Server, shots: Path) -> None:
    page = open_page(browser, server)
    open_settings(page)
    assert page.is_hidden("#settings-save") and page.is_hidden("#settings-discard")
    slider = page.locator("#field-activation_probability")
    assert slider.input_value() == "100"
    slider.focus()
    for _ in range(6):
        page.keyboard.press("ArrowLeft")  # -10 % each
    assert slider.input_value() == "40" and slider.get_attribute("aria-valuetext") == "40 %"
    presets = page.locator("#preset option").all_inner_texts()[1:]
    assert len(presets) >= 2
    page.select_option("#preset", index=2)
    prompt = page.input_value("#field-prompt")
    assert prompt and "Check the root's claims" not in prompt
    assert page.is_visible("#settings-save")
    page.screenshot(path=str(shots / "settings-dirty.png"), full_page=True)
    page.click("#settings-save")
    page.wait_for_selector(".toast.success:has-text('Saved and applied')")
    assert page.is_hidden("#settings-save")
    page.reload()
    page.wait_for_selector("body[data-ready=true]")
    open_settings(page)
    assert page.input_value("#field-activation_probability") == "40"
    assert page.input_value("#field-prompt") == prompt
    assert page.input_value("#field-capture") == "since-compaction"
    page.click("#nav-conversation")
    composer(page, "/shadow show")
    shown = page.wait_for_selector(".entry.command-result.success").inner_text()
    assert "activation_probability: 0.4" in shown and prompt.splitlines()[0] in shown
    page.screenshot(path=str(shots / "shadow-show.png"), full_page=True)


def test_discard_and_a_field_error(browser: Any, server: Server, shots: Path) -> None:
    page = open_page(browser, server)
    open_settings(page)
    page.fill("#field-name", "Renamed")
    assert page.is_visible("#settings-discard")
    page.click("#settings-discard")
    assert page.input_value("#field-name") == "Reviewer"
    assert page.is_hidden("#settings-save") and page.is_hidden("#settings-discard")
    page.fill("#field-name", "  ")
    page.click("#settings-save")
    error = page.wait_for_selector("[data-error-for=name]:not(:empty)")
    assert "name" in error.inner_text()
    assert page.locator("[data-error-for=prompt]").inner_text() == ""
    page.screenshot(path=str(shots / "settings-error.png"), full_page=True)
    # efforts follow the model: switching to a model that advertises none clears the effort
    page.click("summary:has-text('Advanced settings')")
    page.select_option("#field-reasoning_effort", "high")
    page.select_option("#field-run_with_model", "scripted/root-model")
    assert page.input_value("#field-reasoning_effort") == ""
    assert page.locator("#field-reasoning_effort option:not([hidden])").all_inner_texts() == ["—"]
    page.select_option("#field-run_with_model", "scripted/shadow-model")
    assert page.locator("#field-reasoning_effort option:not([hidden])").all_inner_texts() == ["—", "low", "high"]
    page.reload()
    page.wait_for_selector("body[data-ready=true]")
    open_settings(page)
    assert page.input_value("#field-name") == "Reviewer"  # nothing was saved


def test_review_cards_live_retry_pause_and_restored_after_restart(browser: Any, server: Server, shots: Path) -> None:
    page = open_page(browser, server)
    page.click("#new-session")  # saves nothing until the first prompt; the cursor is in the composer
    page.wait_for_function("() => document.activeElement.id === 'composer-input'")
    composer(page, "please deploy")
    page.wait_for_selector(".card .run[data-phase=running]")
    assert "Shadow is reviewing" in page.inner_text(".card .banner")
    assert page.locator(".card .elapsed").count() == 1
    page.screenshot(path=str(shots / "card-reviewing.png"), full_page=True)
    report = page.wait_for_selector(".card .run[data-phase=report]")
    card = page.locator(".card").first
    # anchored right under the reviewed turn/end
    assert page.evaluate("document.querySelector('.card').closest('.cards').previousElementSibling.classList.contains('turn-end')")
    body = card.locator(".body")
    # the outcome first: verdict and severity above the finding, internals folded behind Details
    assert body.is_visible() and "clamped" in body.get_attribute("class")  # collapsedByDefault: its opening lines
    facts = card.locator(".facts").inner_text()
    assert "Verdict: challenge" in facts and "Severity: 0.80 (high)" in facts
    internals = card.locator("details.internals")
    assert internals.locator("dd").first.is_hidden() and "Reviewed through entry" in internals.inner_html()
    internals.locator("summary").click()
    assert internals.locator("dt:has-text('Stage')").is_visible()
    # the preference saves on change (no Save) and open cards follow it live
    open_settings(page)
    page.click("#field-collapsedByDefault")
    assert page.get_attribute("#field-collapsedByDefault", "aria-checked") == "false"
    assert page.is_hidden("#settings-save")
    page.click("#nav-conversation")
    clamped = "(n) => n.classList.contains('clamped')"
    page.wait_for_function(f"() => !({clamped})(document.querySelector('.card .body'))")
    card.locator("button.collapse").click()  # the person's own choice wins
    page.wait_for_function(f"() => ({clamped})(document.querySelector('.card .body'))")
    card.locator("button.collapse").click()
    page.wait_for_function(f"() => !({clamped})(document.querySelector('.card .body'))")
    assert "<script>window.pwned = 1</script>" in body.inner_text()
    assert page.evaluate("window.pwned === undefined") and card.locator(".body script").count() == 0
    assert "Verdict: challenge" in report.inner_text()
    ref = card.locator("a.ref").first
    target = f"#event-{ref.get_attribute('data-ref')}"
    ref.click()
    page.wait_for_selector(f"{target}.highlight")
    assert "read" in page.inner_text(target)
    assert page.evaluate(f"(() => {{ const r = document.querySelector('{target}').getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; }})()")
    page.screenshot(path=str(shots / "card-report.png"), full_page=True)

    card.locator("button.action:has-text('Pause review')").click()
    page.wait_for_selector(".card button.action:has-text('Resume review')")
    assert "Shadow review is paused" in page.inner_text(".card .banner")
    page.locator(".card button.action:has-text('Resume review')").first.click()
    page.wait_for_selector(".card button.action:has-text('Pause review')")

    composer(page, "now summarize")
    failed = page.wait_for_selector(".card .run[data-phase=failed]")
    assert "Retry" in failed.inner_text() and "PROVIDER_ERROR" in failed.inner_text()  # the reason code
    assert failed.evaluate("n => n.closest('.cards').previousElementSibling.classList.contains('turn-end')")
    assert failed.evaluate("n => n.closest('#log') !== null")
    page.screenshot(path=str(shots / "card-failed.png"), full_page=True)
    page.locator(".run[data-phase=failed] button.action:has-text('Retry')").click()
    page.wait_for_selector(".card .run[data-phase=report]:has-text('RETRY-REPORT')")
    session = page.evaluate("state.session")

    code, _out, err = server.stop()
    assert code == 0, err
    with Server(server.tmp, SCRIPT) as restarted:
        page = open_page(browser, restarted, f"/?session={session}")
        page.wait_for_selector(".card .run[data-phase=report]:has-text('RETRY-REPORT')")
        restored = page.locator(".card")
        assert restored.count() == 2  # both relayed reports, each under its turn
        # restored cards keep their controls: Pause works on them after a restart
        assert restored.locator("button.action:has-text('Pause review')").count() == 2
        assert "clamped" not in restored.first.locator(".body").get_attribute("class")  # collapsedByDefault false persisted
        restored.first.locator("button.action:has-text('Pause review')").click()
        page.wait_for_selector(".card button.action:has-text('Resume review')")
        assert "<script>window.pwned = 1</script>" in restored.first.locator(".body").inner_text()
        page.screenshot(path=str(shots / "card-restored.png"), full_page=True)


def test_approvals_sessions_and_model_html(browser: Any, server: Server, shots: Path) -> None:
    page = open_page(browser, server)
    composer(page, "tighten the reports")  # the first prompt creates a session
    approval = page.wait_for_selector(".approval")
    assert "update_shadow_config" in approval.inner_text() and "maxReportChars" in approval.inner_text()
    page.screenshot(path=str(shots / "approval.png"), full_page=True)
    page.click(".approval button.allow")
    page.wait_for_selector(".approval", state="detached")
    done = page.wait_for_selector("#log .entry.assistant:has-text('Done.')")
    assert "<img src=x onerror='window.pwned = 2'>" in done.inner_text()
    assert page.evaluate("window.pwned === undefined") and page.locator(".entry img").count() == 0
    assert page.locator(".entry.tool.error").count() == 0
    session = page.evaluate("state.session")
    page.goto(f"{server.base}/")  # localStorage carries the credential from here on
    page.wait_for_selector("body[data-ready=true]")
    page.click(f"button.session[data-session='{session}']")
    page.wait_for_selector("#log .entry.assistant:has-text('Done.')")
    composer(page, "/shadow config maxReportChars")
    assert "maxReportChars: 5000" in page.wait_for_selector(".entry.command-result.success").inner_text()


def test_an_approval_asked_before_the_stream_connected_still_shows(browser: Any, server: Server) -> None:
    """The page posts its first prompt without waiting for its stream: hold the
    stream until the approval is pending, as a slow connection would, and the
    prompt must still appear."""
    held: list[str] = []

    def hold_stream(route: Any) -> None:
        if not held:
            session = route.request.url.split("/api/sessions/")[1].split("/")[0]
            held.append(session)
            with server.client() as client:
                give_up = time.monotonic() + WAIT_MS / 1000  # a hang guard, not a timing assertion
                while not client.get(f"/api/sessions/{session}/events").json()["approvals"]:
                    assert time.monotonic() < give_up, "the approval was never asked"
                    time.sleep(0.05)
        route.continue_()

    page = open_page(browser, server)
    page.route("**/api/sessions/*/stream*", hold_stream)
    composer(page, "tighten the reports")
    approval = page.wait_for_selector(".approval")
    assert held and "update_shadow_config" in approval.inner_text()
    page.click(".approval button.allow")
    page.wait_for_selector("#log .entry.assistant:has-text('Done.')")
    page.wait_for_selector(".approval", state="detached")


def test_an_approval_of_another_session_names_it_and_is_answered_there(browser: Any, server: Server, shots: Path) -> None:
    """Session A is shown while B's agent asks: the prompt names B (its title is
    text, shown as text), says it is not the session shown and offers no Allow
    until B is opened."""
    with server.client() as client:
        shown = new_session(client)
        other = new_session(client)
        page = open_page(browser, server, f"/?session={shown}")
        client.post(f"/api/sessions/{other}/send", json={"text": "tighten the reports <b>now</b>"})
    prompt = page.wait_for_selector(".approval.other-session")
    text = prompt.inner_text()
    assert "another session" in text and "update_shadow_config" in text
    assert f"tighten the reports <b>now</b> · {other[:8]} (not the session shown)" in text
    assert page.locator(".approval b").count() == 0
    assert page.locator(".approval button.allow, .approval button.reject").count() == 0
    page.screenshot(path=str(shots / "approval-other-session.png"), full_page=True)
    # a page showing no session has no stream, and still offers the waiting prompt
    start = open_page(browser, server)
    assert start.wait_for_selector(f".approval.other-session[data-session='{other}'] button.open-session")
    assert start.locator(".approval button.allow").count() == 0
    start.close()
    page.click(".approval button.open-session")
    page.wait_for_function(f"() => state.session === {other!r}")
    mine = page.wait_for_selector(f".approval:not(.other-session)[data-session='{other}']")
    assert f"Session: tighten the reports <b>now</b> · {other[:8]}" in mine.inner_text()
    page.screenshot(path=str(shots / "approval-opened.png"), full_page=True)
    page.click(".approval button.allow")
    page.wait_for_selector(".approval", state="detached")
    page.wait_for_selector("#log .entry.assistant:has-text('Done.')")
    assert page.locator(".entry.tool.error").count() == 0


TOAST_RECORDER = """
window.toastsShown = [];
new MutationObserver((changes) => {
  for (const change of changes) for (const node of change.addedNodes)
    if (node.classList && node.classList.contains("toast")) window.toastsShown.push(node.querySelector("span").textContent);
}).observe(document, { childList: true, subtree: true });
"""


def test_a_notice_pushed_before_the_stream_connected_shows_once(browser: Any, server: Server) -> None:
    """Hold the page's stream until a notice was pushed after its event load: the
    notice still shows, and a reconnect bringing it again does not repeat it."""
    with server.client() as client:
        session = new_session(client)
    held: list[str] = []

    def push_then_connect(route: Any) -> None:
        if not held:
            held.append(route.request.url)
            with server.client() as client:
                assert client.post(f"/api/sessions/{session}/send", json={"text": "/notice pushed in the gap"}).json()["ok"]
        route.continue_()

    page = browser.new_page(viewport={"width": 1200, "height": 900})
    page.set_default_timeout(WAIT_MS)
    page.route("**/api/sessions/*/stream*", push_then_connect)
    # toasts go after a few seconds: record each one shown rather than race it
    page.add_init_script(TOAST_RECORDER)
    page.goto(server.url(f"/?session={session}"))
    page.wait_for_selector("#notices li:has-text('pushed in the gap')")
    assert page.evaluate("window.toastsShown") == ["pushed in the gap"]
    page.evaluate("state.source.close(); connect()")  # as after a dropped stream
    page.wait_for_selector("#log .entry.command-result")  # the new stream replayed the log
    page.wait_for_function("() => state.opening === null")  # and got past its opening
    assert held and page.locator("#notices li", has_text="pushed in the gap").count() == 1
    assert page.evaluate("window.toastsShown") == ["pushed in the gap"]
