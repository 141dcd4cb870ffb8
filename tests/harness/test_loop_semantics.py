"""Inbox wake semantics, cancellation, chain hooks and tool scheduling."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import trio

from harness.cleanup import CLEANUP_SECONDS, shielded_cleanup
from hookspecs import hookimpl
from hookspecs.errors import SessionError
from hookspecs.protocols import CreateAgentOptions
from hookspecs.values import (
    AgentOptions,
    CancelCause,
    Reject,
    ToolDefinition,
    create_user_message,
)

from .helpers import ECHO, ToolsPlugin, event_types, new_root, scripted_host


def user_texts(session: Any) -> list[str]:
    out = []
    for event in session.events:
        if event.type == "user/message":
            out.append(event.data["message"]["content"][0]["text"])
    return out


def turn_ends(session: Any) -> list[dict[str, Any]]:
    return [e.data["reason"] for e in session.events if e.type == "turn/end"]


async def test_inject_waits_for_a_wake(tmp_path: Path) -> None:
    async with scripted_host(tmp_path, ECHO) as (host, adapter):
        agent = (await new_root(host)).agent
        agent.inject(create_user_message("context"))
        await agent.when_idle()  # nothing woke the agent
        assert agent.status == "idle"
        assert agent.inbox.next_step and not adapter.requests
        agent.followup(create_user_message("question"))
        await agent.when_idle()
        assert user_texts(agent.session) == ["context", "question"]
        assert len(turn_ends(agent.session)) == 1


async def test_steer_wakes_an_idle_agent(tmp_path: Path) -> None:
    async with scripted_host(tmp_path, ECHO) as (host, _):
        agent = (await new_root(host)).agent
        agent.steer(create_user_message("go"))
        await agent.when_idle()
        assert user_texts(agent.session) == ["go"]
        assert turn_ends(agent.session) == [{"kind": "completed"}]


SLOW_FIRST = """
responses:
  - reply: {text: "first", delay_seconds: 10}
  - repeat: true
    reply: {text: "later"}
"""


async def test_steer_and_inject_join_the_running_turn(tmp_path: Path, autojump_clock: Any) -> None:
    async with scripted_host(tmp_path, SLOW_FIRST) as (host, adapter):
        agent = (await new_root(host)).agent
        agent.followup(create_user_message("start"))
        await trio.sleep(1)
        assert agent.status == "running"
        agent.steer(create_user_message("steered"))
        agent.inject(create_user_message("injected"))
        await agent.when_idle()
        # one turn, two steps: the second step entered both messages
        assert turn_ends(agent.session) == [{"kind": "completed"}]
        steps = [e.data for e in agent.session.events if e.type == "step/start"]
        assert steps == [{"turn": 1, "step": 0}, {"turn": 1, "step": 1}]
        assert user_texts(agent.session) == ["start", "steered", "injected"]
        assert len(adapter.requests) == 2


async def test_followup_during_a_turn_gets_its_own_turn(tmp_path: Path, autojump_clock: Any) -> None:
    async with scripted_host(tmp_path, SLOW_FIRST) as (host, _):
        agent = (await new_root(host)).agent
        agent.followup(create_user_message("one"))
        await trio.sleep(1)
        agent.followup(create_user_message("two"))
        await agent.when_idle()
        assert turn_ends(agent.session) == [{"kind": "completed"}, {"kind": "completed"}]
        starts = [e.data["turn"] for e in agent.session.events if e.type == "turn/start"]
        assert starts == [1, 2]


SLOW_TOOL_SCRIPT = """
responses:
  - match: {has_tools: [slow]}
    reply:
      tool_calls:
        - {name: slow, arguments: {}}
        - {name: slow, arguments: {}}
  - repeat: true
    reply: {text: "never"}
