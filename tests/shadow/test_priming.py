"""A resumed long root is projected in the background, so its first review
renders only the events since the resume (issue 9: the first review after a
resume cost a full projection)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hookspecs.values import AgentOptions
from shadow_mind_plugin.runtime.priming import PRIME_MIN_EVENTS

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
