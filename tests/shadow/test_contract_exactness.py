"""Contract exactness on a real host (issue 11): every violation of the output
contract in one tool result, unknown reviewer tools, the planning request's own
prompt and a failed review's cause."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hookspecs.values import create_user_message
from shadow_mind_plugin.contract import STRUCTURED_OUTPUT_INSTRUCTION
from shadow_mind_plugin.governance.cards import render_card
from shadow_mind_plugin.governance.safe_errors import MAX_CAUSE_CHARS, one_line_cause
from shadow_mind_plugin.run.provider import PLANNING_INSTRUCTION

from .helpers import new_root, settle, shadow_host, write_definition
from .test_outcomes import Settlements, run_once, script


def _tool_errors(host: Any, session_id: str) -> list[dict[str, Any]]:
    _, events = host.sessions.read(session_id)
    return [e.data["error"] for e in events if e.type == "tool/result" and "error" in e.data]


async def test_schema_and_contract_violations_arrive_in_one_result(tmp_path: Path) -> None:
    # a bad verdict enum (the schema's layer) next to blank content, an out-of-range
    # severity and descending refs (the contract's layer): one retry fixes all
    reviewer = """
  - match: {depth: 1}
    reply:
      tool_calls: [{name: structured_output, arguments: {status: report, content: " ", verdict: maybe, severity: 2, refs: [3, 1]}}]
  - match: {depth: 1}
    reply:
      tool_calls: [{name: structured_output, arguments: {status: silent, content: ""}}]
"""
    home = tmp_path / "home"
    write_definition(home)
    async with shadow_host(tmp_path, script(reviewer), home=home) as (host, adapter, runtime):
        settled = Settlements(runtime)
        root = await new_root(host)
        root.followup(create_user_message("please check the notes"))
        await settle(host, root)
        view = settled.only()
        assert view.phase == "silent"
        errors = _tool_errors(host, view.child_session_id)
    assert len(errors) == 1, errors
    message = errors[0]["message"]
    assert errors[0]["code"] == "INVALID_ARGS"
    for fragment in (
        "verdict: must be one of",  # the schema
        'a "report" requires non-empty content',  # the contract
        "severity must be a finite number from 0 through 1",
        "refs must be strictly ascending",
    ):
        assert fragment in message, message


FAILING_PROVIDER = """
  - match: {depth: 1}
    reply: {error: {message: "upstream said no\\n\\tretry later \\u001b[31m with key sk-live-abcdefghijklmnopqrstuvwx at /srv/keys/prod.pem", code: X}}
"""


async def test_a_failed_review_shows_a_scrubbed_one_line_cause(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_definition(home)
    async with shadow_host(tmp_path, script(FAILING_PROVIDER), home=home) as (host, _, runtime):
        settled = Settlements(runtime)
        root = await new_root(host)
        root.followup(create_user_message("please check the notes"))
        await settle(host, root)
        view = settled.only()
        assert view.reason_code == "PROVIDER_ERROR"
        card = host.client.cards(root.id)[-1]
        status = await host.commands.execute(root, "/shadow status")
        cycles = await host.commands.execute(root, "/shadow cycles")
    cause = view.cause
    assert cause.startswith("upstream said no retry later \\x1b[31m with key ")
    assert "sk-live" not in cause and "/srv/keys" not in cause
    assert "\n" not in cause and "\x1b" not in cause and len(cause) <= 200
    assert card.data["runs"][0]["cause"] == cause  # additive: the card's view model carries it
    assert render_card(card) == f"◇ Shadow review @{card.anchor_seq}: Reviewer failed [PROVIDER_ERROR]: {cause}"
    assert status is not None and f"  cause: {cause}" in status.text.splitlines()
    assert cycles is not None and f"    cause: {cause}" in cycles.text.splitlines()


def test_the_cause_is_bounded() -> None:
    cause = one_line_cause({"name": "Error", "message": "x" * 600, "causes": [{"name": "E", "message": "y"}]})
    assert cause is not None and len(cause) == MAX_CAUSE_CHARS and cause.endswith("…")
    grouped = one_line_cause({"name": "AggregateError", "message": "Shadow run and disposal failed", "causes": [{"name": "E", "message": "boom"}, {"name": "E", "message": "late"}]})
    assert grouped == "Shadow run and disposal failed: boom; late"
    assert one_line_cause({"name": "TimeoutError", "message": " \n "}) == "TimeoutError"  # no message: its name
    assert one_line_cause(None) is None and one_line_cause({"message": ""}) is None


PLAN_THEN_ANSWER = """
  - match: {depth: 1, has_tools: [structured_output]}
    reply:
      tool_calls: [{name: structured_output, arguments: {status: silent, content: ""}}]
  - match: {depth: 1}
    reply: {text: "1. verify seq 3"}
"""


async def test_the_planning_request_describes_itself(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_definition(home, extra="think_first: true\n")
    async with shadow_host(tmp_path, script(PLAN_THEN_ANSWER), home=home) as (host, adapter, runtime):
        settled = Settlements(runtime)
        root = await new_root(host)
        root.followup(create_user_message("please check the notes"))
        await settle(host, root)
        assert settled.only().phase == "silent"
    plan, answer = [r for r in adapter.requests if r.metadata["delegation_depth"] == 1]
    assert plan.tools == ()
    # no tools are offered, so the plan request must not demand a tool call
    assert STRUCTURED_OUTPUT_INSTRUCTION not in plan.system and "MUST" not in plan.system
    assert PLANNING_INSTRUCTION in plan.system
    assert STRUCTURED_OUTPUT_INSTRUCTION in answer.system and PLANNING_INSTRUCTION not in answer.system
    assert "structured_output" in {t.name for t in answer.tools}


async def test_a_definition_tool_the_host_does_not_offer_fails_the_run(tmp_path: Path) -> None:
    # `write` exists but is root-only; `web_fetch` does not exist: neither may be dropped silently
    reviewer = "  - match: {depth: 1}\n    repeat: true\n    reply: {text: never asked}\n"
    view, _, _ = await run_once(tmp_path, reviewer, extra="tools: [grep, web_fetch, write]\n")
    assert (view.phase, view.stage, view.reason_code) == ("failed", "start", "SUBAGENT_START_FAILED")
    assert view.child_session_id is None  # no child was started
    assert view.error["code"] == "UNKNOWN_REVIEWER_TOOLS"
    assert view.cause == (
        "the definition's tools list 'web_fetch', 'write', which this host does not offer to a reviewer; "
        "reviewer tools here: glob, grep, read"
    )


def test_folding_the_cause_cannot_rebuild_a_holdout_literal() -> None:
    # redacted before folding, "alpha\nbeta" would become the key "alpha beta"
    error = {"name": "Error", "message": "saw alpha\nbeta here"}
    assert one_line_cause(error, holdout_keys=("alpha beta",)) == "saw [redacted holdout] here"
    assert one_line_cause(error) == "saw alpha beta here"
