"""``/shadow status`` reads the persisted budget before any owner exists
(issue 10, item 9): the first status after a restart is not "standard (0)"."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hookspecs.values import AgentOptions
from shadow_mind_plugin.trigger.ledger import root_hash

from .helpers import new_root, write_definition
from .test_governance_runtime import reviewer, root_turns, run_host, turn

HARD = {"sessionShadowHardBudgetChars": 100}


def governance_dir(home: Path) -> Path:
    return home / "shadow-minds" / "governance"


async def resume(host: Any, root_id: str) -> Any:
    handle = await host.agents.resume(root_id, agent_options=AgentOptions(provider="scripted", model="root-model"))
    return handle.agent


async def test_first_status_after_restart_shows_the_spent_budget(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_definition(home)
    script = "responses:\n" + reviewer() + root_turns(1)

    async def first(host: Any, runtime: Any, adapter: Any) -> tuple[str, int]:
        root = await new_root(host)
        await turn(host, root, 0, source=None)
        status = runtime.controls.status(root)
        assert status["budget_tier"] == "exhausted"
        return root.id, status["spent_chars"]

    root_id, spent = await run_host(tmp_path, home, script, HARD, first)
    assert spent > 100

    async def second(host: Any, runtime: Any, adapter: Any) -> None:
        root = await resume(host, root_id)
        status = runtime.controls.status(root)
        assert status["budget_tier"] == "exhausted"
        assert status["spent_chars"] == spent
        assert root.id not in runtime.owners  # reading status creates no state

    await run_host(tmp_path, home, script, HARD, second)


async def test_first_status_after_restart_shows_a_corrupt_ledger(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_definition(home)
    script = "responses:\n" + reviewer() + root_turns(1)

    async def first(host: Any, runtime: Any, adapter: Any) -> str:
        root = await new_root(host)
        await turn(host, root, 0, source=None)
        return str(root.id)

    root_id = await run_host(tmp_path, home, script, HARD, first)
    ledger = governance_dir(home) / f"{root_hash(root_id)}.json"
    ledger.write_text("{not json")

    async def second(host: Any, runtime: Any, adapter: Any) -> None:
        root = await resume(host, root_id)
        status = runtime.controls.status(root)
        assert status["budget_tier"] == "exhausted"
        assert "corrupt" in status["budget_state_error"]

    await run_host(tmp_path, home, script, HARD, second)
    assert ledger.read_text() == "{not json"


async def test_status_without_a_ledger_writes_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_definition(home)
    script = "responses:\n" + root_turns(1)

    async def body(host: Any, runtime: Any, adapter: Any) -> None:
        root = await new_root(host)
        status = runtime.controls.status(root)
        assert status["budget_tier"] == "standard"
        assert status["spent_chars"] == 0
        assert status["budget_state_error"] is None

    await run_host(tmp_path, home, script, HARD, body)
    assert not governance_dir(home).exists() or list(governance_dir(home).iterdir()) == []
