"""The client extension point's card path, in process: live Shadow cards and
their view model (the outcome first, internals behind Details, a report
overtaken by a new message named for what happened, quiet outcomes in one
line), pause/resume reaching the card, restore from the durable log with the
card's controls, removal reaching listeners, sanitized bodies."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from harness.client import ClientServiceImpl
from harness.web.payloads import card_payload
from hookspecs.values import Card, CardRenderer, EventTypes, create_user_message

from ..shadow.helpers import new_root, settle, shadow_host, write_definition
from ..shadow.test_outcomes import REPORT, script
from ..shadow.test_stale_relay import SpeakAfterRelay

SCRIPT = """
models:
  - {id: root-model, context_window: 128000}
  - {id: shadow-model, context_window: 64000}
responses:
  - match: {depth: 0, last_user_contains: "deploy"}
    reply:
      tool_calls: [{name: read, arguments: {path: notes.txt}}]
  - match: {depth: 0, last_user_contains: "deploy"}
    reply: {text: "Deploying to production now."}
  - match: {depth: 1, has_tools: [structured_output]}
    reply:
      tool_calls:
        - name: structured_output
          arguments:
            status: report
            verdict: challenge
            severity: 0.8
            refs: ["{{seq:tool call}}"]
            content: "REPORT-BODY <script>alert(1)</script> notes.txt says **staging**."
  - match: {depth: 0, last_user_contains: "Shadow reports"}
    repeat: true
    reply: {text: "Good catch."}
