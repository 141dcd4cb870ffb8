"""Every outcome row of a reviewer run, each settling exactly once."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import trio

from hookspecs import hookimpl
from hookspecs.values import (
    Capabilities,
    Reject,
    SubagentResult,
    create_user_message,
)

from .helpers import new_root, settle, shadow_host, wait_for_stage, wait_for_waiting_report, write_definition

ROOT = """
  - match: {depth: 0, has_tools: [read], last_user_contains: "check"}
    reply:
      tool_calls: [{name: read, arguments: {path: notes.txt}}]
  - match: {depth: 0, last_user_contains: "check"}
    reply: {text: "All checked."}
  - match: {depth: 0}
    repeat: true
    reply: {text: "noted"}
"""


def script(reviewer: str) -> str:
    return "responses:\n" + ROOT + reviewer


class Settlements:
    def __init__(self, runtime: Any) -> None:
        self.counts: Counter[str] = Counter()
        self.entries: list[Any] = []
        self.epochs: list[int] = []
        runtime.governance.settle_listeners.append(self)

    def __call__(self, entry: Any) -> None:
        self.counts[entry.view.run_id] += 1
        self.entries.append(entry)
        self.epochs.append(entry.owner.epoch)

    def only(self) -> Any:
        assert len(self.entries) == 1, self.entries
        assert set(self.counts.values()) == {1}
        return self.entries[0].view


async def run_once(tmp_path: Path, reviewer: str, *, extra: str = "", config: dict[str, Any] | None = None, plugins: Any = (), during: Any = None) -> tuple[Any, Any, Any]:
    home = tmp_path / "home"
    write_definition(home, extra=extra)
    async with shadow_host(tmp_path, script(reviewer), home=home, config=config, plugins=plugins) as (host, adapter, runtime):
        settled = Settlements(runtime)
        root = await new_root(host)
        root.followup(create_user_message("please check the notes"))
        if during is not None:
            await during(host, runtime, root)
        await settle(host, root)
        view = settled.only()
        return view, root, runtime


def relays(root: Any) -> list[Any]:
    return [
        e for e in root.session.events
        if e.type == "user/message" and e.data["message"]["source"]["kind"] == "shadow-report"
    ]


async def test_silent_is_discarded_and_never_logged(tmp_path: Path, caplog: Any) -> None:
    view, root, _ = await run_once(
        tmp_path,
        """
  - match: {depth: 1}
    reply:
      tool_calls: [{name: structured_output, arguments: {status: silent, content: "long private musings"}}]
""",
    )
    assert (view.phase, view.stage, view.reason_code) == ("silent", "validate", None)
    assert not relays(root)
    assert any("non-empty content body" in r.getMessage() for r in caplog.records)
    assert "long private musings" not in caplog.text


async def test_not_relevant(tmp_path: Path) -> None:
    view, root, _ = await run_once(
        tmp_path,
        """
  - match: {depth: 1}
    reply:
      tool_calls: [{name: structured_output, arguments: {status: not_relevant, content: ""}}]