"""


class SlowToolPlugin:
    def __init__(self) -> None:
        self.started = 0
        self.cancelled = 0

    async def _slow(self, args: dict[str, Any], ctx: Any) -> str:
        self.started += 1
        try:
            await trio.sleep(100)
        except trio.Cancelled:
            self.cancelled += 1
            raise
        return "slept"

    @hookimpl
    def dsh_register_tools(self, register: Any) -> None:
        register(
            ToolDefinition(
                name="slow",
                description="sleeps",
                parameters={"type": "object", "properties": {}, "additionalProperties": False},
                execute=self._slow,
            )
        )


async def test_cancel_mid_tool_closes_everything(tmp_path: Path, autojump_clock: Any) -> None:
    plugin = SlowToolPlugin()
    async with scripted_host(tmp_path, SLOW_TOOL_SCRIPT, plugins=[("slow", plugin)]) as (host, adapter):
        agent = (await new_root(host)).agent
        agent.followup(create_user_message("run slow"))
        await trio.sleep(5)
        assert plugin.started == 1  # not concurrency-safe: the second waits
        assert agent.cancel(CancelCause(by="user"))
        await agent.when_idle()
        events = agent.session.events
        results = [e.data for e in events if e.type == "tool/result"]
        assert [r["error"]["code"] for r in results] == ["ABORTED", "ABORTED_BEFORE_DISPATCH"]
        assert [e.data["call_id"] for e in events if e.type == "tool/call"] == [r["call_id"] for r in results]
        assert event_types(agent.session)[-2:] == ["step/end", "turn/end"]
        assert turn_ends(agent.session) == [{"kind": "aborted", "by": "user"}]
        assert plugin.cancelled == 1
        assert len(adapter.requests) == 1
        # idle cancel is a no-op
        assert not agent.cancel(CancelCause(by="user"))


class ReentrantObserver:
    def __init__(self) -> None:
        self.errors: list[SessionError] = []

    @hookimpl
    def dsh_session_event(self, session: Any, event: Any) -> None:
        if event.type == "turn/start":
            try:
                session.append("turn/start", {"turn": 99})
            except SessionError as exc:
                self.errors.append(exc)


async def test_append_from_an_observer_is_refused(tmp_path: Path) -> None:
    observer = ReentrantObserver()
    async with scripted_host(tmp_path, ECHO, plugins=[("reentrant", observer)]) as (host, _):
        agent = (await new_root(host)).agent
        agent.followup(create_user_message("hi"))
        await agent.when_idle()
        assert len(observer.errors) == 1
        assert observer.errors[0].code == "SESSION_APPEND_REENTRANT"
        assert "host.spawn" in str(observer.errors[0])
        assert [e.data for e in agent.session.events if e.type == "turn/start"] == [{"turn": 1}]


class StoppingSteerer:
    def __init__(self) -> None:
        self.calls = 0

    @hookimpl
    def dsh_agent_turn_stopping(self, agent: Any, turn: int) -> None:
        self.calls += 1
        if self.calls == 1:
            agent.steer(create_user_message("one more step", source={"kind": "plugin", "plugin": "t"}))


async def test_turn_stopping_listener_forces_a_step(tmp_path: Path) -> None:
    steerer = StoppingSteerer()
    async with scripted_host(tmp_path, ECHO, plugins=[("steerer", steerer)]) as (host, adapter):
        agent = (await new_root(host)).agent
        agent.followup(create_user_message("hi"))
        await agent.when_idle()
        assert steerer.calls == 2
        assert len(adapter.requests) == 2
        assert user_texts(agent.session) == ["hi", "one more step"]
        assert turn_ends(agent.session) == [{"kind": "completed"}]


class Blocker:
    @hookimpl
    def dsh_agent_pre_step(self, agent: Any, messages: Any, call_next: Any) -> Any:
        return Reject(reason="policy says no")


async def test_pre_step_reject_blocks_the_turn(tmp_path: Path) -> None:
    async with scripted_host(tmp_path, ECHO, plugins=[("blocker", Blocker())]) as (host, adapter):
        agent = (await new_root(host)).agent
        agent.followup(create_user_message("hi"))
        await agent.when_idle()
        assert turn_ends(agent.session) == [{"kind": "blocked", "reason": "policy says no"}]
        assert not adapter.requests


RESTRICTED = """
responses:
  - match: {has_tools: [read]}
    reply:
      tool_calls: [{name: grep, arguments: {pattern: x}}]
  - repeat: true
    reply: {text: "done"}
