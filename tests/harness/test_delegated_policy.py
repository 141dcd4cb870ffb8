"""The delegated policy a child inherits: the parent's latest sandbox mode,
found without walking the parent's whole log on every spawn."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, overload

from harness.subagents.toolkit import LatestSandboxMode
from hookspecs.values import CancelToken, EventTypes, SessionEvent, SubagentRequest, TextBlock

from .helpers import new_root, scripted_host


class CountingEvents(Sequence[SessionEvent]):
    """A log's events that count how many events a reader was handed."""

    def __init__(self, items: list[SessionEvent]) -> None:
        self.items = items
        self.handed = 0

    def __len__(self) -> int:
        return len(self.items)

    @overload
    def __getitem__(self, index: int) -> SessionEvent: ...

    @overload
    def __getitem__(self, index: slice) -> list[SessionEvent]: ...

    def __getitem__(self, index: Any) -> Any:
        out = self.items[index]
        self.handed += len(out) if isinstance(index, slice) else 1
        return out


class FakeSession:
    def __init__(self) -> None:
        self.events = CountingEvents([])

    def add(self, type_: str, data: Any) -> None:
        items = self.events.items
        items.append(SessionEvent(type=type_, seq=len(items), time=0.0, data=data))


def test_a_second_question_reads_only_the_new_events() -> None:
    session = FakeSession()
    session.add(EventTypes.SANDBOX_MODE, {"mode": "read-only", "source": "cli"})
    for turn in range(1000):
        session.add(EventTypes.TURN_START, {"turn": turn})
    latest = LatestSandboxMode()
    assert latest.of(session) == "read-only"
    session.events.handed = 0
    for turn in range(5):
        session.add(EventTypes.TURN_START, {"turn": turn})
    assert latest.of(session) == "read-only"
    assert session.events.handed <= 5  # not the 1,000 events behind them
    session.add(EventTypes.SANDBOX_MODE, {"mode": "workspace-write", "source": "cli"})
    session.add(EventTypes.TURN_START, {"turn": 9})
    assert latest.of(session) == "workspace-write"
    session.add(EventTypes.SANDBOX_MODE, {"mode": "", "source": "cli"})
    assert latest.of(session) is None  # an empty mode clears it, as before


def test_a_shorter_log_is_read_again() -> None:
    first, second = FakeSession(), FakeSession()
    first.add(EventTypes.SANDBOX_MODE, {"mode": "read-only"})
    first.add(EventTypes.TURN_START, {})
    latest = LatestSandboxMode()
    assert latest.of(first) == "read-only"
    assert latest.of(second) is None
    second.events = CountingEvents([SessionEvent(type=EventTypes.TURN_START, seq=0, time=0.0, data={})])
    assert latest.of(second) is None


CHILD = """
responses:
  - match: {depth: 1}
    repeat: true
    reply: {text: "child answer"}
"""


async def test_children_inherit_the_parent_latest_sandbox_mode(tmp_path: Path) -> None:
    async with scripted_host(tmp_path, CHILD) as (host, _adapter):
        root = (await new_root(host)).agent
        modes = []
        for mode in ("read-only", None, "workspace-write"):
            if mode is not None:
                root.session.append(EventTypes.SANDBOX_MODE, {"mode": mode, "source": "cli"})
            req = SubagentRequest(label="t", prompt=(TextBlock(text="go"),), parent=root, cancel=CancelToken())
            run = await host.subagents.start("spawn", req)
            child = run.local_agent
            await run.result()
            modes.append([e.data["mode"] for e in child.session.events if e.type == EventTypes.SANDBOX_MODE])
            await run.dispose()
        assert modes == [["read-only"], ["read-only"], ["workspace-write"]]


async def test_the_approval_policy_follows_the_newest_policy_event(tmp_path: Path) -> None:
    """The agent's approval policy comes from the tracker: each agent reads its
    own log, a policy appended after earlier questions wins, a delegated child
    says never from its first question, and so does its log resumed."""
    async with scripted_host(tmp_path, CHILD) as (host, _adapter):
        root = (await new_root(host)).agent
        other = (await new_root(host)).agent
        assert root.approval_policy == "ask"
        for turn in range(50):
            root.session.append(EventTypes.TURN_START, {"turn": turn})
            assert root.approval_policy == "ask"
        root.session.append(EventTypes.APPROVAL_POLICY, {"policy": "never", "source": "test"})
        assert root.approval_policy == "never" and other.approval_policy == "ask"
        root.session.append(EventTypes.TURN_START, {"turn": 50})
        assert root.approval_policy == "never"
        root.session.append(EventTypes.APPROVAL_POLICY, {"policy": "ask", "source": "test"})
        assert root.approval_policy == "ask"
        req = SubagentRequest(label="t", prompt=(TextBlock(text="go"),), parent=root, cancel=CancelToken())
        run = await host.subagents.start("spawn", req)
        child = run.local_agent
        assert child.approval_policy == "never"
        await run.result()
        assert child.approval_policy == "never"
        child_id = child.id
        await run.dispose()
        resumed = await host.agents.resume(child_id)
        try:
            assert resumed.agent.approval_policy == "never"
        finally:
            await resumed.dispose()
