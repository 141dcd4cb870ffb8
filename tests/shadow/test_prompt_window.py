"""The reviewer's prompt is bounded by its model's window, end to end: a real
host, a reviewer model with a small window in the scripted catalog, a root
message too large for it. The oldest entries are left out behind one marker,
the refs allowlist is what was shown, and the run still settles."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hookspecs.values import TextBlock, create_user_message
from shadow_mind_plugin.prompt import elision_marker
from shadow_mind_plugin.tokens import estimate_tokens

from .helpers import new_root, settle, shadow_host, write_definition

BIG = "please check the notes " + "lorem ipsum dolor sit amet " * 160  # ~4.3k chars, ~2.2k tokens

SCRIPT = """
models:
  - {id: root-model, context_window: 128000}
  - {id: small-window, context_window: 3000}
responses:
  - match: {depth: 0, last_user_contains: "check"}
    reply: {tool_calls: [{name: read, arguments: {path: notes.txt}}]}
  - match: {depth: 0, last_user_contains: "check"}
    reply: {text: "checked"}
  # first the reviewer cites the (elided) user message, then the shown tool call
  - match: {depth: 1, model: small-window}
    reply:
      tool_calls:
        - name: structured_output
          arguments: {status: report, verdict: challenge, refs: [2], content: "the request says staging"}
  - match: {depth: 1, model: small-window}
    reply:
      tool_calls:
        - name: structured_output
          arguments: {status: report, verdict: challenge, refs: ["{{seq:tool call}}"], content: "the read shows staging"}
  - match: {depth: 0, last_user_contains: "Shadow reports"}
    reply: {text: "noted"}
"""


def _user_text(request: Any) -> str:
    message = next(m for m in request.messages if m.role == "user")
    return "\n".join(b.text for b in message.content if isinstance(b, TextBlock))


async def test_a_small_window_elides_old_entries_and_the_allowlist_follows(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_definition(home, extra="run_with_model: scripted/small-window\n")
    async with shadow_host(tmp_path, SCRIPT, home=home) as (host, adapter, runtime):
        root = await new_root(host)
        root.followup(create_user_message(BIG))
        await settle(host, root)
        (cycle,) = runtime.owners[root.id].governance.cycles.values()
        (view,) = cycle.runs
        child_requests = [r for r in adapter.requests if r.metadata["delegation_depth"] == 1]
    # the run settles as a report citing a shown seq
    assert (view.phase, view.reason_code) == ("report", None)
    tool_call = next(e.seq for e in root.session.events if e.type == "tool/call")
    assert view.refs == (tool_call,)
    prompt = _user_text(child_requests[0])
    # the root's message (seq 2) was left out behind the one marker; the newest entries are shown
    assert "lorem ipsum" not in prompt
    assert elision_marker(1, 2, 2) in prompt
    assert f"[seq={tool_call} tool call]" in prompt
    # within the reviewer's share of its window (half of 3000 estimated tokens)
    assert estimate_tokens(prompt) <= 1500
    # citing the elided seq was refused by the structured_output tool (the allowlist is what was shown)
    second = child_requests[1]
    refusal = [m for m in second.messages if m.role == "tool"][-1]
    assert "2" in refusal.content[0].content[0].text  # type: ignore[union-attr]