"""


async def _reviewed(tmp_path: Path, host: Any) -> Any:
    agent = await new_root(host)
    agent.followup(create_user_message("please deploy"))
    await settle(host, agent)
    return agent


async def test_a_report_card_views_anchored_sanitized_and_follows_pause(tmp_path: Path) -> None:
    write_definition(tmp_path / "home", extra="run_with_model: scripted/shadow-model\n")
    async with shadow_host(tmp_path, SCRIPT) as (host, _adapter, _rt):
        agent = await _reviewed(tmp_path, host)
        [card] = host.client.cards(agent.id)
        ends = [e.seq for e in agent.session.events if e.type == EventTypes.TURN_END]
        assert card.anchor_seq == ends[0]
        view = host.client.view(card)
        [section] = view.sections
        assert (section.phase, section.phase_label) == ("report", "Report")
        # what a person reads first: the verdict and severity; internals go behind Details
        assert section.meta[:2] == (("Verdict", "challenge"), ("Severity", "0.80 (high)"))
        assert not {"Reviewed through entry", "Stage", "Provider stop"} & {label for label, _ in section.meta}
        assert {"Reviewed through entry", "Stage", "Provider stop"} <= {label for label, _ in section.details}
        calls = [e.seq for e in agent.session.events if e.type == EventTypes.TOOL_CALL]
        assert section.refs == (calls[0],)
        assert view.collapsible and view.collapsed_by_default  # the setting's default
        payload = card_payload(card, view)
        body = payload["sections"][0]["body_html"]
        assert "<script>" not in body and "&lt;script&gt;" in body and "<strong>staging</strong>" in body
        assert [a.label for a in view.actions] == ["Pause review"]
        seen: list[Any] = []
        host.client.subscribe(seen.append)
        result = await host.commands.execute(agent, "/shadow pause")
        assert result is not None and result.kind == "success"
        [paused] = host.client.cards(agent.id)
        assert paused.data["paused"] is True and seen and seen[-1].data["paused"] is True
        assert [a.command for a in host.client.view(paused).actions] == ["/shadow resume"]
        await host.commands.execute(agent, "/shadow resume")
        assert host.client.cards(agent.id)[0].data["paused"] is False


async def test_relayed_reports_come_back_from_the_log_after_a_restart(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_definition(home, extra="run_with_model: scripted/shadow-model\n")
    async with shadow_host(tmp_path, SCRIPT) as (host, _adapter, _rt):
        agent = await _reviewed(tmp_path, host)
        session_id = agent.id
        [live] = host.client.cards(session_id)
        live_view = host.client.view(live)
    async with shadow_host(tmp_path, SCRIPT, home=home) as (host, _adapter, _rt):
        assert host.client.cards(session_id) == []  # process-local: gone with the process
        _, events = host.sessions.read(session_id)
        [restored] = host.client.restore(session_id, events)
        assert (restored.key, restored.anchor_seq) == (live.key, live.anchor_seq)
        view = host.client.view(restored)
        [section] = view.sections
        assert section.phase == "report" and section.refs == live_view.sections[0].refs
        assert "REPORT-BODY" in section.body and section.child_session == live_view.sections[0].child_session
        # a restored card keeps its control, and follows the pause it sends
        assert [a.label for a in view.actions] == ["Pause review"]
        handle = await host.agents.resume(session_id)
        result = await host.commands.execute(handle.agent, "/shadow pause")
        assert result is not None and result.kind == "success"
        [paused] = host.client.cards(session_id)
        assert [(a.label, a.command) for a in host.client.view(paused).actions] == [("Resume review", "/shadow resume")]
        await host.commands.execute(handle.agent, "/shadow resume")
        assert [a.label for a in host.client.view(host.client.cards(session_id)[0]).actions] == ["Pause review"]


def test_removing_a_card_tells_the_listeners() -> None:
    client = ClientServiceImpl(logging.getLogger("test"))
    client.contribute(CardRenderer(kind="k", render=lambda c: "text"))
    seen: list[Any] = []
    client.subscribe(seen.append)
    card = Card(session_id="s", anchor_seq=3, key="a", kind="k", data={})
    client.upsert_card(card)
    client.remove_card("s", "a")
    assert client.cards("s") == []
    assert [c.visibility for c in seen] == ["visible", "hidden"] and seen[-1].key == "a"
    client.remove_card("s", "a")  # already gone: nothing more to tell
    assert len(seen) == 2


async def test_a_report_overtaken_by_a_new_message_says_it_finished_but_was_not_delivered(tmp_path: Path, autojump_clock: Any) -> None:
    """The person speaks while the report waits to be relayed (39 of 40 cards with
    quick follow-ups): the card must not read "cancelled before it finished"."""
    write_definition(tmp_path / "home", probability=0.0)
    speaker = SpeakAfterRelay()
    async with shadow_host(tmp_path, script(REPORT), home=tmp_path / "home", plugins=[("speaker", speaker)]) as (host, _adapter, runtime):
        root = await new_root(host)
        root.followup(create_user_message("please check the notes"))
        await settle(host, root)
        runtime.controls.review_now(root)
        await settle(host, root)
        assert speaker.spoke
        [card] = host.client.cards(root.id)
        [section] = host.client.view(card).sections
        assert (section.phase, section.phase_label) == ("superseded", "Finished — not delivered")
        assert "a new message arrived before it reached the agent" in section.body and "cancelled" not in section.body
        assert ("Verdict", "gap") in section.meta
        assert ("Reason", "USER_MESSAGE_RECEIVED") in section.details
        assert [a.label for a in section.actions] == ["Retry"]


async def test_a_quiet_outcome_is_one_line_with_its_internals_behind_details(tmp_path: Path) -> None:
    write_definition(tmp_path / "home", extra="run_with_model: scripted/shadow-model\n")
    silent = SCRIPT.split("  - match: {depth: 1")[0] + """  - match: {depth: 1}
    reply:
      tool_calls: [{name: structured_output, arguments: {status: silent, content: ""}}]
"""
    async with shadow_host(tmp_path, silent) as (host, _adapter, _rt):
        agent = await _reviewed(tmp_path, host)
        [card] = host.client.cards(agent.id)
        view = host.client.view(card)
        [section] = view.sections
        assert (section.phase, section.phase_label) == ("silent", "Reviewed — nothing to add")
        assert (section.body, section.meta, section.refs, section.actions) == ("", (), (), ())
        assert ("Reviewed through entry", str(card.anchor_seq)) in section.details
        assert not view.collapsible and not view.banner
