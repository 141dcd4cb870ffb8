"""``active_for_models`` (issue 11, item 4): a definition reviews only roots
whose resolved model matches an entry; otherwise the cycle is skipped with
``MODEL_NOT_ACTIVE``, on the card and in ``/shadow status``."""

from __future__ import annotations

from pathlib import Path

import pytest

from hookspecs.values import create_user_message
from shadow_mind_plugin.commands import format_status
from shadow_mind_plugin.governance.cards import render_card
from shadow_mind_plugin.trigger.models import model_is_active

from .helpers import new_root, settle, shadow_host, write_definition

SCRIPT = """
responses:
  - match: {depth: 0, last_user_contains: "check"}
    reply: {tool_calls: [{name: read, arguments: {path: notes.txt}}]}
  - match: {depth: 0, last_user_contains: "check"}
    reply: {text: "checked"}
  - match: {depth: 1}
    repeat: true
    reply:
      tool_calls:
        - name: structured_output
          arguments: {status: silent, content: ""}
"""


@pytest.mark.parametrize(
    ("patterns", "route", "active"),
    [
        ((), None, True),  # no filter: every root
        ((), "openai/gpt-5", True),
        (("openai/gpt-5",), "openai/gpt-5", True),  # exact route
        (("gpt-5",), "openai/gpt-5", True),  # exact model id
        (("gpt-*",), "openai/gpt-5", True),  # glob on the model id
        (("deepseek/*",), "deepseek/deepseek-chat", True),  # glob on the route
        (("org/m",), "p/org/m", True),  # a model id may hold slashes
        (("gpt-5",), "openai/gpt-5-mini", False),  # exact means exact
        (("GPT-5",), "openai/gpt-5", False),  # case-sensitive
        (("deepseek/*",), "openai/gpt-5", False),
        (("gpt-*",), None, False),  # an unresolved root matches nothing
    ],
)
def test_model_is_active(patterns: tuple[str, ...], route: str | None, active: bool) -> None:
    assert model_is_active(patterns, route) is active


async def _review(tmp_path: Path, models: str) -> tuple[int, list[str], dict[str, object], list[dict[str, object]]]:
    home = tmp_path / "home"
    write_definition(home, extra=f"active_for_models: {models}\n")
    async with shadow_host(tmp_path, SCRIPT, home=home) as (host, adapter, runtime):
        root = await new_root(host, model="root-model")
        root.followup(create_user_message("please check the notes"))
        await settle(host, root)
        reviews = len([r for r in adapter.requests if r.metadata["delegation_depth"] == 1])
        cards = [render_card(card) for card in host.client.cards(root.id)]
        return reviews, cards, runtime.controls.status(root), runtime.controls.cycles(root)


async def test_a_root_outside_the_list_is_skipped_with_its_reason(tmp_path: Path) -> None:
    reviews, cards, status, cycles = await _review(tmp_path, "[other-model, 'openai/*']")
    # before: the list was stored but never consulted, so the reviewer ran
    assert reviews == 0
    (cycle,) = cycles
    assert cycle["runs"] == []
    assert cycle["skipped"] == {
        "reason_code": "MODEL_NOT_ACTIVE",
        "root_route": "scripted/root-model",
        "active_for_models": ["other-model", "openai/*"],
    }
    assert any("skipped [MODEL_NOT_ACTIVE]" in card for card in cards)
    assert status["model_skip"] == cycle["skipped"]
    text = format_status(status)
    assert "[MODEL_NOT_ACTIVE]" in text and "scripted/root-model" in text and "other-model, openai/*" in text


async def test_a_matching_root_is_reviewed(tmp_path: Path) -> None:
    reviews, _, status, cycles = await _review(tmp_path, "[other-model, 'root-*']")
    assert reviews == 1
    assert cycles[0]["runs"][0]["phase"] == "silent"
    assert status["model_skip"] is None
    assert "MODEL_NOT_ACTIVE" not in format_status(status)