""",
    )
    assert (view.phase, view.stage) == ("not_relevant", "validate")
    assert not relays(root)


async def test_provider_error(tmp_path: Path) -> None:
    view, _, _ = await run_once(tmp_path, "  - match: {depth: 1}\n    reply: {error: {message: boom, code: X}}\n")
    assert (view.phase, view.stage, view.reason_code) == ("failed", "run", "PROVIDER_ERROR")
    assert view.provider_stop_reason == "error"
    assert view.error["message"] == "boom"


async def test_provider_max_tokens(tmp_path: Path) -> None:
    view, _, _ = await run_once(tmp_path, "  - match: {depth: 1}\n    reply: {text: cut, finish: max-tokens}\n")
    assert (view.phase, view.reason_code) == ("failed", "PROVIDER_MAX_TOKENS")


class RejectChildren:
    @hookimpl
    def dsh_agent_pre_step(self, agent: Any, call_next: Any) -> Any:
        if not agent.is_root:
            return Reject(reason="no reviewing today")
        return None


async def test_provider_refusal(tmp_path: Path) -> None:
    view, _, _ = await run_once(
        tmp_path, "  - match: {depth: 1}\n    reply: {text: x}\n", plugins=[("reject", RejectChildren())]
    )
    assert (view.phase, view.reason_code, view.provider_stop_reason) == ("failed", "PROVIDER_REFUSAL", "refusal")


async def test_missing_structured_output(tmp_path: Path) -> None:
    view, _, _ = await run_once(tmp_path, "  - match: {depth: 1}\n    repeat: true\n    reply: {text: 'I think it is fine.'}\n")
    assert (view.phase, view.stage, view.reason_code) == ("failed", "run", "STRUCTURED_OUTPUT_MISSING")
    assert "structured_output" in view.error["message"]


HANG = "  - match: {depth: 1}\n    reply: {text: 'looking...', hang: true}\n"


async def test_timeout(tmp_path: Path, autojump_clock: Any) -> None:
    view, root, _ = await run_once(tmp_path, HANG, extra="timeout_seconds: 30\n")
    assert (view.phase, view.stage, view.reason_code, view.cancellation_source) == (
        "aborted", "run", "SHADOW_TIMEOUT", "timeout",
    )
    assert not relays(root)


async def test_waiting_for_a_stage_never_reached_fails_instead_of_hanging(tmp_path: Path, autojump_clock: Any) -> None:
    # no user message: no review ever starts, so the wait must give up (in virtual time)
    async with shadow_host(tmp_path, script(HANG)) as (host, _, runtime):
        root = await new_root(host)
        with pytest.raises(AssertionError, match="gave up waiting for the review to reach stage 'run'"):
            await wait_for_stage(runtime, root, "run")


async def test_user_input_mid_run(tmp_path: Path, autojump_clock: Any) -> None:
    async def during(host: Any, runtime: Any, root: Any) -> None:
        await wait_for_stage(runtime, root, "run")
        root.followup(create_user_message("actually, stop"))

    view, root, runtime = await run_once(tmp_path, HANG, during=during)
    assert (view.phase, view.reason_code, view.cancellation_source) == (
        "aborted", "USER_MESSAGE_RECEIVED", "user-input",
    )
    # the new message got its own turn; the review never reached the root
    assert not relays(root)
    assert [e.data["reason"]["kind"] for e in root.session.events if e.type == "turn/end"] == ["completed", "completed"]


async def test_pause_mid_run(tmp_path: Path, autojump_clock: Any) -> None:
    async def during(host: Any, runtime: Any, root: Any) -> None:
        await wait_for_stage(runtime, root, "run")
        runtime.controls.pause(root)

    view, root, runtime = await run_once(tmp_path, HANG, during=during)
    assert (view.phase, view.reason_code, view.cancellation_source) == ("aborted", "SHADOW_PAUSED", "user-command")


async def test_root_disposal_mid_run(tmp_path: Path, autojump_clock: Any) -> None:
    home = tmp_path / "home"
    write_definition(home)
    async with shadow_host(tmp_path, script(HANG), home=home) as (host, _, runtime):
        settled = Settlements(runtime)
        root = await new_root(host)
        root.followup(create_user_message("please check the notes"))
        await wait_for_stage(runtime, root, "run")
        child_id = next(iter(runtime.owners[root.id].run.active.values())).view.child_session_id
        await host.agents.dispose(root)
        await host.wait_background_idle()
        view = settled.only()
        assert (view.phase, view.reason_code, view.cancellation_source) == ("aborted", "ROOT_DISPOSED", "root-lifecycle")
        assert host.agents.get(child_id) is None
        assert root.id not in runtime.owners


async def test_plugin_disposal_mid_run(tmp_path: Path, autojump_clock: Any) -> None:
    home = tmp_path / "home"
    write_definition(home)
    async with shadow_host(tmp_path, script(HANG), home=home) as (host, _, runtime):
        settled = Settlements(runtime)
        root = await new_root(host)
        root.followup(create_user_message("please check the notes"))
        await wait_for_stage(runtime, root, "run")
        # leaving the block disposes agents, then tears the plugin down
    view = settled.only()
    assert view.phase == "aborted"
    assert view.reason_code in ("ROOT_DISPOSED", "PLUGIN_DISPOSED")


REPORT = """
  - match: {depth: 1}
    reply:
      tool_calls:
        - name: structured_output
          arguments: {status: report, verdict: gap, refs: ["{{seq:tool call}}"], content: "evidence missing"}
