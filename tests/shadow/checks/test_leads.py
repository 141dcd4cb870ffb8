"""Leads: a model reviewer's prompt carries the checks that fired, with their
refs, inside the prompt's bounds and citing only seqs shown; the run view, card,
journal and trace show them as a check's, apart from the model's finding."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import trio

from hookspecs.values import TextBlock, create_user_message
from shadow_mind_plugin.checks import CheckFinding, CheckKind
from shadow_mind_plugin.checks.leads import LEADS_HEADING, fit_leads, lead_line, leads_section
from shadow_mind_plugin.client_view import card_view
from shadow_mind_plugin.governance.cards import render_card
from shadow_mind_plugin.projection import Entry, Projection
from shadow_mind_plugin.prompt import build_prompt
from shadow_mind_plugin.vocabulary import Verdict

from ...cli_env import cli_env
from ..helpers import new_root, settle, shadow_host, write_definition
from .deploy import SHOWN, UNCITED, script


def _finding(evidence: int, refs: tuple[int, ...], text: str = "The answer cites `x.py`.") -> CheckFinding:
    return CheckFinding(
        kind=CheckKind.UNCITED_REFERENCE, verdict=Verdict.GAP, severity=0.5, refs=refs, text=text, evidence=evidence
    )


def _projection(count: int, size: int = 200) -> Projection:
    entries = tuple(Entry(seq=seq, text=f"[seq={seq}] " + "x" * size) for seq in range(1, count + 1))
    return Projection(entries=entries)


def _build(projection: Projection, chars: int = 0):  # type: ignore[no-untyped-def]
    return lambda section: build_prompt(
        "R", "r", "Do.", projection, 99, think_first=False, max_prompt_chars=chars, leads=section
    )


def test_no_lead_leaves_the_prompt_as_it_was() -> None:
    projection = _projection(3)
    framed, leads = fit_leads(_build(projection), [])
    assert leads == () and framed.text == build_prompt("R", "r", "Do.", projection, 99, think_first=False).text
    assert LEADS_HEADING not in framed.text


def test_a_lead_sits_before_the_trajectory_with_its_refs() -> None:
    lead = _finding(3, (2, 3))
    framed, leads = fit_leads(_build(_projection(3)), [lead])
    assert leads == (lead,)
    assert f"{LEADS_HEADING}\n" in framed.header and lead_line(lead) in framed.header
    assert lead_line(lead) == "- [uncited-reference] gap, severity 0.5, refs 2, 3: The answer cites `x.py`."
    assert framed.header.index(LEADS_HEADING) < framed.header.index("## Root trajectory")


def test_a_lead_citing_a_seq_left_out_is_withdrawn_and_the_room_goes_to_the_trajectory() -> None:
    projection = _projection(10)
    old = _finding(1, (1,))  # the oldest entry: left out under the bound
    new = _finding(10, (10,), "The answer (seq 10) cites `y.py`; seq 9 showed `x.py`.")
    bound = len(build_prompt("R", "r", "Do.", projection, 99, think_first=False).header) + 1200
    framed, leads = fit_leads(_build(projection, bound), [old, new], max_prompt_chars=bound)
    assert leads == (new,) and 1 not in framed.seqs and {9, 10} <= framed.seqs
    assert len(framed.text) <= bound
    assert lead_line(old) not in framed.text and lead_line(new) in framed.text
    # the prompt is the one framed with the kept lead alone
    assert framed.text == _build(projection, bound)(leads_section([new])).text


def test_leads_take_at_most_a_quarter_of_the_bound() -> None:
    projection = _projection(2, 10)
    long = _finding(2, (2,), "y" * 300)
    short = _finding(1, (1,))
    framed, leads = fit_leads(_build(projection, 2000), [long, short], max_prompt_chars=2000)
    assert leads == (short,)  # the first (most severe; a tie keeps order) was too long for the share


async def _review(tmp_path: Path, answer: str):  # type: ignore[no-untyped-def]
    home = tmp_path / "home"
    write_definition(home, name="Model reviewer", extra="debug: true\n")
    report = {"status": "report", "verdict": "gap", "severity": 0.6, "refs": [17], "content": "Confirmed: load_target() was never shown."}
    script_text = script(answer, report)
    async with shadow_host(tmp_path, script_text, home=home) as (host, adapter, runtime):
        root = await new_root(host)
        root.followup(create_user_message("where does the deploy target come from?"))
        await settle(host, root)
        (cycle,) = runtime.owners[root.id].governance.cycles.values()
        (view,) = cycle.runs
        live = next(r for r in adapter.requests if r.metadata["delegation_depth"] == 1)
        prompt = "\n".join(
            b.text for m in live.messages if m.role == "user" for b in m.content if isinstance(b, TextBlock)
        )
        relay = next(
            e.seq for e in root.session.events
            if e.type == "user/message" and e.data["message"]["source"]["kind"] != "user"
        ) if view.phase == "report" else len(root.session.events)
        answer_seq = [e.seq for e in root.session.events if e.type == "assistant/message" and e.seq < relay][-1]
        status = await host.commands.execute(root, "/shadow status")
        assert status is not None
        return home, view, prompt, answer_seq, host.client.cards(root.id), status.text


async def test_the_model_reviewer_gets_the_checks_as_leads_and_they_show_as_such(tmp_path: Path) -> None:
    home, view, prompt, answer_seq, cards, status = await _review(tmp_path, UNCITED)
    assert answer_seq == 17  # the script's report cites it
    assert LEADS_HEADING in prompt
    assert f"- [uncited-reference] gap, severity 0.5, refs {answer_seq}: The final answer (seq {answer_seq}) cites" in prompt
    assert prompt.index(LEADS_HEADING) < prompt.index("## Root trajectory")
    # the model's report is the model's; the lead is recorded beside it
    assert view.phase == "report" and view.check is None and view.child_session_id
    assert view.leads == ({"kind": "uncited-reference", "verdict": "gap", "refs": [answer_seq]},)
    (card,) = cards
    assert render_card(card).endswith("Model reviewer report relayed (gap) [leads: uncited-reference]")
    assert f"\n  lead from evidence check: uncited-reference (gap, refs {answer_seq})" in status
    (section,) = card_view(card, lambda: False).sections
    assert ("Evidence-check leads", "uncited-reference") in section.meta
    assert not any(label == "Evidence check" for label, _ in section.meta)
    assert "evidence check: uncited-reference (a checks-only review" not in status
    journal = home / "shadow-minds" / "logs" / "default.jsonl"
    records = [json.loads(line) for line in journal.read_text().splitlines()]
    assert any(r.get("leads") == [{"kind": "uncited-reference", "verdict": "gap", "refs": [answer_seq]}] for r in records)
    assert all("check" not in r for r in records if r.get("event") != "quality-metadata")
    result = await trio.run_process(
        [sys.executable, "-m", "harness", "shadow", "trace", view.run_id],
        env=cli_env(DSH_HOME=str(home)), capture_stdout=True, capture_stderr=True, check=False,
    )
    assert result.returncode == 0, result.stderr.decode()
    assert f"lead from evidence check uncited-reference: gap, refs [{answer_seq}]" in result.stdout.decode()
    assert "leads uncited-reference" in result.stdout.decode()  # the timeline, from the journal


async def test_a_clean_turn_gives_no_leads(tmp_path: Path) -> None:
    _home, view, prompt, _seq, cards, status = await _review(tmp_path, SHOWN)
    assert LEADS_HEADING not in prompt and view.leads is None
    assert "[leads:" not in render_card(cards[0]) and "evidence check" not in status


def test_status_tells_a_checks_finding_from_a_models() -> None:
    from shadow_mind_plugin.commands import format_status

    base = {
        "paused": False, "active": [], "pending_schedules": 0, "total_runs": 1, "epoch": 0, "budget_tier": "standard",
        "spent_chars": 0, "cooldowns": [], "pending_escalations": [],
    }
    last = {
        "shadow_id": "default", "run_id": "r1", "phase": "report", "verdict": "gap", "stage": "relay",
        "captured_through_seq": 9, "independence": "same-model",
    }
    checks_only = format_status({**base, "last_run": {**last, "check": "uncited-reference"}})
    assert checks_only.endswith("\n  evidence check: uncited-reference (a checks-only review: no model wrote it)")
    model = format_status({**base, "last_run": {**last, "leads": [{"kind": "done-after-error", "verdict": "challenge", "refs": [3, 9]}]}})
    assert model.endswith("\n  lead from evidence check: done-after-error (challenge, refs 3, 9)")
    assert "evidence check:" not in format_status({**base, "last_run": last})


async def test_a_fault_in_a_check_costs_the_leads_not_the_review(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from shadow_mind_plugin.run import pipeline

    def broken(*_args: object) -> list[CheckFinding]:
        raise RuntimeError("a check bug")

    monkeypatch.setattr(pipeline, "fired", broken)
    _home, view, prompt, _seq, _cards, _status = await _review(tmp_path, UNCITED)
    assert view.phase == "report" and view.leads is None and LEADS_HEADING not in prompt
