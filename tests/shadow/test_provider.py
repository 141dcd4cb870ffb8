"""The reserved provider's conditioning: minimal context drops other plugins'
pre-step additions and runtime context; standard context keeps them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hookspecs import hookimpl
from hookspecs.values import Enter, create_user_message

from .helpers import new_root, settle, shadow_host, write_definition

SCRIPT = """
responses:
  - match: {depth: 0, has_tools: [read]}
    reply: {tool_calls: [{name: read, arguments: {path: notes.txt}}]}
  - match: {depth: 0}
    reply: {text: "checked"}
  - match: {depth: 1}
    reply:
      tool_calls:
        - name: structured_output
          arguments: {status: silent, content: ""}
  - match: {depth: 0}
    repeat: true
    reply: {text: ok}
"""


class Injector:
    """Another plugin that adds context to every step of every agent."""

    @hookimpl
    async def dsh_agent_pre_step(self, call_next: Any) -> Any:
        decision = await call_next()
        if isinstance(decision, Enter) and decision.messages:
            extra = create_user_message("INJECTED DEPLOYMENT CONTEXT", source={"kind": "plugin", "plugin": "injector"})
            return Enter(messages=(*decision.messages, extra))
        return decision


@pytest.mark.parametrize("context, injected", [("minimal", False), ("standard", True)])
async def test_context_inheritance(tmp_path: Path, context: str, injected: bool) -> None:
    home = tmp_path / "home"
    write_definition(home, extra=f"context: {context}\n")
    async with shadow_host(tmp_path, SCRIPT, home=home, plugins=[("injector", Injector())]) as (host, adapter, _):
        root = await new_root(host)
        root.followup(create_user_message("please check"))
        await settle(host, root)
        root_request, child_request = adapter.requests[0], adapter.requests[2]
        assert child_request.metadata["delegation_depth"] == 1
        # (the root's injected message is also part of the reviewed trajectory;
        # what matters is whether the child got one of its own)
        assert any(m.text == "INJECTED DEPLOYMENT CONTEXT" for m in root_request.messages)
        assert any(m.text == "INJECTED DEPLOYMENT CONTEXT" for m in child_request.messages) is injected
        assert ("Working directory" in child_request.system) is injected
        assert ("delegated subagent" in child_request.system) is injected
