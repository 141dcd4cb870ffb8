"""The CLI, run for real in subprocesses with a temporary DSH_HOME."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from ..cli_env import cli_env

REPO = Path(__file__).resolve().parents[2]


def harness(*args: str, home: Path, cwd: Path = REPO, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    env = cli_env(DSH_HOME=str(home))
    return subprocess.run(
        [sys.executable, "-m", "harness", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_run_streams_the_transcript_and_persists_the_session(tmp_path: Path) -> None:
    home = tmp_path / "home"
    run = harness("run", "--profile", "examples/profiles/scripted-hello.yml", "What is this project?", home=home)
    assert run.returncode == 0, run.stderr
    assert "⚙ read(path=\"README.md\")" in run.stdout
    assert "this project is Shadow Mind for Python" in run.stdout
    listing = harness("sessions", "list", home=home)
    assert listing.returncode == 0
    (line,) = listing.stdout.strip().splitlines()
    session_id = line.split()[0]
    assert "What is this project?" in line
    show = harness("sessions", "show", session_id, home=home)
    assert show.returncode == 0
    assert "you: What is this project?" in show.stdout
    assert "assistant: Hello!" in show.stdout
    raw = harness("sessions", "show", session_id, "--json", home=home)
    events = [json.loads(line) for line in raw.stdout.splitlines()]
    assert [e["seq"] for e in events] == list(range(len(events)))
    assert events[-1]["type"] == "turn/end"
    assert (home / "sessions" / session_id / "session.jsonl").stat().st_mode & 0o777 == 0o600


def test_run_json_output(tmp_path: Path) -> None:
    run = harness(
        "run", "--profile", "examples/profiles/scripted-hello.yml", "--json", "hi", home=tmp_path / "home"
    )
    assert run.returncode == 0, run.stderr
    payload = json.loads(run.stdout)
    assert payload["exit_code"] == 0
    assert payload["turns"] == [{"turn": 1, "reason": {"kind": "completed"}}]
    assert "Shadow Mind for Python" in payload["final_text"]


def test_exit_code_reflects_the_turn_end(tmp_path: Path) -> None:
    script = tmp_path / "err.yml"
    script.write_text("responses:\n  - reply: {error: {message: boom, code: SERVER, status: 500}}\n")
    profile = tmp_path / "p.yml"
    profile.write_text(
        f"- id: llm\n  name: scripted-llm\n  config: {{script: {script}}}\n"
        "- id: agent-loop\n  name: agent-loop\n  config: {model: scripted/x}\n"
    )
    run = harness("run", "--profile", str(profile), "hi", home=tmp_path / "home")
    assert run.returncode == 1
    assert "failed [SERVER]: boom" in run.stdout


def test_slash_commands_run_without_the_model(tmp_path: Path) -> None:
    run = harness("run", "--profile", "examples/profiles/scripted-hello.yml", "/help", home=tmp_path / "home")
    assert run.returncode == 0, run.stderr
    assert "/help" in run.stdout


def test_dump_config_and_plugins(tmp_path: Path) -> None:
    home = tmp_path / "home"
    dump = harness("--profile", "examples/profiles/scripted-hello.yml", "--dump-config", home=home)
    assert dump.returncode == 0, dump.stderr
    assert "# == profile:" in dump.stdout and "scripted-llm" in dump.stdout
    plugins = harness("plugins", "--profile", "examples/profiles/scripted-hello.yml", home=home)
    assert plugins.returncode == 0, plugins.stderr
    assert "llm (scripted-llm" in plugins.stdout
    assert "dsh_register_llm_adapters" in plugins.stdout
    assert "harness-core" in plugins.stdout


def test_bad_profile_names_file_and_field(tmp_path: Path) -> None:
    profile = tmp_path / "bad.yml"
    profile.write_text("- id: llm\n  name: scripted-llm\n  config: {script: x.yml, chunk_size: big}\n")
    run = harness("run", "--profile", str(profile), "hi", home=tmp_path / "home")
    assert run.returncode == 2
    assert "bad.yml" in run.stderr and "chunk_size" in run.stderr


def test_bad_model_route_is_a_usage_error(tmp_path: Path) -> None:
    run = harness(
        "run", "--profile", "examples/profiles/scripted-hello.yml", "--model", "nomodel", "hi", home=tmp_path / "home"
    )
    assert run.returncode == 2
    assert "--model must use provider/model" in run.stderr
