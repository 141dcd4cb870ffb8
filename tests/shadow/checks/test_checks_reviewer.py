"""A checks-only reviewer (``reviewer: checks``) through the real host: no child,
no model request, the checks' most severe finding relayed through the same
output stage as a model's report, and marked as a check's on the relay, the
card and the journal."""

from __future__ import annotations

import json
from pathlib import Path

from hookspecs.values import create_user_message
from shadow_mind_plugin.client_view import card_view, restore_cards
from shadow_mind_plugin.governance.cards import render_card

from ..helpers import new_root, settle, shadow_host, write_definition
from .deploy import SHOWN, UNCITED, script


async def _review(tmp_path: Path, answer: str) -> tuple[object, object, object]:
    home = tmp_path / "home"
    write_definition(home, name="Evidence checks", extra="reviewer: checks\ndebug: true\n")
    async with shadow_host(tmp_path, script(answer), home=home) as (host, adapter, _runtime):
        root = await new_root(host)
        root.followup(create_user_message("where does the deploy target come from?"))
        await settle(host, root)
        return root, adapter, host.client.cards(root.id)


async def test_a_finding_is_relayed_without_a_model(tmp_path: Path) -> None:
    root, adapter, cards = await _review(tmp_path, UNCITED)
    assert {r.model for r in adapter.requests} == {"root-model"}  # no reviewer request at all
    assert [r.metadata["delegation_depth"] for r in adapter.requests] == [0, 0, 0]
    events = root.session.events
    relay = next(
        e for e in events if e.type == "user/message" and e.data["message"]["source"]["kind"] == "shadow-report"
    )
    (provenance,) = relay.data["message"]["source"]["reports"]
    answer_seq = [e.seq for e in events if e.type == "assistant/message" and e.seq < relay.seq][-1]
    assert provenance["source"] == "check" and provenance["check"] == "uncited-reference"
    assert provenance["verdict"] == "gap" and provenance["refs"] == [answer_seq]
    assert "child_session_id" not in provenance
    text = relay.data["message"]["content"][0]["text"]
    assert "### Evidence checks (default)\nThe final answer" in text and "`load_target()`" in text
    (card,) = cards
    (run,) = card.data["runs"]
    assert run["phase"] == "report" and run["relayed"] is True and run["check"] == "uncited-reference"
    assert render_card(card).endswith("Evidence checks report relayed (gap) [check: uncited-reference]")
    (section,) = card_view(card, lambda: False).sections
    assert ("Evidence check", "uncited-reference") in section.meta
    (restored,) = restore_cards(root.id, events)
    assert restored.data["runs"][0]["check"] == "uncited-reference"
    journal = tmp_path / "home" / "shadow-minds" / "logs" / "default.jsonl"
    records = [json.loads(line) for line in journal.read_text().splitlines()]
    assert any(r.get("check") == "uncited-reference" for r in records)
    assert all(r.get("child_session_id") is None for r in records)


async def test_no_finding_settles_silent_without_a_relay(tmp_path: Path) -> None:
    root, adapter, cards = await _review(tmp_path, SHOWN)
    assert {r.model for r in adapter.requests} == {"root-model"}
    assert not any(
        e.type == "user/message" and e.data["message"]["source"]["kind"] == "shadow-report" for e in root.session.events
    )
    (card,) = cards
    (run,) = card.data["runs"]
    assert run["phase"] == "silent" and "check" not in run


def test_the_reviewer_field_parses_validates_and_round_trips(tmp_path: Path) -> None:
    import pytest

    from shadow_mind_plugin.definitions import DefinitionError, parse_definition, serialize_definition

    source = "---\nid: default\nreviewer: checks\n---\n\nUnused by the checks.\n"
    definition = parse_definition(source, tmp_path / "default.md")
    assert definition.reviewer == "checks"
    assert "reviewer: checks" in serialize_definition(definition)
    assert parse_definition("---\nid: default\n---\n\nA prompt.\n", tmp_path / "default.md").reviewer == "model"
    assert "reviewer" not in serialize_definition(
        parse_definition("---\nid: default\n---\n\nA prompt.\n", tmp_path / "default.md")
    )
    with pytest.raises(DefinitionError, match="reviewer must be one of model, checks"):
        parse_definition("---\nid: default\nreviewer: both\n---\n\nA prompt.\n", tmp_path / "default.md")
