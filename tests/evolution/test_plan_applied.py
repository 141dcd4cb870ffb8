"""The ``evolution/plan-applied`` ledger over the real host: every field the
reference names (planId, policyFingerprint, memoryApplied, skillApplied,
rejectedOps, executionFailures, executionError, evidenceQuotes,
estimatedInputChars), each checked against what really happened."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from evolution_review_plugin.vocabulary import PLAN_APPLIED
from hookspecs.values import TextBlock

from .helpers import evolution_host, reviews, say
from .test_subagent_review import CONFIG, plan_script

pytestmark = pytest.mark.trio

PLAN = {
    "memoryOps": [
        {"action": "add", "target": "user", "text": "Prefers French.", "evidence": ["answer in French", "en français"]}
    ],
    "skillOps": [
        {"action": "write", "name": "make-check", "content": "# make check\n\nRun it.\n", "evidence": ["make check passed"]},
        # rejected (protected): its evidence is not counted
        {"action": "write", "name": "core", "content": "x", "evidence": ["a", "b", "c", "d", "e"]},
    ],
    "summary": "Kept a preference and the build routine.",
}
POLICY = {**CONFIG, "protectedSkillNames": ["core"]}


def child_request_text(host: Any) -> str:
    [request] = [r for r in host.pm.get_plugin("dsh-test-model").adapter.requests if r.metadata.get("delegation_depth") == 1]
    return "".join(b.text for b in request.messages[0].content if isinstance(b, TextBlock))


async def test_every_ledger_field_says_what_happened(dsh_host: Any, dsh_home: Path) -> None:
    async with evolution_host(dsh_host, plan_script(PLAN), **POLICY) as (host, recorder):
        agent = await dsh_host.new_root(host)
        await say(host, agent, "hello there, answer in French please")
        [applied] = recorder.named(PLAN_APPLIED)
        assert re.fullmatch(r"[0-9a-f]{12}", applied["planId"])
        assert re.fullmatch(r"[0-9a-f]{12}", applied["policyFingerprint"])
        assert applied["memoryApplied"] == 1
        assert applied["skillApplied"] == ["make-check"]
        assert applied["rejectedOps"] == ["skill 'core' is protected"]
        assert applied["executionFailures"] == []
        assert "executionError" not in applied  # only when execution stopped
        assert applied["evidenceQuotes"] == 3  # carried by the accepted ops only
        assert applied["estimatedInputChars"] == len(child_request_text(host)) > 0
        assert applied["sessionId"] == agent.id and applied["kind"] == "memory"


async def test_plan_ids_are_unique_and_the_fingerprint_follows_the_policy(dsh_host: Any) -> None:
    async def ledger(**config: Any) -> list[dict[str, Any]]:
        async with evolution_host(dsh_host, plan_script(PLAN, repeat=True), **config) as (host, recorder):
            for _ in range(2):
                agent = await dsh_host.new_root(host)
                await say(host, agent, "hello there, a question")
            return recorder.named(PLAN_APPLIED)

    first, second = await ledger(**POLICY)
    assert first["planId"] != second["planId"]
    assert first["policyFingerprint"] == second["policyFingerprint"]
    [again, _] = await ledger(**POLICY)  # a new process state, the same policy: the same digest
    assert again["policyFingerprint"] == first["policyFingerprint"]
    [other, _] = await ledger(**POLICY, maxOpsPerPlan=7)
    assert other["policyFingerprint"] != first["policyFingerprint"]


class ExplodingWrites:
    """A skill library whose writes fail with an unexpected error (fault injection)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def write(self, name: str, content: str, *, origin: str) -> None:
        raise RuntimeError("disk on fire")


async def test_an_execution_that_stops_reports_its_error_and_what_landed(dsh_host: Any, dsh_home: Path) -> None:
    async with evolution_host(dsh_host, plan_script(PLAN), **POLICY) as (host, recorder):
        plugin = host.pm.get_plugin("evolution-review")
        library = ExplodingWrites(plugin.skills)
        plugin.controller.reviewer.skills = lambda: library
        agent = await dsh_host.new_root(host)
        await say(host, agent, "hello there, a question")
        [applied] = recorder.named(PLAN_APPLIED)
        assert applied["executionError"] == "RuntimeError: disk on fire"
        assert applied["memoryApplied"] == 1 and applied["skillApplied"] == []
        assert (dsh_home / "memory" / "USER.md").read_text() == "Prefers French.\n"
        [notice] = reviews(agent)  # the notice, not the fallback prompt: the memory note landed
        assert notice.startswith("💾 Self-improvement review: 1 memory note saved.")
        assert "stopped: RuntimeError: disk on fire" in notice
