"""``bash`` does not hand the host's secrets to the model's commands
(harness/tools/builtin/shell_env.py): its environment is an allowlist (PATH,
HOME, locale, terminal...) plus what the ``agent-loop`` setting
``bash_pass_env`` names, and never the variable a provider row's
``api_key_env`` names."""

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
    monkeypatch.setenv("LANG", "C.UTF-8")
    text = await bash_env_output(tmp_path)
    assert "LANG=C.UTF-8" in text
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


def test_only_allowlisted_names_reach_the_shell() -> None:
    environ = {
        "PATH": "/usr/bin",
        "HOME": "/home/u",
        "LANG": "C.UTF-8",
        "LC_ALL": "C",
        "LC_TIME": "C",
        "TERM": "xterm",
        "TMPDIR": "/tmp/u",
        "USER": "u",
        "LOGNAME": "u",
        "SHELL": "/bin/bash",
        "TZ": "UTC",
        "PWD": "/somewhere/else",
        "LLM_PAT": "pat-innocent-name",
        "DB_URL": "postgres://u:hunter2@db/x",
        "LD_PRELOAD": "/evil.so",
        "LCX": "not-a-locale",
    }
    expected = {k: environ[k] for k in ("PATH", "HOME", "LANG", "LC_ALL", "LC_TIME", "TERM", "TMPDIR", "USER")}
    expected.update({k: environ[k] for k in ("LOGNAME", "SHELL", "TZ")})
    assert shell_environment(environ) == expected
    assert shell_environment(environ, ("DB_URL",))["DB_URL"] == "postgres://u:hunter2@db/x"


def test_a_provider_key_is_never_passed_even_when_listed() -> None:
    environ = {"PATH": "/usr/bin", "LLM_PAT": "pat", "GH_TOKEN": "ghp"}
    env = shell_environment(environ, ("LLM_PAT", "GH_TOKEN"), protected=frozenset({"LLM_PAT"}))
    assert env == {"PATH": "/usr/bin", "GH_TOKEN": "ghp"}


async def test_the_provider_key_and_innocent_names_stay_out_of_the_shell(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    # the key's variable has an innocent name, and the person even lists it in bash_pass_env
    monkeypatch.setenv("LLM_PAT", "pat-of-the-provider")
    monkeypatch.setenv("DB_URL", "postgres://u:hunter2@db/x")
    monkeypatch.setenv("DEMO_WANTED", "wanted-value")
    provider = ProfileRow(
        id="llm",
        name="openai-compatible",
        config={"provider": "demo", "base_url": "http://127.0.0.1:9/v1", "api_key_env": "LLM_PAT"},
        layer="test",
    )
    loop = ProfileRow(
        id="agent-loop", name="agent-loop", config={"bash_pass_env": ["LLM_PAT", "DEMO_WANTED"]}, layer="test"
    )
    text = await bash_env_output(tmp_path, (provider, loop))
    assert "wanted-value" in text
    assert "pat-of-the-provider" not in text and "LLM_PAT" not in text
    assert "hunter2" not in text and "DB_URL" not in text
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING" and "LLM_PAT" in r.getMessage()]
    assert len(warnings) == 1 and "\n" not in warnings[0]
