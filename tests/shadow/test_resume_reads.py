"""What Shadow Mind reads of a resumed long root (issue 20, items 1 and 8a).

A turn whose review is not admitted reads only the newest events (nothing
projects the resumed log in the background any more), and the first review
after a resume renders only what its bounded prompt shows, framing the prompt
a projection of the whole log frames."""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from harness.sessions.log import SessionLog
from hookspecs.values import AgentOptions, SessionEvent
from shadow_mind_plugin.projection import IncrementalProjector, project
from shadow_mind_plugin.projection_tail import TailProjection
from shadow_mind_plugin.prompt import build_prompt
from shadow_mind_plugin.utf16 import u16len

from .helpers import new_root, write_definition
from .test_governance_runtime import reviewer, root_turns, run_host, turn

TURNS = 800  # four events a turn: a log the projector takes from its end
PLUGIN = "shadow_mind_plugin"


def _history_turn(session: Any, n: int) -> None:
    session.append("turn/start", {"turn": n})
    message = {
        "id": f"u{n}",
        "role": "user",
        "content": [{"type": "text", "text": f"question {n} über"}],
        "source": {"kind": "user"},
    }
    session.append("user/message", {"turn": n, "step": 0, "message": message})
    answer = {
        "id": f"a{n}",
        "role": "assistant",
        "content": [{"type": "text", "text": f"answer {n}"}],
        "source": {"kind": "model"},
    }
    session.append("assistant/message", {"turn": n, "step": 0, "message": answer, "stop": "stop"})
    session.append("turn/end", {"turn": n, "reason": {"kind": "completed"}})


class Reads:
    """Which event indexes code under ``shadow_mind_plugin`` was handed."""

    def __init__(self) -> None:
        self.indexes: set[int] = set()
        self.on = False
        #: the session whose reads count (None: every session's)
        self.only: str | None = None

    def note(self, indexes: range, session_id: str) -> None:
        if self.on and self.only in (None, session_id) and _from_plugin():
            self.indexes.update(indexes)


def _from_plugin() -> bool:
    frame = sys._getframe(2)
    while frame is not None:
        if frame.f_globals.get("__name__", "").startswith(PLUGIN):
            return True
        frame = frame.f_back  # type: ignore[assignment]
    return False


class CountingEvents(Sequence[SessionEvent]):
    def __init__(self, events: Sequence[SessionEvent], reads: Reads, session_id: str) -> None:
        self._events, self._reads, self._id = events, reads, session_id

    def __len__(self) -> int:
        return len(self._events)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            self._reads.note(range(*index.indices(len(self._events))), self._id)
        else:
            self._reads.note(range(index % len(self._events), index % len(self._events) + 1), self._id)
        return self._events[index]

    def __iter__(self) -> Iterator[SessionEvent]:
        for index, event in enumerate(self._events):
            self._reads.note(range(index, index + 1), self._id)
            yield event


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> Reads:
    counted = Reads()
    plain = SessionLog.events.fget
    assert plain is not None
    monkeypatch.setattr(SessionLog, "events", property(lambda log: CountingEvents(plain(log), counted, log.id)))
    return counted


async def _long_root(tmp_path: Path, home: Path, script: str) -> str:
    async def build(host: Any, runtime: Any, adapter: Any) -> str:
        root = await new_root(host, model="root-model")
        for n in range(TURNS):
            _history_turn(root.session, n)
        return str(root.id)

    return str(await run_host(tmp_path, home, script, {}, build))


async def test_a_turn_without_a_review_reads_only_the_newest_events(tmp_path: Path, reads: Reads) -> None:
    home = tmp_path / "home"
    write_definition(home, probability=1e-9)  # enabled and scheduled, the roll says no
    script = "responses:\n" + reviewer() + root_turns(1)
    root_id = await _long_root(tmp_path, home, script)

    async def resumed(host: Any, runtime: Any, adapter: Any) -> None:
        reads.on = True
        handle = await host.agents.resume(root_id, agent_options=AgentOptions(provider="scripted", model="root-model"))
        root = handle.agent
        resumed_at = len(root.session.events)
        await host.wait_background_idle()
        await turn(host, root, 0, source=None)
        await host.wait_background_idle()
        state = runtime.owners[root.id]
        assert state.run.total_runs == 0
        older = sorted(i for i in reads.indexes if i < resumed_at - 8)
        assert older == [], f"{len(older)} events before the resumed tail were read"
        assert reads.indexes  # the turn itself was looked at

    await run_host(tmp_path, home, script, {}, resumed)


