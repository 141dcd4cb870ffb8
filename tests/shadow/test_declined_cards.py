"""An eligible turn that starts no review leaves no card saying "deciding
whether to review…" for good: its card is hidden and says why (``declined``),
as the reference hides a card whose cycle is not scheduling and has no run or
failure."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from shadow_mind_plugin.governance.cards import render_card

from .helpers import new_root, shadow_host, write_definition
from .test_governance_runtime import reviewer, root_turns, turn


def only_card(host: Any, root: Any) -> Any:
    cards = host.client.cards(root.id)
    assert len(cards) == 1
    return cards[0]


async def test_a_roll_that_says_no_hides_the_card_and_names_why(tmp_path: Path) -> None:
    write_definition(tmp_path / "home", probability=0.000001)
    async with shadow_host(tmp_path, "responses:\n" + root_turns(1)) as (host, _, runtime):
        root = await new_root(host)
        await turn(host, root, 0, source=None)
        card = only_card(host, root)
        assert card.data["scheduling"] is False and card.data["runs"] == []
        assert card.data["declined"] == {"reason_code": "NOT_ROLLED"}
        assert card.visibility == "hidden"
        assert render_card(card) == ""


async def test_an_exhausted_budget_hides_the_next_turn_s_card_and_names_why(tmp_path: Path) -> None:
    write_definition(tmp_path / "home")
    script = "responses:\n" + reviewer() + root_turns(2)
    async with shadow_host(tmp_path, script, config={"sessionShadowHardBudgetChars": 100}) as (host, _, runtime):
        root = await new_root(host)
        await turn(host, root, 0, source=None)  # one review: the budget is spent
        await turn(host, root, 1)  # a plugin message: the same budget window
        cards = sorted(host.client.cards(root.id), key=lambda c: c.anchor_seq)
        assert [c.visibility for c in cards] == ["visible", "hidden"]
        assert cards[0].data["runs"] and "declined" not in cards[0].data
        assert cards[1].data["declined"] == {"reason_code": "BUDGET_EXHAUSTED"}
        assert cards[1].data["scheduling"] is False