"""


async def test_restrict_hides_and_refuses(tmp_path: Path) -> None:
    async with scripted_host(tmp_path, RESTRICTED) as (host, adapter):

        def setup(scope: Any) -> None:
            scope.tools.restrict(allow=["read"])

        handle = await host.agents.create(
            CreateAgentOptions(agent_options=AgentOptions(provider="scripted", model="m"), setup=setup)
        )
        agent = handle.agent
        agent.followup(create_user_message("search"))
        await agent.when_idle()
        offered = [t.name for t in adapter.requests[0].tools]
        assert offered == ["read"]
        result = next(e for e in agent.session.events if e.type == "tool/result")
        assert result.data["error"]["code"] == "UNKNOWN_TOOL"
        assert "'grep' is not available" in result.data["error"]["message"]
        await handle.dispose()
        # the scope unwound with the agent
        assert host.agents.get(agent.id) is None


ERRORING = """
responses:
  - reply:
      text: "partial"
      error: {message: "upstream exploded; Authorization: Bearer sk-abcdefghijkl", code: SERVER, status: 503, after_chunks: 1}
"""


async def test_llm_error_ends_the_turn_with_a_scrubbed_error(tmp_path: Path) -> None:
    async with scripted_host(tmp_path, ERRORING) as (host, _):
        agent = (await new_root(host)).agent
        agent.followup(create_user_message("hi"))
        await agent.when_idle()
        (reason,) = turn_ends(agent.session)
        assert reason["kind"] == "error"
        assert reason["error"]["code"] == "SERVER" and reason["error"]["status"] == 503
        assert "sk-abc" not in reason["error"]["message"]
        message = next(e for e in agent.session.events if e.type == "assistant/message")
        assert message.data["interrupted"] is True


PARALLEL = """
responses:
  - match: {has_tools: [read]}
    reply:
      tool_calls:
        - {name: read, arguments: {path: a.txt}}
        - {name: read, arguments: {path: b.txt}}
        - {name: read, arguments: {path: missing.txt}}
  - repeat: true
    reply: {text: "done"}
"""


async def test_results_commit_in_model_order(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "a.txt").write_text("a\n")
    (work / "b.txt").write_text("b\n")
    async with scripted_host(tmp_path, PARALLEL, workspace=work) as (host, adapter):
        agent = (await new_root(host)).agent
        agent.followup(create_user_message("read"))
        await agent.when_idle()
        calls = [e.data["call_id"] for e in agent.session.events if e.type == "tool/call"]
        results = [e.data for e in agent.session.events if e.type == "tool/result"]
        assert [r["call_id"] for r in results] == calls
        assert "error" not in results[0] and "error" not in results[1]
        assert results[2]["error"]["code"] in {"INVALID_ARGS", "TOOL_FAILED"}
        # the follow-up request carries every result, in order
        tool_messages = [m for m in adapter.requests[1].messages if m.role == "tool"]
        assert [m.content[0].tool_call_id for m in tool_messages] == calls


WRITE = """
responses:
  - match: {has_tools: [write]}
    reply:
      tool_calls: [{name: write, arguments: {path: out.txt, content: "x"}}]
  - repeat: true
    reply: {text: "done"}
