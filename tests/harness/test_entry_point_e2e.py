"""A plugin installed through a real entry point, activated from a profile file,
observes every event of a scripted run in order — without patching the loop."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from harness.host import open_host
from harness.profiles import compose_profile
from hookspecs.protocols import CreateAgentOptions
from hookspecs.values import AgentOptions, create_user_message

OBSERVER_SOURCE = '''
from hookspecs import hookimpl
import attrs

SEEN = []

@attrs.frozen(kw_only=True)
class Config:
    label: str = "observer"

class Observer:
    config_schema = Config

    def __init__(self, config):
        self.config = config

    @hookimpl
    def dsh_session_event(self, session, event):
        SEEN.append((self.config.label, session.id, event.seq, event.type))
'''

SCRIPT = """
responses:
  - match: {has_tools: [read]}
    reply:
      text: "let me look"
      tool_calls: [{name: read, arguments: {path: a.txt}}]
  - reply: {text: "it says hi"}
"""


async def test_entry_point_plugin_sees_every_event(tmp_path: Path, fake_distribution: Any) -> None:
    fake_distribution(
        "observer-plugin",
        files={"observer_pkg/__init__.py": OBSERVER_SOURCE},
        plugins={"event-observer": "observer_pkg:Observer"},
    )
    script = tmp_path / "script.yml"
    script.write_text(SCRIPT)
    profile = tmp_path / "profile.yml"
    profile.write_text(
        f"""
- id: llm
  name: scripted-llm
  config: {{script: "{script}"}}
- id: agent-loop
  name: agent-loop
  config: {{model: scripted/any}}
- id: watcher
  name: event-observer
  config: {{label: watched}}
"""
    )
    work = tmp_path / "work"
    work.mkdir()
    (work / "a.txt").write_text("hi\n")
    home = tmp_path / "home"
    composed = compose_profile(profile, dsh_home=home)
    import observer_pkg  # type: ignore[import-not-found]

    async with open_host(
        rows=composed.rows, dsh_home=home, cwd=work, environ={}, logger=logging.getLogger("e2e")
    ) as host:
        assert "watcher" in {p.row_id for p in host.loaded}
        handle = await host.agents.create(CreateAgentOptions(agent_options=AgentOptions()))
        agent = handle.agent
        agent.followup(create_user_message("what does a.txt say?"))
        await agent.when_idle()
        seen = [item for item in observer_pkg.SEEN if item[1] == agent.id]
        assert [s[2] for s in seen] == list(range(agent.session.seq))
        assert [s[3] for s in seen] == [e.type for e in agent.session.events]
        assert {s[0] for s in seen} == {"watched"}
        assert seen[-1][3] == "turn/end"
        assert agent.session.events[-1].data["reason"] == {"kind": "completed"}
        await handle.dispose()
