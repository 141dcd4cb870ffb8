"""The subagent runtime: capability checks, depth, policy, restriction, disposal,
structured output, and the model-facing ``subagent`` tool."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import trio

from hookspecs import hookimpl
from hookspecs.errors import SubagentError
from hookspecs.values import (
    CancelToken,
    Capabilities,
    SubagentRequest,
    TextBlock,
    ToolFilter,
    create_user_message,
)

from .helpers import new_root, scripted_host

SCHEMA = {
    "type": "object",
    "properties": {"answer": {"type": "string"}, "score": {"type": "integer", "minimum": 0}},
    "required": ["answer", "score"],
    "additionalProperties": False,
}


def request(parent: Any, **kw: Any) -> SubagentRequest:
    return SubagentRequest(
        label=kw.pop("label", "test"),
        prompt=(TextBlock(text=kw.pop("prompt", "do the thing")),),
        parent=parent,
        cancel=kw.pop("cancel", CancelToken()),
        **kw,
    )


def driver_tasks(host: Any) -> int:
    return len(host.runtime.nursery.child_tasks)


class CountingProvider:
    name = "limited"
    capabilities = {Capabilities.OUTPUT_SCHEMA: True}
    stop_reasons = frozenset()

    def __init__(self) -> None:
        self.started = 0

    async def start(self, req: Any) -> Any:
        self.started += 1
        raise AssertionError("must not start")


class ProviderPlugin:
    def __init__(self, provider: Any) -> None:
        self.provider = provider

    @hookimpl
    def dsh_register_subagent_providers(self, register: Any) -> None:
        register(self.provider)


async def test_capabilities_are_checked_before_the_provider_starts(tmp_path: Path) -> None:
    provider = CountingProvider()
    async with scripted_host(tmp_path, "responses: []", plugins=[("p", ProviderPlugin(provider))]) as (host, _):
        root = (await new_root(host)).agent
        with pytest.raises(SubagentError) as info:
            await host.subagents.start("limited", request(root, persona="x", extensions={"think_first": True}))
        assert info.value.code == "UNSUPPORTED_CAPABILITY"
        assert "persona, think_first" in str(info.value)
        with pytest.raises(SubagentError) as missing:
            await host.subagents.start("nope", request(root))
        assert missing.value.code == "NO_PROVIDER"
        with pytest.raises(SubagentError) as dup:
            host.subagents.register_provider(CountingProvider())
        assert dup.value.code == "DUPLICATE_PROVIDER"
        with pytest.raises(SubagentError) as schema:
            await host.subagents.start("limited", request(root, output_schema={"type": "object", "oneOf": []}))
        assert schema.value.code == "INVALID_OUTPUT_SCHEMA"
        assert provider.started == 0


async def test_depth_cap_zero_refuses_every_spawn(tmp_path: Path) -> None:
    async with scripted_host(tmp_path, "responses: []") as (host, _):
        root = (await new_root(host)).agent
        tasks = driver_tasks(host)
        with pytest.raises(SubagentError) as info:
            await host.subagents.start("spawn", request(root, max_depth=0))
        assert info.value.code == "DEPTH_EXCEEDED"
        assert driver_tasks(host) == tasks
        assert [s.id for s in host.sessions.list()] == [root.id]


CHILD_ANSWERS = """
responses:
  - match: {depth: 1}
    repeat: true
    reply: {text: "child answer"}
"""


async def test_spawned_child_metadata_and_result(tmp_path: Path) -> None:
    async with scripted_host(tmp_path, CHILD_ANSWERS) as (host, adapter):
        root = (await new_root(host)).agent
        run = await host.subagents.start("spawn", request(root, persona="You are terse.", label="helper"))
        child = run.local_agent
        header = child.session.header
        assert header.origin == "subagent" and header.parent_session == root.id and header.delegation_depth == 1
        result = await run.result()
        assert result.stop_reason == "completed"
        assert [b.text for b in result.output] == ["child answer"]
        types = [e.type for e in child.session.events]
        assert types[:2] == ["approval/policy", "turn/start"]
        assert "subagent/descriptor" in types
        assert "You are terse." in adapter.requests[0].system
        assert "delegated subagent" in adapter.requests[0].system
        await run.dispose()
        await run.dispose()  # idempotent
        assert host.agents.get(child.id) is None


RESTRICTED_CHILD = """
responses:
  - match: {depth: 1, has_tools: [read]}
    reply:
      tool_calls: [{name: bash, arguments: {command: "touch pwned"}}]
  - match: {depth: 1}
    repeat: true
    reply: {text: "done"}
