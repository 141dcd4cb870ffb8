"""A review plan is validated op by op: a bad skill op (an invalid name, a
malformed list) refuses that op alone, reported by name, and every valid op
beside it still lands."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from evolution_review_plugin.memory_store import FileMemoryStore
from evolution_review_plugin.pinned import ReviewLibrary
from evolution_review_plugin.plan import ValidPlan, validate_plan
from evolution_review_plugin.skills_store import FileSkillLibrary
from evolution_review_plugin.vocabulary import PLAN_APPLIED
from hookspecs.stores import MemoryOp

from .helpers import evolution_host, reviews, say
from .test_subagent_review import CONFIG, plan_script

MEMORY_OP = {"action": "add", "target": "user", "text": "Prefers answers in French."}


def library(tmp_path: Path) -> ReviewLibrary:
    # the view the reviewer validates against: pinned skills count as protected
    return ReviewLibrary(FileSkillLibrary(tmp_path / "skills", content_chars=1000))


@pytest.mark.parametrize("name", ["Bad Name!", "../escape", "x" * 65, ".staged"])
def test_a_bad_skill_name_refuses_that_op_only(tmp_path: Path, name: str) -> None:
    structured = {"memoryOps": [MEMORY_OP], "skillOps": [{"action": "write", "name": name, "content": "# x\n"}]}
    plan = validate_plan(structured, max_ops=8, library=library(tmp_path), read_by_child=())
    assert isinstance(plan, ValidPlan)
    assert [op.text for op in plan.memory_ops] == ["Prefers answers in French."]
    assert plan.skill_ops == ()
    [reason] = plan.rejected
    assert reason.startswith("skill op ") and "is invalid" in reason and "\n" not in reason


def test_a_malformed_op_list_refuses_that_list_only(tmp_path: Path) -> None:
    structured = {"memoryOps": [MEMORY_OP], "skillOps": {"name": "not-a-list"}}
    plan = validate_plan(structured, max_ops=8, library=library(tmp_path), read_by_child=())
    assert isinstance(plan, ValidPlan)
    assert len(plan.memory_ops) == 1 and plan.rejected == ("skillOps must be a list of ops",)
    structured = {"memoryOps": "remember everything", "skillOps": [{"action": "write", "name": "ok", "content": "# ok\n"}]}
    plan = validate_plan(structured, max_ops=8, library=library(tmp_path), read_by_child=())
    assert isinstance(plan, ValidPlan)
    assert [op.name for op in plan.skill_ops] == ["ok"] and plan.rejected == ("memoryOps must be a list of ops",)


@pytest.mark.trio
async def test_a_bad_skill_name_beside_a_memory_op_still_saves_the_note(dsh_host: Any, dsh_home: Path) -> None:
    plan = {"memoryOps": [MEMORY_OP], "skillOps": [{"action": "write", "name": "Bad Name!", "content": "# x\n"}]}
    async with evolution_host(dsh_host, plan_script(plan), **CONFIG) as (host, recorder):
        agent = await dsh_host.new_root(host)
        await say(host, agent, "hello there, answer in French please")
        assert (dsh_home / "memory" / "USER.md").read_text() == "Prefers answers in French.\n"
        [applied] = recorder.named(PLAN_APPLIED)
        assert applied["memoryApplied"] == 1
        [reason] = applied["rejectedOps"]
        assert "'Bad Name!' is invalid" in reason
        [notice] = reviews(agent)
        assert notice.startswith("💾 Self-improvement review: 1 memory note saved.")


def test_notes_and_skill_bodies_are_stored_without_credentials(tmp_path: Path) -> None:
    leak = "deploy with api_key=hunter2hunter2 and Bearer abcdefghijkl"
    structured = {
        "memoryOps": [{"action": "add", "target": "memory", "text": leak}],
        "skillOps": [{"action": "write", "name": "deploy", "content": f"# deploy\n\n{leak}\n"}],
    }
    plan = validate_plan(structured, max_ops=8, library=library(tmp_path), read_by_child=())
    assert isinstance(plan, ValidPlan)
    for text in (plan.memory_ops[0].text, plan.skill_ops[0].content):
        assert "hunter2" not in text and "abcdefghijkl" not in text and "[credential]" in text
    # every writer of the file stores meets the same rule (the tools, an approval)
    files = FileSkillLibrary(tmp_path / "skills", content_chars=1000)
    files.write("deploy", f"# deploy\n\n{leak}\n", origin="tool")
    assert "hunter2" not in files.read("deploy")
    notes = FileMemoryStore(tmp_path / "memory", caps={"memory": 500, "user": 500})
    notes.apply_batch([MemoryOp(action="add", target="memory", text=leak)])
    assert "hunter2" not in notes.snapshot().memory
