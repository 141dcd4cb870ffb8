"""A resumed long root is projected in the background, so its first review
renders only the events since the resume (issue 9: the first review after a
resume cost a full projection)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hookspecs.values import AgentOptions
from shadow_mind_plugin.projection import project
from shadow_mind_plugin.prompt import build_prompt
from shadow_mind_plugin.runtime.priming import PRIME_MIN_EVENTS
from shadow_mind_plugin.utf16 import u16len

from .helpers import new_root, write_definition
from .test_governance_runtime import reviewer, root_turns, run_host, turn

TURNS = PRIME_MIN_EVENTS // 4 + 10  # four events a turn


def _history_turn(session: Any, n: int) -> None:
    session.append("turn/start", {"turn": n})
    message = {"id": f"u{n}", "role": "user", "content": [{"type": "text", "text": f"question {n} über"}], "source": {"kind": "user"}}
    session.append("user/message", {"turn": n, "step": 0, "message": message})
    answer = {"id": f"a{n}", "role": "assistant", "content": [{"type": "text", "text": f"answer {n}"}], "source": {"kind": "model"}}
    session.append("assistant/message", {"turn": n, "step": 0, "message": answer, "stop": "stop"})
    session.append("turn/end", {"turn": n, "reason": {"kind": "completed"}})


async def test_first_review_after_resume_renders_only_the_new_events(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_definition(home)
    script = "responses:\n" + reviewer(refs='["{{seq:tool call}}"]') + root_turns(1)

    async def build(host: Any, runtime: Any, adapter: Any) -> str:
        root = await new_root(host, model="root-model")
        for n in range(TURNS):
            _history_turn(root.session, n)
        return str(root.id)

    root_id = await run_host(tmp_path, home, script, {}, build)

    async def resumed(host: Any, runtime: Any, adapter: Any) -> None:
        handle = await host.agents.resume(root_id, agent_options=AgentOptions(provider="scripted", model="root-model"))
        root = handle.agent
        resumed_at = root.session.events[-1].seq
        await host.wait_background_idle()  # the priming task ran
        await turn(host, root, 0, source=None)
        state = runtime.owners[root.id]
        projector = state.run.projector
        assert state.run.total_runs == 1 and state.governance.last_run.phase == "report"
        assert projector.rebuilds == 0
        assert projector.rendered_events > resumed_at  # the whole log, rendered once ...
        assert projector.last_rendered < 20  # ... of which the review rendered only its own turn

    await run_host(tmp_path, home, script, {}, resumed)


async def test_short_sessions_and_unscheduled_reviewers_are_not_primed(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_definition(home, probability=0.0)
    script = "responses:\n" + reviewer() + root_turns(1)

    async def build(host: Any, runtime: Any, adapter: Any) -> None:
        root = await new_root(host, model="root-model")
        for n in range(TURNS):
            _history_turn(root.session, n)
        runtime.primer.start(root)  # as if resumed: p=0 means no review will need it
        assert runtime.primer.take(root) is None
        write_definition(home)
        short = await new_root(host, model="root-model")
        runtime.primer.start(short)
        assert runtime.primer.take(short) is None

    await run_host(tmp_path, home, script, {}, build)


def _tool_turn(session: Any, n: int, *, result_later: bool) -> None:
    """A turn whose tool result may come well after its call (other events
    between), so a prompt bound can fall between the two."""
    session.append("turn/start", {"turn": n})
    call_id = f"call-{n}"
    session.append("tool/call", {"turn": n, "step": 0, "call_id": call_id, "name": "read", "arguments": {"path": f"f{n}.txt"}})
    if result_later:
        for k in range(3):
            text = {"id": f"m{n}-{k}", "role": "assistant", "content": [{"type": "text", "text": f"still working {k} ✓"}], "source": {"kind": "model"}}
            session.append("assistant/message", {"turn": n, "step": k + 1, "message": text, "stop": "stop"})
    block = {"type": "tool-result", "tool_call_id": call_id, "content": [{"type": "text", "text": f"line {n}\n\nmore"}], "is_error": False}
    result = {"id": f"r{n}", "role": "tool", "content": [block], "source": {"kind": "tool", "call_id": call_id}}
    session.append("tool/result", {"turn": n, "step": 0, "call_id": call_id, "message": result})
    session.append("turn/end", {"turn": n, "reason": {"kind": "completed"}})


def _compaction(session: Any, n: int, *, failed: bool = False) -> None:
    cid = f"c{n}"
    session.append("compaction/start", {"compaction_id": cid, "turn": n})
    session.append("compaction/summary", {"compaction_id": cid, "summary": f"summary {n}: the work so far", "shadowed_seqs": [0]})
    session.append("compaction/end", {"compaction_id": cid, **({"error": "model failed"} if failed else {})})


@pytest.mark.parametrize("capture", ["full", "since-compaction"])
async def test_the_primed_projection_frames_the_prompt_a_full_one_does(tmp_path: Path, capture: str) -> None:
    """Whatever priming keeps, the reviewer sees what a projection of the whole
    resumed log shows: same entries, same marker (count and seqs), same cut,
    for bounds falling anywhere in the newest turns, including between a tool
    call and its late result, and with compaction summaries in the log."""
    home = tmp_path / "home"
    write_definition(home, extra=f"capture: {capture}\n")
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
        root = handle.agent
        await host.wait_background_idle()  # the priming task ran
        projector = runtime.primer.take(root)
        assert projector is not None
        events = root.session.events
        last = events[-1].seq
        primed = projector.project(events, last, capture=capture)
        full = project(events, last, capture=capture)  # type: ignore[arg-type]
        assert primed == full
        total = u16len(full.text)
        for chars in (0, 400, 411, 423, 437, 452, 600, 950, 1500, total // 2, total + 2000):
            for tokens in (0, chars // 3):
                args = ("Reviewer", "default", "Check.", primed, last)
                a = build_prompt(*args, think_first=False, max_prompt_chars=chars, max_prompt_tokens=tokens)
                b = build_prompt(*args[:3], full, last, think_first=False, max_prompt_chars=chars, max_prompt_tokens=tokens)
                assert a == b, (chars, tokens)
        assert any(e.kind == "compaction/summary" for e in full.entries)

    await run_host(tmp_path, home, script, {}, resumed)