"""


async def test_restricted_child_cannot_run_a_hidden_tool(tmp_path: Path) -> None:
    async with scripted_host(tmp_path, RESTRICTED_CHILD) as (host, adapter):
        root = (await new_root(host)).agent
        run = await host.subagents.start("spawn", request(root, tool_filter=ToolFilter.of(["read", "grep"])))
        try:
            await run.result()
        finally:
            await run.dispose()
        offered = [t.name for t in adapter.requests[0].tools]
        assert offered == ["grep", "read"]
        result = next(e for e in run.local_agent.session.events if e.type == "tool/result")
        assert result.data["error"]["code"] == "UNKNOWN_TOOL"
        assert not (tmp_path / "work" / "pwned").exists()


CHILD_WRITES = """
responses:
  - match: {depth: 1}
    reply:
      tool_calls: [{name: write, arguments: {path: x.txt, content: "x"}}]
  - match: {depth: 1}
    repeat: true
    reply: {text: "done"}
"""


class EverythingApprover:
    def __init__(self) -> None:
        self.asked = 0

    @hookimpl
    def dsh_approval_request(self, request: Any) -> str:
        self.asked += 1
        return "allowed-once"


async def test_delegated_approval_never_holds(tmp_path: Path) -> None:
    approver = EverythingApprover()
    async with scripted_host(tmp_path, CHILD_WRITES, plugins=[("approver", approver)]) as (host, _):
        root = (await new_root(host)).agent
        # write is root-only; a child that is not restricted from it still may
        # not run it, and nobody is asked on its behalf
        run = await host.subagents.start("spawn", request(root))
        try:
            await run.result()
        finally:
            await run.dispose()
        result = next(e for e in run.local_agent.session.events if e.type == "tool/result")
        assert result.data["error"]["code"] == "UNKNOWN_TOOL"
        assert approver.asked == 0


class ChildOnlyTool:
    """A tool every agent sees; children must still never get approvals."""

    @hookimpl
    def dsh_register_tools(self, register: Any) -> None:
        from hookspecs.values import ToolDefinition

        async def run(args: dict[str, Any], ctx: Any) -> str:
            return "ran"

        register(
            ToolDefinition(
                name="deploy",
                description="needs approval",
                parameters={"type": "object", "properties": {}, "additionalProperties": False},
                execute=run,
                requires_approval=True,
            )
        )


CHILD_DEPLOYS = """
responses:
  - match: {depth: 1, has_tools: [deploy]}
    reply:
      tool_calls: [{name: deploy, arguments: {}}]
  - match: {depth: 1}
    repeat: true
    reply: {text: "done"}
"""


async def test_child_approval_requests_are_rejected_without_asking(tmp_path: Path) -> None:
    approver = EverythingApprover()
    async with scripted_host(
        tmp_path, CHILD_DEPLOYS, plugins=[("approver", approver), ("deploy", ChildOnlyTool())]
    ) as (host, _):
        root = (await new_root(host)).agent
        run = await host.subagents.start("spawn", request(root))
        try:
            await run.result()
        finally:
            await run.dispose()
        events = run.local_agent.session.events
        result = next(e for e in events if e.type == "tool/result")
        assert result.data["error"]["code"] == "NOT_APPROVED"
        decided = next(e for e in events if e.type == "approval/decided")
        assert decided.data["outcome"] == "rejected"
        assert approver.asked == 0


HANGING_CHILD = """
responses:
  - match: {depth: 1}
    reply: {text: "thinking...", hang: true}
"""


async def test_dispose_after_cancellation_leaves_no_task(tmp_path: Path, autojump_clock: Any) -> None:
    async with scripted_host(tmp_path, HANGING_CHILD) as (host, _):
        root = (await new_root(host)).agent
        baseline = driver_tasks(host)
        token = CancelToken()
        run = await host.subagents.start("spawn", request(root, cancel=token))
        assert driver_tasks(host) == baseline + 1
        await trio.sleep(5)
        token.cancel("parent said stop")
        result = await run.result()
        assert result.stop_reason == "aborted"
        await run.dispose()
        assert driver_tasks(host) == baseline
        end = [e for e in run.local_agent.session.events if e.type == "turn/end"][-1]
        assert end.data["reason"]["kind"] == "aborted" and end.data["reason"]["by"] == "parent"


async def test_dispose_after_a_timeout_leaves_no_task(tmp_path: Path, autojump_clock: Any) -> None:
    async with scripted_host(tmp_path, HANGING_CHILD) as (host, _):
        root = (await new_root(host)).agent
        baseline = driver_tasks(host)
        run = await host.subagents.start("spawn", request(root))
        with trio.move_on_after(30) as scope:
            await run.result()
        assert scope.cancelled_caught
        await run.dispose()
        assert driver_tasks(host) == baseline
        assert (await run.result()).stop_reason == "aborted"


async def test_cancel_before_the_turn_starts_drops_the_prompt(tmp_path: Path) -> None:
    async with scripted_host(tmp_path, CHILD_ANSWERS) as (host, adapter):
        root = (await new_root(host)).agent
        token = CancelToken()
        run = await host.subagents.start("spawn", request(root, cancel=token))
        token.cancel("changed my mind")  # before the driver ran
        result = await run.result()
        await run.dispose()
        assert result.stop_reason == "aborted"
        assert not adapter.requests


FAILING_CHILD = """
responses:
  - match: {depth: 1}
    reply: {error: {message: "model down", code: SERVER, status: 500}}