"""


async def test_ask_fails_closed_without_an_approver(tmp_path: Path) -> None:
    async with scripted_host(tmp_path, WRITE) as (host, _):
        agent = (await new_root(host)).agent
        agent.followup(create_user_message("write"))
        await agent.when_idle()
        result = next(e for e in agent.session.events if e.type == "tool/result")
        assert result.data["error"]["code"] == "NOT_APPROVED"
        assert "no approver is available" in result.data["error"]["message"]
        assert not (tmp_path / "work" / "out.txt").exists()
        decided = next(e for e in agent.session.events if e.type == "approval/decided")
        assert decided.data["outcome"] == "unavailable"


async def test_shielded_cleanup_outlasts_a_cancelled_caller_but_not_its_bound(autojump_clock: Any) -> None:
    steps: list[str] = []
    start = trio.current_time()
    with trio.CancelScope() as caller:
        caller.cancel()
        with shielded_cleanup(10) as bound:
            await trio.sleep(5)
            steps.append("awaited through the caller's cancellation")
            await trio.sleep(100)
            steps.append("never")
    assert steps == ["awaited through the caller's cancellation"]
    assert bound.cancelled_caught
    assert trio.current_time() - start == 10


async def test_a_hung_dispose_callback_does_not_hold_disposal(tmp_path: Path, autojump_clock: Any) -> None:
    """Disposal stays shielded, but an ``on_dispose`` callback that never returns is
    abandoned after CLEANUP_SECONDS; the scope's registrations are still removed
    and the session is still closed."""
    release = trio.Event()  # set at the end, so a regression fails instead of hanging
    scoped = SlowToolPlugin()  # any plugin object: what matters is its registration

    async def hang() -> None:
        await release.wait()

    def setup(scope: Any) -> None:
        scope.add_plugin(scoped)
        scope.on_dispose(hang)

    async with scripted_host(tmp_path, ECHO) as (host, _):
        handle = await host.agents.create(
            CreateAgentOptions(agent_options=AgentOptions(provider="scripted", model="m"), setup=setup)
        )
        assert host.pm.is_registered(scoped)
        agent = handle.agent
        disposed = trio.Event()

        async def dispose() -> None:
            await handle.dispose()
            disposed.set()

        async with trio.open_nursery() as nursery:
            nursery.start_soon(dispose)
            await trio.sleep(CLEANUP_SECONDS + 1)
            finished = disposed.is_set()
            release.set()
        assert finished
        assert agent.session.closed and host.agents.get(agent.id) is None
        assert not host.pm.is_registered(scoped)


CHECKED_TOOL = """
responses:
  - match: {has_tools: [pick]}
    reply:
      tool_calls: [{name: pick, arguments: {kind: blue, low: 5, high: 1}}]
  - repeat: true
    reply: {text: "done"}
"""


async def test_schema_and_the_tools_own_check_report_together(tmp_path: Path) -> None:
    seen: list[dict[str, Any]] = []

    def check(args: dict[str, Any]) -> list[str]:
        seen.append(args)
        problems = ["low must not exceed high"] if args.get("low", 0) > args.get("high", 0) else []
        return [*problems, "kind: must be one of \"red\", got \"blue\""]  # a repeat of the schema's is dropped

    async def execute(args: dict[str, Any], ctx: Any) -> str:
        raise AssertionError("invalid arguments never execute")

    tool = ToolDefinition(
        name="pick",
        description="picks",
        parameters={"type": "object", "properties": {"kind": {"enum": ["red"]}, "low": {"type": "integer"}, "high": {"type": "integer"}}},
        execute=execute,
        check_arguments=check,
    )
    async with scripted_host(tmp_path, CHECKED_TOOL, plugins=[("tools", ToolsPlugin(tool))]) as (host, _):
        agent = (await new_root(host)).agent
        agent.followup(create_user_message("pick"))
        await agent.when_idle()
        (result,) = [e.data for e in agent.session.events if e.type == "tool/result"]
    assert seen == [{"kind": "blue", "low": 5, "high": 1}]  # it ran although the schema failed
    assert result["error"] == {
        "code": "INVALID_ARGS",
        "message": "invalid arguments for tool 'pick': kind: must be one of \"red\", got \"blue\"; low must not exceed high",
    }