async def test_the_first_review_after_a_resume_renders_only_what_its_prompt_shows(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_definition(home)
    script = "responses:\n" + reviewer(refs='["{{seq:tool call}}"]') + root_turns(1)
    root_id = await _long_root(tmp_path, home, script)

    async def resumed(host: Any, runtime: Any, adapter: Any) -> None:
        handle = await host.agents.resume(root_id, agent_options=AgentOptions(provider="scripted", model="root-model"))
        root = handle.agent
        await turn(host, root, 0, source=None)
        state = runtime.owners[root.id]
        projector = state.run.projector
        assert state.run.total_runs == 1 and state.governance.last_run.phase == "report"
        projector.project(root.session.events, projector.watermark)  # counts what the prompt read
        assert projector.rebuilds == 0
        assert projector.rendered_events < 600 < len(root.session.events)

    await run_host(tmp_path, home, script, {"maxPromptChars": 4_000}, resumed)


async def test_the_first_review_after_a_resume_reads_what_the_last_host_left_alone(
    tmp_path: Path, reads: Reads
) -> None:
    """The host before reviewed and released the root: its window tally was
    written, so this host's first review counts only the events since and
    renders what its prompt shows; no part of the plugin reads the log's start."""
    home = tmp_path / "home"
    write_definition(home)
    script = "responses:\n" + reviewer(refs='["{{seq:tool call}}"]') + root_turns(1)
    root_id = await _long_root(tmp_path, home, script)

    async def reviewed(host: Any, runtime: Any, adapter: Any) -> None:
        handle = await host.agents.resume(root_id, agent_options=AgentOptions(provider="scripted", model="root-model"))
        await turn(host, handle.agent, 0, source=None)
        assert runtime.owners[handle.agent.id].run.total_runs == 1

    await run_host(tmp_path, home, script, {"maxPromptChars": 4_000}, reviewed)

    async def resumed(host: Any, runtime: Any, adapter: Any) -> None:
        handle = await host.agents.resume(root_id, agent_options=AgentOptions(provider="scripted", model="root-model"))
        root = handle.agent
        resumed_at = len(root.session.events)
        reads.on, reads.only = True, root.id
        await turn(host, root, 0, source=None)
        reads.on = False
        state = runtime.owners[root.id]
        assert state.run.total_runs == 1 and state.governance.last_run.phase == "report"
        assert state.run.tally.recounts == 0
        older = sorted(i for i in reads.indexes if i < resumed_at - 600)
        assert older == [], f"{len(older)} events from {older[0] if older else None} on were read"

    await run_host(tmp_path, home, script, {"maxPromptChars": 4_000}, resumed)


def _tool_turn(session: Any, n: int, *, result_later: bool) -> None:
    """A turn whose tool result may come well after its call (other events
    between), so a prompt bound can fall between the two."""
    session.append("turn/start", {"turn": n})
    call_id = f"call-{n}"
    session.append(
        "tool/call", {"turn": n, "step": 0, "call_id": call_id, "name": "read", "arguments": {"path": f"f{n}.txt"}}
    )
    if result_later:
        for k in range(3):
            text = {
                "id": f"m{n}-{k}",
                "role": "assistant",
                "content": [{"type": "text", "text": f"still working {k} ✓"}],
                "source": {"kind": "model"},
            }
            session.append("assistant/message", {"turn": n, "step": k + 1, "message": text, "stop": "stop"})
    block = {
        "type": "tool-result",
        "tool_call_id": call_id,
        "content": [{"type": "text", "text": f"line {n}\n\nmore"}],
        "is_error": False,
    }
    result = {"id": f"r{n}", "role": "tool", "content": [block], "source": {"kind": "tool", "call_id": call_id}}
    session.append("tool/result", {"turn": n, "step": 0, "call_id": call_id, "message": result})
    session.append("turn/end", {"turn": n, "reason": {"kind": "completed"}})


def _compaction(session: Any, n: int, *, failed: bool = False) -> None:
    cid = f"c{n}"
    session.append("compaction/start", {"compaction_id": cid, "turn": n})
    session.append(
        "compaction/summary", {"compaction_id": cid, "summary": f"summary {n}: the work so far", "shadowed_seqs": [0]}
    )
    session.append("compaction/end", {"compaction_id": cid, **({"error": "model failed"} if failed else {})})


@pytest.mark.parametrize("capture", ["full", "since-compaction"])
async def test_a_resumed_log_projected_from_its_end_frames_the_prompt_a_full_one_does(
    tmp_path: Path, capture: str
) -> None:
    """On a real resumed log: same entries, same marker (count and seqs), same
    cut, for bounds falling anywhere in the newest turns, including between a
    tool call and its late result, and with compaction summaries in the log."""
    home = tmp_path / "home"
    script = "responses:\n" + reviewer() + root_turns(1)

    async def build(host: Any, runtime: Any, adapter: Any) -> str:
        root = await new_root(host, model="root-model")
        for n in range(TURNS):
            if n % 7 == 3:
                _tool_turn(root.session, n, result_later=n % 2 == 1)
            else:
                _history_turn(root.session, n)
            if n in (TURNS // 3, TURNS - 30):
                _compaction(root.session, n)
            if n == TURNS - 12:
                _compaction(root.session, n, failed=True)  # a failed one moves no boundary
        for n in range(TURNS, TURNS + 6):
            _tool_turn(root.session, n, result_later=True)
        return str(root.id)

    root_id = await run_host(tmp_path, home, script, {}, build)

    async def resumed(host: Any, runtime: Any, adapter: Any) -> None:
        handle = await host.agents.resume(root_id, agent_options=AgentOptions(provider="scripted", model="root-model"))
        events = handle.agent.session.events
        last = events[-1].seq
        tail = IncrementalProjector().project(events, last, capture=capture)  # type: ignore[arg-type]
        full = project(events, last, capture=capture)  # type: ignore[arg-type]
        assert isinstance(tail, TailProjection)
        total = u16len(full.text)
        for chars in (0, 1300, 1311, 1323, 1337, 1352, 1500, 1850, 2400, total // 2, total + 2000):
            for tokens in (0, chars // 3):
                args = ("Reviewer", "default", "Check.")
                a = build_prompt(*args, tail, last, think_first=False, max_prompt_chars=chars, max_prompt_tokens=tokens)
                b = build_prompt(*args, full, last, think_first=False, max_prompt_chars=chars, max_prompt_tokens=tokens)
                assert a == b, (chars, tokens)
        assert tail == full
        assert any(e.kind == "compaction/summary" for e in full.entries)

    await run_host(tmp_path, home, script, {}, resumed)
