"""The ``dsh`` pytest plugin (``harness.testing``): what a plugin author's test
suite looks like, in process and in a third-party project of its own."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import trio

from hookspecs import hookimpl

from ..cli_env import cli_env


class EventRecorder:
    def __init__(self) -> None:
        self.seen: list[str] = []

    @hookimpl
    def dsh_session_event(self, event: Any) -> None:
        self.seen.append(event.type)


SCRIPT = """\
responses:
  - match: {last_user_contains: hello}
    reply: {text: "hello back"}
"""


def test_run_turn_drives_a_turn_with_the_plugin_registered(dsh_run_turn: Any) -> None:
    recorder = EventRecorder()
    events = dsh_run_turn("hello", script=SCRIPT, plugins={"recorder": recorder})
    assert [e.type for e in events if e.type.startswith(("user/", "assistant/message"))] == [
        "user/message", "assistant/message",
    ]
    assert events[-1].type == "turn/end"
    assert "assistant/message" in recorder.seen


async def test_the_host_fixture_unregisters_the_plugin(dsh_host: Any) -> None:
    recorder = EventRecorder()
    async with dsh_host(plugins={"recorder": recorder}) as host:
        assert host.pm.get_plugin("recorder") is recorder
        agent = await dsh_host.new_root(host)
        assert agent.session.id
        pm = host.pm
    await trio.lowlevel.checkpoint()
    assert not pm.has_plugin("recorder")


def test_rows_name_installed_plugins(dsh_run_turn: Any, dsh_home: Path) -> None:
    events = dsh_run_turn("hi", rows=["tool-subagent"])
    assert "turn/end" in [e.type for e in events]
    assert (dsh_home / "sessions").is_dir()


TOY_PLUGIN = '''
from hookspecs import hookimpl


class Shouter:
    """A toy third-party plugin: upper-cases nothing, counts answers."""

    answers = 0

    @hookimpl
    def dsh_session_event(self, event):
        if event.type == "assistant/message":
            Shouter.answers += 1
'''

THREE_LINE_TEST = '''
from toy_plugin import Shouter

def test_shouter(dsh_run_turn):
    events = dsh_run_turn("hi", plugins={"shouter": Shouter()})
    assert Shouter.answers == 1 and events[-1].type == "turn/end"
'''


def test_a_third_party_suite_needs_only_the_installed_plugin(tmp_path: Path) -> None:
    project = tmp_path / "toy"
    project.mkdir()
    (project / "toy_plugin.py").write_text(textwrap.dedent(TOY_PLUGIN))
    (project / "test_toy.py").write_text(textwrap.dedent(THREE_LINE_TEST))
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", "test_toy.py"],
        cwd=project, env=cli_env(PYTHONPATH=str(project)), capture_output=True, text=True, timeout=120,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "1 passed" in run.stdout