"""


async def test_report_discarded_when_user_speaks_before_the_relay(tmp_path: Path, autojump_clock: Any) -> None:
    async def during(host: Any, runtime: Any, root: Any) -> None:
        await wait_for_waiting_report(runtime, root)
        root.followup(create_user_message("never mind"))

    view, root, _ = await run_once(tmp_path, REPORT, config={"resultBatchWindowMs": 5000}, during=during)
    assert (view.phase, view.stage, view.reason_code) == ("aborted", "relay", "USER_MESSAGE_RECEIVED")
    assert view.content is None and view.relayed is False
    assert not relays(root)


class FakeRun:
    def __init__(self, *, run_id: str = "child-1", result: Any = None, result_error: Exception | None = None, dispose_error: Exception | None = None) -> None:
        self.id = run_id
        self.local_agent = None
        self._result = result
        self._result_error = result_error
        self._dispose_error = dispose_error
        self.disposed = 0

    async def result(self) -> Any:
        if self._result_error:
            raise self._result_error
        return self._result

    async def dispose(self) -> None:
        self.disposed += 1
        if self._dispose_error:
            raise self._dispose_error


class FakeProvider:
    """A provider a deployment registered under the reserved name first."""

    name = "shadow-mind"
    stop_reasons = frozenset()

    def __init__(self, *, run: FakeRun | None = None, start_error: Exception | None = None, capabilities: dict[str, bool] | None = None) -> None:
        self.run = run
        self.start_error = start_error
        self.started = 0
        self.capabilities = capabilities or {
            Capabilities.OUTPUT_SCHEMA: True,
            Capabilities.DEPTH_LIMIT: True,
            Capabilities.TOOL_FILTER: True,
            Capabilities.MODEL_SELECTION: True,
            Capabilities.CONTEXT_INHERITANCE: True,
        }

    async def start(self, request: Any) -> Any:
        self.started += 1
        if self.start_error:
            raise self.start_error
        return self.run

    @hookimpl
    def dsh_register_subagent_providers(self, register: Any) -> None:
        register(self)


def report(**overrides: Any) -> SubagentResult:
    value = {"status": "report", "verdict": "challenge", "content": "x", "refs": [], **overrides}
    return SubagentResult(stop_reason="completed", structured=value)


async def test_capability_missing_fails_before_start(tmp_path: Path) -> None:
    provider = FakeProvider(run=FakeRun(result=report()))
    kept: list[bool] = []

    async def during(host: Any, runtime: Any, root: Any) -> None:
        # the deployment's provider was left in place
        kept.append(host.subagents.get("shadow-mind") is provider)

    view, _, runtime = await run_once(
        tmp_path, "", extra="think_first: true\n", plugins=[("external", provider)], during=during
    )
    assert (view.phase, view.stage, view.reason_code) == ("failed", "prepare", "MODEL_SELECTION_INVALID")
    assert "lacks required capabilities: think_first" in view.error["message"]
    assert provider.started == 0
    assert kept == [True]


async def test_external_provider_report_is_validated_again(tmp_path: Path) -> None:
    run = FakeRun(result=report(refs=[99999]))
    view, root, _ = await run_once(tmp_path, "", plugins=[("external", FakeProvider(run=run))])
    assert (view.phase, view.stage, view.reason_code) == ("failed", "validate", "INVALID_STRUCTURED_OUTPUT")
    assert "refs[0] 99999 is not a rendered trajectory seq" in view.error["message"]
    assert run.disposed == 1
    assert not relays(root)


async def test_start_failure(tmp_path: Path) -> None:
    provider = FakeProvider(start_error=RuntimeError("no capacity at /srv/secret/path token=abc123"))
    view, _, _ = await run_once(tmp_path, "", plugins=[("external", provider)])
    assert (view.phase, view.stage, view.reason_code) == ("failed", "start", "SUBAGENT_START_FAILED")
    assert "/srv/secret" not in view.error["message"] and "abc123" not in view.error["message"]


async def test_result_failure(tmp_path: Path) -> None:
    run = FakeRun(result_error=RuntimeError("lost the child"))
    view, _, _ = await run_once(tmp_path, "", plugins=[("external", FakeProvider(run=run))])
    assert (view.phase, view.stage, view.reason_code) == ("failed", "run", "SUBAGENT_RESULT_FAILED")
    assert run.disposed == 1


async def test_dispose_failure(tmp_path: Path) -> None:
    run = FakeRun(result=report(), dispose_error=RuntimeError("stuck"))
    view, _, _ = await run_once(tmp_path, "", plugins=[("external", FakeProvider(run=run))])
    assert (view.phase, view.stage, view.reason_code) == ("failed", "dispose", "SUBAGENT_DISPOSE_FAILED")


async def test_report_without_a_child_session_is_invalid(tmp_path: Path) -> None:
    run = FakeRun(run_id="", result=report())
    view, _, _ = await run_once(tmp_path, "", plugins=[("external", FakeProvider(run=run))])
    assert (view.phase, view.stage, view.reason_code) == ("failed", "validate", "INVALID_REPORT")


async def test_provider_aborted_stop(tmp_path: Path) -> None:
    run = FakeRun(result=SubagentResult(stop_reason="aborted"))
    view, _, _ = await run_once(tmp_path, "", plugins=[("external", FakeProvider(run=run))])
    assert (view.phase, view.stage, view.reason_code, view.cancellation_source) == (
        "aborted", "run", "PROVIDER_ABORTED", "provider",
    )


async def test_unknown_stop_reason(tmp_path: Path) -> None:
    run = FakeRun(result=SubagentResult(stop_reason="vendor-quota"))
    view, _, _ = await run_once(tmp_path, "", plugins=[("external", FakeProvider(run=run))])
    assert (view.phase, view.reason_code) == ("failed", "PROVIDER_STOPPED")


async def test_batcher_stopped(tmp_path: Path, autojump_clock: Any) -> None:
    run = FakeRun(result=report())

    class SlowProvider(FakeProvider):
        async def start(self, request: Any) -> Any:
            await trio.sleep(5)
            return await super().start(request)

    provider = SlowProvider(run=run)

    async def during(host: Any, runtime: Any, root: Any) -> None:
        await wait_for_stage(runtime, root, "start")
        await runtime.owners[root.id].output.batcher.dispose()

    view, _, _ = await run_once(tmp_path, "", plugins=[("external", provider)], during=during)
    assert (view.phase, view.stage, view.reason_code) == ("failed", "relay", "REPORT_DELIVERY_FAILED")
    assert view.error["message"] == "Shadow report batcher is stopped"


async def test_ineligible_turns_never_schedule(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_definition(home)
    text_only = "responses:\n  - repeat: true\n    match: {depth: 0}\n    reply: {text: hello}\n"
    async with shadow_host(tmp_path, text_only, home=home) as (host, adapter, runtime):
        root = await new_root(host)
        root.followup(create_user_message("hi"))
        await settle(host, root)
        assert runtime.controls.status(root)["total_runs"] == 0
        assert len(adapter.requests) == 1
