"""``harness demo``, run for real: from an empty directory, the shipped demo relays
a reviewer report about the shipped workspace, and the root answers it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from harness.cli.demo import available_demos

from ..cli_env import cli_env

PROMPT = "Which Python versions does this project support?"


def harness_command() -> list[str]:
    """The installed console script (what a user types), else ``python -m harness``."""
    script = Path(sys.executable).with_name("harness")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "harness"]


def demo(*args: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*harness_command(), "demo", *args], cwd=cwd, env=cli_env(**env), capture_output=True, text=True, timeout=120
    )


def tool_results(events: list[dict[str, Any]]) -> dict[str, str]:
    return {e["data"]["name"]: json.dumps(e["data"]) for e in events if e["type"] == "tool/result"}


def test_the_demo_runs_from_an_empty_directory_and_writes_nothing_there(tmp_path: Path) -> None:
    cwd, user = tmp_path / "empty", tmp_path / "user"
    cwd.mkdir()
    user.mkdir()
    run = demo(cwd=cwd, HOME=str(user))  # no DSH_HOME: a temporary one, not ~/.dsh
    assert run.returncode == 0, run.stderr
    assert "[shadow-report]" in run.stdout
    assert "Correction: the reviewer is right" in run.stdout
    assert "read: 8 lines" in run.stdout  # the shipped pyproject.toml, really read
    assert list(cwd.iterdir()) == [] and list(user.iterdir()) == []


def test_the_report_is_about_the_shipped_workspace(tmp_path: Path) -> None:
    cwd = tmp_path / "empty"
    cwd.mkdir()
    home = tmp_path / "home"
    run = demo("--json", cwd=cwd, DSH_HOME=str(home))
    assert run.returncode == 0, run.stderr
    payload = json.loads(run.stdout)
    events = payload["events"]
    relays = [
        e for e in events
        if e["type"] == "user/message" and e["data"]["message"]["source"]["kind"] == "shadow-report"
    ]
    assert len(relays) == 1
    (report,) = relays[0]["data"]["message"]["source"]["reports"]
    assert report["verdict"] == "challenge" and report["shadow_id"] == "default"
    tool_call = next(e["seq"] for e in events if e["type"] == "tool/call")
    assert report["refs"] == [tool_call]
    assert payload["final_text"].startswith("Correction: the reviewer is right")
    # the root read the shipped pyproject.toml; what the reviewer claims is in it
    assert 'requires-python = \\">=3.11\\"' in tool_results(events)["read"]
    assert "requires-python >= 3.11" in relays[0]["data"]["message"]["content"][0]["text"]
    # a DSH_HOME that is set is used: the reviewer's child session beside the root's
    assert len(list((home / "sessions").iterdir())) == 2
    assert list(cwd.iterdir()) == []


def test_the_reviewers_grep_finds_what_it_reports(tmp_path: Path) -> None:
    home = tmp_path / "home"
    run = demo("--json", cwd=tmp_path, DSH_HOME=str(home))
    assert run.returncode == 0, run.stderr
    root_id = json.loads(run.stdout)["session_id"]
    (child,) = [p for p in (home / "sessions").iterdir() if p.name != root_id]
    events = [json.loads(line) for line in (child / "session.jsonl").read_text().splitlines()]
    grep = tool_results(events)["grep"]
    assert "requires-python" in grep and ">=3.11" in grep and '"is_error": true' not in grep


def test_the_shipped_workspace_says_what_the_script_claims() -> None:
    directory = available_demos()["shadow-mind"].directory()
    pyproject = directory.joinpath("workspace", "pyproject.toml").read_text(encoding="utf-8")
    assert 'requires-python = ">=3.11"' in pyproject
    script = directory.joinpath("script.yml").read_text(encoding="utf-8")
    assert "requires-python >= 3.11" in script and "Python 3.11 or newer" in script


def test_list_and_unknown_names(tmp_path: Path) -> None:
    listing = demo("--list", cwd=tmp_path)
    assert listing.returncode == 0 and listing.stdout.startswith("shadow-mind\t")
    unknown = demo("nope", cwd=tmp_path)
    assert unknown.returncode == 2
    assert "no demo 'nope' (demos: shadow-mind" in unknown.stderr
    assert list(tmp_path.iterdir()) == []


def test_demo_chat_starts_in_the_demo_setup_and_ends_at_end_of_input(tmp_path: Path) -> None:
    cwd, user = tmp_path / "empty", tmp_path / "user"
    cwd.mkdir()
    user.mkdir()
    run = subprocess.run(
        [*harness_command(), "demo", "--chat"],
        cwd=cwd,
        env=cli_env(HOME=str(user)),
        input="/help\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert "/shadow" in run.stdout  # the demo profile's Shadow Mind bundle is loaded
    assert list(cwd.iterdir()) == [] and list(user.iterdir()) == []
