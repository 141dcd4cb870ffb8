"""``review_on_check``: a turn whose evidence checks fire is reviewed as well
as the roll's (``any``) or instead of them (``only``); ``off`` keeps the roll
alone. Through the real host with a scripted model."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
import trio

from hookspecs.values import create_user_message
from shadow_mind_plugin.client_view import card_view
from shadow_mind_plugin.definitions import DefinitionError, parse_definition, serialize_definition
from shadow_mind_plugin.governance.cards import render_card

from ...cli_env import cli_env
from ..helpers import new_root, settle, shadow_host, write_definition
from .deploy import SHOWN, UNCITED, script


async def _turn(tmp_path: Path, answer: str, *, probability: float, mode: str | None) -> dict[str, Any]:
    home = tmp_path / "home"
    extra = "debug: true\n" + (f"review_on_check: {mode}\n" if mode is not None else "")
    write_definition(home, name="Model reviewer", probability=probability, extra=extra)
    async with shadow_host(tmp_path, script(answer, {"status": "silent", "content": ""}), home=home, config={"randomSeed": 7}) as (
        host,
        adapter,
        runtime,
    ):
        root = await new_root(host)
        root.followup(create_user_message("where does the deploy target come from?"))
        await settle(host, root)
        owner = runtime.owners.get(root.id)
        cycles = list(owner.governance.cycles.values()) if owner is not None else []
        cards = host.client.cards(root.id)
        children = [r for r in adapter.requests if r.metadata["delegation_depth"] == 1]
        status = await host.commands.execute(root, "/shadow status")
        assert status is not None
        return {
            "status": status.text,
            "home": home,
            "cycle": cycles[0] if cycles else None,
            "card": cards[0] if cards else None,
            "reviewed": bool(children),
        }


@pytest.mark.parametrize("mode", ["any", "only"])
async def test_with_probability_0_a_turn_whose_checks_fire_is_reviewed(tmp_path: Path, mode: str) -> None:
    out = await _turn(tmp_path, UNCITED, probability=0, mode=mode)
    assert out["reviewed"]
    (run,) = out["cycle"].runs
    assert run.trigger_check == "uncited-reference" and run.phase == "silent"
    assert "[started by check: uncited-reference]" in render_card(out["card"])
    assert "\n  started by evidence check: uncited-reference (review_on_check)" in out["status"]
    (section,) = card_view(out["card"], lambda: False).sections
    assert ("Started by evidence check", "uncited-reference") in section.meta
    result = await trio.run_process(
        [sys.executable, "-m", "harness", "shadow", "trace", run.run_id],
        env=cli_env(DSH_HOME=str(out["home"])), capture_stdout=True, capture_stderr=True, check=False,
    )
    assert result.returncode == 0, result.stderr.decode()
    assert "started by evidence check uncited-reference" in result.stdout.decode()


@pytest.mark.parametrize(("mode", "reason"), [("any", "NOT_ROLLED"), ("only", "NO_CHECK_FIRED")])
async def test_with_probability_0_a_clean_turn_is_not(tmp_path: Path, mode: str, reason: str) -> None:
    out = await _turn(tmp_path, SHOWN, probability=0, mode=mode)
    assert not out["reviewed"] and out["cycle"].runs == []
    assert out["cycle"].declined == {"reason_code": reason}


async def test_only_ignores_the_roll_even_at_probability_1(tmp_path: Path) -> None:
    out = await _turn(tmp_path, SHOWN, probability=1, mode="only")
    assert not out["reviewed"] and out["cycle"].declined == {"reason_code": "NO_CHECK_FIRED"}


async def test_off_is_the_default_and_keeps_the_roll_alone(tmp_path: Path) -> None:
    out = await _turn(tmp_path, UNCITED, probability=0, mode=None)
    # as before: a Shadow that never rolls opens no cycle at all
    assert not out["reviewed"] and out["cycle"] is None and out["card"] is None


async def test_a_rolled_review_names_no_check(tmp_path: Path) -> None:
    out = await _turn(tmp_path, UNCITED, probability=1, mode="any")
    (run,) = out["cycle"].runs
    assert out["reviewed"] and run.trigger_check is None


def test_the_field_parses_validates_and_round_trips(tmp_path: Path) -> None:
    path = tmp_path / "default.md"
    for mode in ("any", "only"):
        definition = parse_definition(f"---\nid: default\nreview_on_check: {mode}\n---\n\nA prompt.\n", path)
        assert definition.review_on_check == mode
        assert f"review_on_check: {mode}" in serialize_definition(definition)
        assert parse_definition(serialize_definition(definition), path) == definition
    plain = parse_definition("---\nid: default\nreview_on_check: off\n---\n\nA prompt.\n", path)
    assert plain.review_on_check == "off" and "review_on_check" not in serialize_definition(plain)
    with pytest.raises(DefinitionError, match="review_on_check must be one of off, any, only"):
        parse_definition("---\nid: default\nreview_on_check: always\n---\n\nA prompt.\n", path)


async def test_a_person_sets_it_with_shadow_set(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_definition(home)
    async with shadow_host(tmp_path, script(SHOWN), home=home) as (host, _adapter, runtime):
        root = await new_root(host)
        for value in ("only", "any", "off"):
            result = await host.commands.execute(root, f"/shadow set review_on_check {value}")
            assert result is not None and result.kind == "success", result
            assert result.text == f'default reviewer definition updated: review_on_check = "{value}"'
            assert runtime.registry.default_definition().review_on_check == value


async def test_a_fault_in_a_check_is_no_check_firing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the run stage answers the trigger stage's evidence question with this
    # (imported at the first question, so it is patched where it lives)
    from shadow_mind_plugin.run import checks_review

    def broken(*_args: object) -> str | None:
        raise RuntimeError("a check bug")

    monkeypatch.setattr(checks_review, "evidence_check", broken)
    out = await _turn(tmp_path, UNCITED, probability=0, mode="only")
    assert not out["reviewed"] and out["cycle"].declined == {"reason_code": "NO_CHECK_FIRED"}
