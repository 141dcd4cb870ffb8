"""``bash`` does not hand the host's secrets to the model's commands
(harness/tools/builtin/shell_env.py): secret-looking names are left out of
its environment unless the ``agent-loop`` setting ``bash_pass_env`` names them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from harness.profiles import ProfileRow
from harness.tools.builtin.shell_env import shell_environment
from hookspecs import hookimpl
from hookspecs.values import EventTypes, create_user_message

from .helpers import new_root, scripted_host

SCRIPT = """
responses:
  - match: {has_tools: [bash]}
    reply:
      tool_calls: [{name: bash, arguments: {command: "env | sort"}}]
  - repeat: true
    reply: {text: "done"}
"""


def test_secret_looking_names_are_left_out_unless_passed() -> None:
    environ = {
        "PATH": "/usr/bin",
        "HOME": "/home/u",
        "DEEPSEEK_API_KEY": "sk-1",
        "openai_api_key": "sk-2",
        "GH_TOKEN": "ghp",
        "AWS_SECRET_ACCESS_KEY": "a",
        "PGPASSWORD": "p",
        "GOOGLE_APPLICATION_CREDENTIALS": "/c.json",
        "HTTP_AUTHORIZATION": "Bearer x",
        "LANG": "C.UTF-8",
    }
    assert shell_environment(environ) == {"PATH": "/usr/bin", "HOME": "/home/u", "LANG": "C.UTF-8"}
    assert shell_environment(environ, ("GH_TOKEN",)) == {
        "PATH": "/usr/bin",
        "HOME": "/home/u",
        "LANG": "C.UTF-8",
        "GH_TOKEN": "ghp",
    }


class Allow:
    @hookimpl
    def dsh_approval_request(self, request: Any, call_next: Any) -> str:
        return "allowed-once"


async def bash_env_output(tmp_path: Path, rows: tuple[ProfileRow, ...] = ()) -> str:
    async with scripted_host(tmp_path, SCRIPT, plugins=[("allow", Allow())], rows=rows) as (host, _):
        agent = (await new_root(host)).agent
        agent.followup(create_user_message("show the environment"))
        await agent.when_idle()
        results = [e for e in agent.session.events if e.type == EventTypes.TOOL_RESULT]
        assert len(results) == 1
        return str(results[0].data)


async def test_the_model_s_shell_does_not_see_the_host_s_api_keys(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEMO_PROVIDER_API_KEY", "sk-demo-not-for-the-model")
    monkeypatch.setenv("DEMO_PLAIN_SETTING", "visible-value")
    text = await bash_env_output(tmp_path)
    assert "visible-value" in text
    assert "DEMO_PROVIDER_API_KEY" not in text and "sk-demo-not-for-the-model" not in text


async def test_bash_pass_env_hands_a_named_variable_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEMO_GH_TOKEN", "token-the-workflow-needs")
    monkeypatch.setenv("DEMO_OTHER_TOKEN", "still-hidden")
    row = ProfileRow(id="agent-loop", name="agent-loop", config={"bash_pass_env": ["DEMO_GH_TOKEN"]}, layer="test")
    text = await bash_env_output(tmp_path, (row,))
    # the command saw it; the stored tool result hides its value (session logs
    # keep no secret-named values, see tests/harness/test_session_secrets.py)
    assert "DEMO_GH_TOKEN=[credential]" in text and "token-the-workflow-needs" not in text
    assert "DEMO_OTHER_TOKEN" not in text and "still-hidden" not in text