"""


async def test_provider_failure_is_a_result_not_an_exception(tmp_path: Path) -> None:
    async with scripted_host(tmp_path, FAILING_CHILD) as (host, _):
        root = (await new_root(host)).agent
        baseline = driver_tasks(host)
        run = await host.subagents.start("spawn", request(root))
        result = await run.result()
        await run.dispose()
        assert result.stop_reason == "error" and result.diagnostic == "model down"
        assert driver_tasks(host) == baseline


STRUCTURED = """
responses:
  - match: {depth: 1, has_tools: [structured_output]}
    reply:
      tool_calls: [{name: structured_output, arguments: {answer: 3, score: -1, extra: true}}]
  - match: {depth: 1, has_tools: [structured_output]}
    reply:
      tool_calls:
        - {name: structured_output, arguments: {answer: "42", score: 7}}
        - {name: read, arguments: {path: x}}
  - match: {depth: 1}
    repeat: true
    reply: {text: "never reached"}
"""


async def test_structured_output_collects_violations_concludes_and_guards(tmp_path: Path) -> None:
    async with scripted_host(tmp_path, STRUCTURED) as (host, adapter):
        root = (await new_root(host)).agent
        run = await host.subagents.start("spawn", request(root, output_schema=SCHEMA))
        result = await run.result()
        await run.dispose()
        assert result.stop_reason == "completed"
        assert result.structured == {"answer": "42", "score": 7}
        results = [e.data for e in run.local_agent.session.events if e.type == "tool/result"]
        first = results[0]["error"]
        assert first["code"] == "INVALID_ARGS"
        for fragment in ("answer", "score", "extra"):
            assert fragment in first["message"]
        assert "error" not in results[1]
        assert results[2]["error"]["code"] == "DENIED"
        assert "structured output already recorded" in results[2]["error"]["message"]
        # the valid call concluded the turn: no third model request
        assert len(adapter.requests) == 2


NO_OUTPUT = """
responses:
  - match: {depth: 1}
    repeat: true
    reply: {text: "I just answer in prose"}
"""


async def test_missing_structured_output_has_its_own_stop_reason(tmp_path: Path) -> None:
    async with scripted_host(tmp_path, NO_OUTPUT) as (host, _):
        root = (await new_root(host)).agent
        run = await host.subagents.start("spawn", request(root, output_schema=SCHEMA))
        result = await run.result()
        await run.dispose()
        assert result.stop_reason == "no-structured-output"
        assert "structured_output" in (result.diagnostic or "")


class Lifecycle:
    def __init__(self) -> None:
        self.started: list[str] = []
        self.ended: list[tuple[str, str]] = []

    @hookimpl
    def dsh_subagent_started(self, parent: Any, run: Any) -> None:
        self.started.append(run.id)

    @hookimpl
    def dsh_subagent_ended(self, run: Any, result: Any) -> None:
        self.ended.append((run.id, result.stop_reason))


ROOT_DELEGATES = """
responses:
  - match: {depth: 0, last_user_contains: "delegate"}
    reply:
      tool_calls: [{name: subagent, arguments: {prompt: "count the files", label: counter}}]
  - match: {depth: 1}
    reply: {text: "there are 3 files"}
  - match: {depth: 0}
    reply: {text: "the helper says 3"}
"""


async def test_subagent_tool_delegates_and_always_disposes(tmp_path: Path) -> None:
    from harness.subagents.tool_plugin import SubagentToolPlugin

    lifecycle = Lifecycle()
    async with scripted_host(
        tmp_path, ROOT_DELEGATES, plugins=[("tool-subagent", SubagentToolPlugin()), ("life", lifecycle)]
    ) as (host, adapter):
        root = (await new_root(host)).agent
        baseline = driver_tasks(host)
        root.followup(create_user_message("please delegate this"))
        await root.when_idle()
        result = next(e for e in root.session.events if e.type == "tool/result")
        assert "error" not in result.data
        assert "there are 3 files" in result.data["message"]["content"][0]["content"][0]["text"]
        assert driver_tasks(host) == baseline
        assert len(lifecycle.started) == 1
        assert lifecycle.ended == [(lifecycle.started[0], "completed")]
        assert [r.metadata["delegation_depth"] for r in adapter.requests] == [0, 1, 0]
